/**
 * Volume alert (spec "What the service does" 9: "a request volume above 2x the hourly
 * average triggers an automated alert"). For each API key and each organization
 * (`org_id` of X-Agent-Identity): when the requests of the last 60 minutes exceed
 * twice the hourly average of the 24 hours before them, and number at least
 * VOLUME_ALERT_MIN_REQUESTS, an alert is recorded (once per subject per clock hour),
 * the operator is e-mailed (OPERATOR_EMAIL, through the e-mail outbox), and
 * /api/status lists it in `issues` for 24 hours. Each subject is checked at most once
 * a minute across every instance (`takeDueSubjects`, issue 47 item 3).
 */
import { and, eq, gte, isNull, lte, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { activityLog, alerts, emails, type NewActivityLogEntry } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { reportSharedStoreFailure, SHARED_KEY_PREFIX, sharedRedis } from "../ratelimit/shared-store.js";

/** Trailing window of the baseline, hours. */
export const BASELINE_HOURS = 24;
/** A subject is checked at most once per this interval, across every instance, ms. */
export const CHECK_INTERVAL_MS = 60_000;
/** When this process last checked each subject (the local profile's throttle), epoch ms. */
const lastChecked = new Map<string, number>();

type Subject = { kind: "api_key" | "org"; id: string };

/** The local profile's throttle: the subjects of `keys` this process has not checked for a minute. */
function dueLocally(keys: string[], now: number): string[] {
  return keys.filter((k) => {
    if (now - (lastChecked.get(k) ?? 0) < CHECK_INTERVAL_MS) return false;
    lastChecked.set(k, now);
    return true;
  });
}

/**
 * The subjects of `batch` due for a check at `now` (epoch ms), each taken for CHECK_INTERVAL_MS:
 * with Upstash Redis (the production profile) by `SET ptes:va:<subject> NX PX 60000`, so one
 * instance of all checks a subject once a minute; without it (the local profile's one process),
 * by this process's memory. Redis failing: this process's memory decides, the reason logged.
 * @returns the subjects this caller must check now; never throws
 */
export async function takeDueSubjects(batch: NewActivityLogEntry[], now: number): Promise<Subject[]> {
  const subjects = new Map<string, Subject>();
  for (const e of batch) {
    if (e.apiKeyId) subjects.set(`api_key:${e.apiKeyId}`, { kind: "api_key", id: e.apiKeyId });
    if (e.orgId) subjects.set(`org:${e.orgId}`, { kind: "org", id: e.orgId });
  }
  const keys = [...subjects.keys()];
  if (keys.length === 0) return [];
  const config = getConfig();
  const pending = sharedRedis(config);
  let due: string[];
  if (!pending) due = dueLocally(keys, now);
  else {
    try {
      const redis = await pending;
      const taking = redis.pipeline();
      for (const k of keys)
        taking.set(`${SHARED_KEY_PREFIX}va:${k}`, String(now), { nx: true, px: CHECK_INTERVAL_MS });
      const taken = await taking.exec<unknown[]>();
      due = keys.filter((_, i) => taken[i] === "OK");
    } catch (error) {
      reportSharedStoreFailure(
        "volume alert",
        "this process's own once-a-minute throttle decides meanwhile",
        error,
      );
      due = dueLocally(keys, now);
    }
  }
  return due.map((k) => subjects.get(k)!);
}

/**
 * Checks the subjects of `batch` that are due (`takeDueSubjects`: once a minute per subject
 * across every instance).
 * @returns the ids of the alerts raised
 * @throws the database's errors (the caller logs them)
 */
export async function checkVolumeAlerts(batch: NewActivityLogEntry[], now = new Date()): Promise<string[]> {
  const raised: string[] = [];
  for (const subject of await takeDueSubjects(batch, now.getTime())) {
    const id = await checkSubject(subject, now);
    if (id) raised.push(id);
  }
  return raised;
}

/** Checks one subject now, ignoring the per-minute throttle. */
export async function checkSubject(subject: Subject, now = new Date()): Promise<string | undefined> {
  const config = getConfig();
  const db = await getDb();
  const column = subject.kind === "api_key" ? activityLog.apiKeyId : activityLog.orgId;
  const hourAgo = new Date(now.getTime() - 3600_000);
  const baselineStart = new Date(hourAgo.getTime() - BASELINE_HOURS * 3600_000);
  const [counts] = await db
    .select({
      last_hour:
        sql<number>`count(*) filter (where ${activityLog.at} >= ${hourAgo.toISOString()}::timestamptz)`.mapWith(
          Number,
        ),
      baseline:
        sql<number>`count(*) filter (where ${activityLog.at} < ${hourAgo.toISOString()}::timestamptz)`.mapWith(
          Number,
        ),
    })
    .from(activityLog)
    .where(and(eq(column, subject.id), gte(activityLog.at, baselineStart), lte(activityLog.at, now)));
  const lastHour = counts?.last_hour ?? 0;
  const average = (counts?.baseline ?? 0) / BASELINE_HOURS;
  if (lastHour < config.VOLUME_ALERT_MIN_REQUESTS || lastHour <= 2 * average) return undefined;
  const hourBucket = now.toISOString().slice(0, 13);
  const alertId = prefixedId("alert");
  const subjectText = `${subject.kind === "api_key" ? "API key" : "organization"} ${subject.id}`;
  const details = {
    subject,
    last_hour: lastHour,
    hourly_average: Number(average.toFixed(2)),
    window_hours: BASELINE_HOURS,
  };
  const inserted = await db
    .insert(alerts)
    .values({
      id: alertId,
      kind: "volume_spike",
      subject: subjectText,
      details,
      dedupeKey: `volume:${subject.kind}:${subject.id}:${hourBucket}`,
    })
    .onConflictDoNothing()
    .returning({ id: alerts.id });
  if (inserted.length === 0) return undefined;
  await db.insert(emails).values({
    id: prefixedId("email"),
    toAddress: config.OPERATOR_EMAIL,
    subject: `Volume alert: ${subjectText} made ${lastHour} requests in the last hour`,
    textBody:
      `${subjectText} made ${lastHour} requests in the last hour, more than twice its hourly average of ` +
      `${details.hourly_average} over the previous ${BASELINE_HOURS} hours.\n`,
    template: "volume_alert",
    lang: "en",
    dedupeKey: `alert:${alertId}`,
  });
  return alertId;
}

/** Open alerts of the last `hours` hours, newest first, as issue sentences for /api/status. */
export async function recentAlertIssues(hours = 24, now = new Date()): Promise<string[]> {
  const db = await getDb();
  const since = new Date(now.getTime() - hours * 3600_000);
  const rows = await db
    .select()
    .from(alerts)
    .where(and(isNull(alerts.resolvedAt), gte(alerts.createdAt, since)))
    .orderBy(sql`${alerts.createdAt} desc`)
    .limit(10);
  return rows.map((a) => {
    const d = a.details as { last_hour?: number; hourly_average?: number } | null;
    return `Volume alert: ${a.subject} made ${d?.last_hour ?? "?"} requests in an hour (hourly average ${d?.hourly_average ?? "?"})`;
  });
}

/** Forgets this process's per-minute throttle (tests; the shared one lapses by itself). */
export function resetVolumeThrottle(): void {
  lastChecked.clear();
}

/**
 * Volume alert (spec "What the service does" 9: "a request volume above 2x the hourly
 * average triggers an automated alert"). For each API key and each organization
 * (`org_id` of X-Agent-Identity): when the requests of the last 60 minutes exceed
 * twice the hourly average of the 24 hours before them, and number at least
 * VOLUME_ALERT_MIN_REQUESTS, an alert is recorded (once per subject per clock hour),
 * the operator is e-mailed (OPERATOR_EMAIL, through the e-mail outbox), and
 * /api/status lists it in `issues` for 24 hours. Each subject is checked at most once
 * a minute per process.
 */
import { and, eq, gte, isNull, lte, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { activityLog, alerts, emails, type NewActivityLogEntry } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";

/** Trailing window of the baseline, hours. */
export const BASELINE_HOURS = 24;
const CHECK_INTERVAL_MS = 60_000;
const lastChecked = new Map<string, number>();

type Subject = { kind: "api_key" | "org"; id: string };

/** Subjects of `batch` due for a check now. */
function dueSubjects(batch: NewActivityLogEntry[], now: number): Subject[] {
  const out = new Map<string, Subject>();
  for (const e of batch) {
    if (e.apiKeyId) out.set(`api_key:${e.apiKeyId}`, { kind: "api_key", id: e.apiKeyId });
    if (e.orgId) out.set(`org:${e.orgId}`, { kind: "org", id: e.orgId });
  }
  return [...out.entries()]
    .filter(([k]) => now - (lastChecked.get(k) ?? 0) >= CHECK_INTERVAL_MS)
    .map(([k, s]) => {
      lastChecked.set(k, now);
      return s;
    });
}

/** Checks the subjects of `batch`; returns the alerts raised. */
export async function checkVolumeAlerts(batch: NewActivityLogEntry[], now = new Date()): Promise<string[]> {
  const raised: string[] = [];
  for (const subject of dueSubjects(batch, now.getTime())) {
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

/** Forgets the per-minute throttle (tests). */
export function resetVolumeThrottle(): void {
  lastChecked.clear();
}

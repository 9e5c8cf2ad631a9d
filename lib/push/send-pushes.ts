/**
 * The push worker (issue 44 item 6; docs/notifications.md "Push notifications"): sends queued
 * `push_messages` to their subscriptions' push services, run by every outbox pass
 * (lib/events/process-outbox.ts) after the commit that queued them and by the every-minute cron.
 *
 * Each message is one Web Push request built by the `web-push` library (RFC 8030 POST with `TTL`
 * and `Urgency`, the payload encrypted `aes128gcm` per RFC 8291 for the subscription's keys, and
 * the VAPID `Authorization: vapid t=…, k=…` header of RFC 8292) and sent through `safeFetch`
 * (lib/net/safe-fetch.ts: the address checked where the socket opens, no redirects, bounded by
 * WEBHOOK_TIMEOUT_MS), since the endpoint is a URL a browser handed us.
 *
 * Outcomes: 2xx → `sent`; 404 or 410 (RFC 8030 §7.3: the subscription expired or was removed) →
 * the subscription is deleted, with its messages; 429, 5xx, a timeout or a network error → retried
 * 30 s, 5 min and 30 min later, then `failed`; another 4xx → `failed` at once. Messages are claimed
 * with a 60 s lease so concurrent workers never send one twice. Nothing here throws into a
 * request: a push that fails is a row that says so.
 */
import { and, asc, eq, inArray, isNull, lt, or } from "drizzle-orm";
import { type Config, getConfig } from "../config.js";
import { type Db, getDb } from "../db/client.js";
import { type PushMessage, pushMessages, pushSubscriptions, staffSessions } from "../db/schema/index.js";
import { safeFetch } from "../net/safe-fetch.js";
import { type VapidDetails, vapidDetails } from "./vapid.js";

/** Delays before retrying a failed send, seconds; after the last one the message is `failed`. */
export const PUSH_RETRY_DELAYS_SECONDS = [30, 300, 1800];

/** Sent and failed messages are kept this long, then purged, days. */
export const PUSH_RETENTION_DAYS = 7;

/** Lease of one claimed message, seconds. */
const LEASE_SECONDS = 60;

/** A claimed message with its subscription. */
interface Claimed {
  message: PushMessage;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** Outcome of one attempt. */
export type PushOutcome =
  | { kind: "sent"; status: number }
  | { kind: "gone"; status: number }
  | { kind: "retry" | "failed"; status: number | null; error: string };

/** Counts of one run. */
export interface PushSendResult {
  pushes_sent: number;
  pushes_retrying: number;
  pushes_failed: number;
  subscriptions_gone: number;
}

async function claimDue(db: Db, now: Date, limit: number): Promise<Claimed[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: pushMessages.id })
      .from(pushMessages)
      .where(
        and(
          eq(pushMessages.status, "queued"),
          lt(pushMessages.nextAttemptAt, new Date(now.getTime() + 1)),
          or(isNull(pushMessages.lockedUntil), lt(pushMessages.lockedUntil, now)),
        ),
      )
      .orderBy(asc(pushMessages.nextAttemptAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    const lease = new Date(now.getTime() + LEASE_SECONDS * 1000);
    const ids = due.map((d) => d.id);
    await tx.update(pushMessages).set({ lockedUntil: lease }).where(inArray(pushMessages.id, ids));
    const rows = await tx
      .select({
        message: pushMessages,
        endpoint: pushSubscriptions.endpoint,
        p256dh: pushSubscriptions.p256dh,
        auth: pushSubscriptions.auth,
      })
      .from(pushMessages)
      .innerJoin(pushSubscriptions, eq(pushSubscriptions.id, pushMessages.subscriptionId))
      .where(inArray(pushMessages.id, ids));
    return rows;
  });
}

/**
 * Sends one message to `endpoint` once; never throws.
 * @param ttlSeconds the `TTL` header (how long the push service keeps it for an offline device)
 */
export async function attemptPush(
  target: { endpoint: string; p256dh: string; auth: string },
  payload: unknown,
  vapid: VapidDetails,
  config: Config = getConfig(),
  urgency: "normal" | "high" = "normal",
): Promise<PushOutcome> {
  try {
    const webpush = (await import("web-push")).default;
    const details = webpush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      JSON.stringify(payload),
      { vapidDetails: vapid, TTL: config.PUSH_TTL_SECONDS, urgency, contentEncoding: "aes128gcm" },
    );
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) headers[name.toLowerCase()] = String(value);
    const res = await safeFetch(details.endpoint, {
      method: "POST",
      headers,
      body: details.body as Uint8Array<ArrayBuffer>,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.ALLOW_PRIVATE_CALLBACKS,
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { kind: "sent", status: res.status };
    if (res.status === 404 || res.status === 410) return { kind: "gone", status: res.status };
    const error = `HTTP ${res.status}`;
    return res.status === 429 || res.status >= 500 || res.status === 408
      ? { kind: "retry", status: res.status, error }
      : { kind: "failed", status: res.status, error };
  } catch (error) {
    const message =
      error instanceof DOMException && error.name === "TimeoutError"
        ? `timed out after ${config.WEBHOOK_TIMEOUT_MS} ms`
        : error instanceof Error
          ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}`
          : String(error);
    const blocked = error instanceof Error && error.name === "OutboundBlockedError";
    return { kind: blocked ? "failed" : "retry", status: null, error: message.slice(0, 500) };
  }
}

/** Records the outcome of one attempt (attempt number `attempts`) of `claimed`. */
async function record(db: Db, claimed: Claimed, outcome: PushOutcome, now: Date): Promise<void> {
  const { message } = claimed;
  const attempts = message.attempts + 1;
  if (outcome.kind === "gone") {
    // The push service forgot the subscription: delete it (its messages go with it).
    await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, message.subscriptionId));
    return;
  }
  if (outcome.kind === "sent") {
    await db
      .update(pushMessages)
      .set({
        status: "sent",
        attempts,
        sentAt: now,
        lastStatus: outcome.status,
        error: null,
        lockedUntil: null,
      })
      .where(eq(pushMessages.id, message.id));
    return;
  }
  const delay = PUSH_RETRY_DELAYS_SECONDS[attempts - 1];
  const retry = outcome.kind === "retry" && delay !== undefined;
  await db
    .update(pushMessages)
    .set({
      status: retry ? "queued" : "failed",
      attempts,
      lastStatus: outcome.status,
      error: outcome.error,
      lockedUntil: null,
      nextAttemptAt: retry ? new Date(now.getTime() + delay * 1000) : message.nextAttemptAt,
    })
    .where(eq(pushMessages.id, message.id));
}

/**
 * Sends due push messages (at most `limit`, default 100; four at a time).
 * @returns counts of sent, retrying and failed messages and of subscriptions deleted (404/410)
 * @throws the database's errors only
 */
export async function sendQueuedPushes(
  options: { limit?: number; now?: Date } = {},
): Promise<PushSendResult> {
  const result: PushSendResult = {
    pushes_sent: 0,
    pushes_retrying: 0,
    pushes_failed: 0,
    subscriptions_gone: 0,
  };
  const db = await getDb();
  const now = options.now ?? new Date();
  const claimed = await claimDue(db, now, options.limit ?? 100);
  if (claimed.length === 0) return result;
  const config = getConfig();
  let vapid: VapidDetails | null = null;
  let keyError = "push notifications are off (no VAPID keys in the production profile)";
  try {
    vapid = await vapidDetails(config);
  } catch (error) {
    keyError = `VAPID keys unavailable: ${error instanceof Error ? error.message : String(error)}`;
  }
  const queue = [...claimed];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const urgency = c.message.kind === "review_waiting" ? "normal" : "high";
      const outcome: PushOutcome = vapid
        ? await attemptPush(c, c.message.payload, vapid, config, urgency)
        : { kind: "failed", status: null, error: keyError };
      await record(db, c, outcome, new Date());
      if (outcome.kind === "sent") result.pushes_sent++;
      else if (outcome.kind === "gone") result.subscriptions_gone++;
      else if (outcome.kind === "retry" && PUSH_RETRY_DELAYS_SECONDS[c.message.attempts] !== undefined)
        result.pushes_retrying++;
      else result.pushes_failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, claimed.length) }, worker));
  return result;
}

/**
 * Deletes sent and failed messages older than PUSH_RETENTION_DAYS and the subscriptions of
 * sessions that expired or were revoked (they are never sent to again).
 * @returns how many rows were deleted
 */
export async function purgePushes(now = new Date()): Promise<number> {
  const db = await getDb();
  const old = await db
    .delete(pushMessages)
    .where(
      and(
        inArray(pushMessages.status, ["sent", "failed"]),
        lt(pushMessages.createdAt, new Date(now.getTime() - PUSH_RETENTION_DAYS * 86_400_000)),
      ),
    )
    .returning({ id: pushMessages.id });
  const ended = db
    .select({ id: staffSessions.id })
    .from(staffSessions)
    .where(or(lt(staffSessions.expiresAt, now), lt(staffSessions.revokedAt, now)));
  const subs = await db
    .delete(pushSubscriptions)
    .where(inArray(pushSubscriptions.sessionId, ended))
    .returning({ id: pushSubscriptions.id });
  return old.length + subs.length;
}

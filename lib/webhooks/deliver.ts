/**
 * The delivery worker: sends due `deliveries` (registered webhooks, signed; per-task
 * callbacks, unsigned) and applies the retry policy (contract.md "Webhook deliveries";
 * interface-spec.md "Delivery, retry and dead-letter queue").
 *
 * - Claim: due rows (`pending` and `next_attempt_at <= now`, or `delivering` whose lease
 *   `locked_until` has passed: the worker that held it died) are taken with
 *   `FOR UPDATE SKIP LOCKED` and leased for `LEASE_SECONDS`. A process killed mid-delivery
 *   therefore loses nothing: the row is taken again once its lease lapses (at-least-once;
 *   receivers de-duplicate on `event_id` / `X-Service-Delivery`).
 * - Send: `safeFetch` (address re-checked at connect time, redirects not followed, bounded
 *   by WEBHOOK_TIMEOUT_MS ≤ 10 s), at most WEBHOOK_CONCURRENCY at once, so a slow, dead or
 *   redirecting receiver holds one slot for at most the timeout and never blocks the rest.
 *   Any 2xx is delivered; anything else (3xx included), a timeout or a refused address fails.
 * - Retry: first attempt right away, then after each of WEBHOOK_RETRY_DELAYS_SECONDS
 *   (30 s, 5 min, 30 min): 4 attempts in all. The spec's "3 attempts" is read as the three
 *   retries the schedule names. Due retries are run by the every-minute cron, so a 30 s
 *   delay is served 30-90 s later.
 * - Dead letter: after the last attempt the row becomes `dead`, kept until `expires_at`
 *   (DEAD_LETTER_RETENTION_HOURS, 72 h), and a `webhook-fallback` e-mail to the task's
 *   requester_contact (billing events: the key's contact) is queued in the same
 *   transaction (none for sandbox tasks); `fallback_email_sent` turns true when it is sent.
 * Every attempt's time is appended to `attempted_at`, with `last_http_status`.
 */
import { and, asc, eq, inArray, lt, lte, or, sql } from "drizzle-orm";
import { type Config, getConfig, publicBaseUrl } from "../config.js";
import { getDb, type Tx } from "../db/client.js";
import { apiKeys, type Delivery, deliveries, emails, tasks, webhooks } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { commonValues } from "../mail/compose-task-email.js";
import { formatDateTime } from "../mail/format.js";
import { renderTemplate } from "../mail/templates.js";
import { safeFetch } from "../net/safe-fetch.js";
import { serializeBody } from "./payloads.js";
import { decryptSecret } from "./secret-box.js";
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
} from "./signature.js";

/** Lease of a claimed delivery, seconds (well above the 10 s bound of one attempt). */
export const LEASE_SECONDS = 60;

/** User-Agent of deliveries. */
export const DELIVERY_USER_AGENT = "PhysicalTaskService-Webhooks/4.0";

/** Counts of one worker run. */
export interface DeliverResult {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
  cancelled: number;
}

/** Outcome of one HTTP attempt. */
interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** Claims up to `limit` due deliveries and leases them (status `delivering`, `locked_until` = now + lease). */
export async function claimDueDeliveries(limit: number, now: Date): Promise<Delivery[]> {
  const db = await getDb();
  const lease = new Date(now.getTime() + LEASE_SECONDS * 1000);
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(
        or(
          and(eq(deliveries.status, "pending"), lte(deliveries.nextAttemptAt, now)),
          and(eq(deliveries.status, "delivering"), lt(deliveries.lockedUntil, now)),
        ),
      )
      .orderBy(asc(deliveries.nextAttemptAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(deliveries)
      .set({ status: "delivering", lockedUntil: lease })
      .where(
        inArray(
          deliveries.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
}

/** Sends one delivery once; never throws. */
export async function attemptDelivery(
  delivery: Pick<Delivery, "kind" | "url" | "payload" | "eventId" | "event">,
  secret: string | null,
  config: Config = getConfig(),
): Promise<AttemptOutcome> {
  const rawBody = serializeBody(delivery.kind, delivery.payload);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": DELIVERY_USER_AGENT,
    [EVENT_HEADER]: delivery.event,
    [DELIVERY_HEADER]: delivery.eventId,
  };
  if (secret !== null) {
    const timestamp = Math.floor(Date.now() / 1000);
    headers[TIMESTAMP_HEADER] = String(timestamp);
    headers[SIGNATURE_HEADER] = signatureHeader(secret, timestamp, rawBody);
  }
  try {
    const res = await safeFetch(delivery.url, {
      method: "POST",
      headers,
      body: rawBody,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.ALLOW_PRIVATE_CALLBACKS,
    });
    await res.body?.cancel().catch(() => {});
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      status: res.status,
      error: ok
        ? null
        : res.status >= 300 && res.status < 400
          ? `HTTP ${res.status} redirect not followed${res.headers.get("location") ? ` (to ${res.headers.get("location")})` : ""}`
          : `HTTP ${res.status}`,
    };
  } catch (error) {
    const message =
      error instanceof DOMException && error.name === "TimeoutError"
        ? `timed out after ${config.WEBHOOK_TIMEOUT_MS} ms`
        : error instanceof Error
          ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}`
          : String(error);
    return { ok: false, status: null, error: message.slice(0, 500) };
  }
}

/** Queues the dead-letter fallback e-mail of `delivery` (same transaction as its death). */
async function queueFallbackEmail(
  tx: Tx,
  delivery: Delivery,
  expiresAt: Date,
  attempts: number,
): Promise<void> {
  const [task] = delivery.taskId ? await tx.select().from(tasks).where(eq(tasks.id, delivery.taskId)) : [];
  if (task?.sandbox) return;
  let to = task?.requesterContact;
  if (!to && delivery.webhookId) {
    const [owner] = await tx
      .select({ contact: apiKeys.contact })
      .from(webhooks)
      .innerJoin(apiKeys, eq(apiKeys.id, webhooks.apiKeyId))
      .where(eq(webhooks.id, delivery.webhookId));
    to = owner?.contact;
  }
  if (!to) return;
  const lang = task?.lang ?? "en";
  const url = new URL(delivery.url);
  const data = (delivery.payload.data ?? delivery.payload) as Record<string, unknown>;
  const { subject, text } = renderTemplate("webhook-fallback", lang, {
    ...(task
      ? commonValues(task)
      : { operator_name: getConfig().OPERATOR_NAME, contact_email: getConfig().CONTACT_EMAIL }),
    event: delivery.event,
    event_id: delivery.eventId,
    destination: `${url.origin}${url.pathname}`,
    attempts,
    last_status: delivery.lastHttpStatus ?? (lang === "fr" ? "aucune réponse" : "no response"),
    status: typeof data.status === "string" ? data.status : "",
    expires_at: formatDateTime(expiresAt, lang),
    failures_url: delivery.webhookId
      ? `${publicBaseUrl()}/api/webhooks/${encodeURIComponent(delivery.webhookId)}/failures`
      : "",
    payload: JSON.stringify(delivery.payload, null, 2),
  });
  await tx
    .insert(emails)
    .values({
      id: prefixedId("email"),
      toAddress: to,
      subject,
      textBody: text,
      template: "webhook-fallback",
      lang,
      taskId: task?.id ?? null,
      dedupeKey: `webhook-fallback:${delivery.id}`,
    })
    .onConflictDoNothing();
}

/** Records the outcome of one attempt under the lease it was made with. */
async function recordOutcome(
  delivery: Delivery,
  outcome: AttemptOutcome,
  attemptedAt: Date,
  config: Config,
): Promise<"delivered" | "retrying" | "dead" | "lost"> {
  const db = await getDb();
  const attempts = delivery.attempts + 1;
  const appendAttempt = sql`array_append(${deliveries.attemptedAt}, ${attemptedAt.toISOString()}::timestamptz)`;
  const sameLease = and(
    eq(deliveries.id, delivery.id),
    eq(deliveries.status, "delivering"),
    eq(deliveries.lockedUntil, delivery.lockedUntil!),
  );
  return db.transaction(async (tx) => {
    if (outcome.ok) {
      const rows = await tx
        .update(deliveries)
        .set({
          status: "delivered",
          attempts,
          attemptedAt: appendAttempt,
          lastHttpStatus: outcome.status,
          lastError: null,
          deliveredAt: new Date(),
          lockedUntil: null,
        })
        .where(sameLease)
        .returning({ id: deliveries.id });
      return rows.length ? "delivered" : "lost";
    }
    const delays = config.WEBHOOK_RETRY_DELAYS_SECONDS;
    const delay = delays[attempts - 1];
    if (delay !== undefined) {
      const rows = await tx
        .update(deliveries)
        .set({
          status: "pending",
          attempts,
          attemptedAt: appendAttempt,
          lastHttpStatus: outcome.status,
          lastError: outcome.error,
          nextAttemptAt: new Date(attemptedAt.getTime() + delay * 1000),
          lockedUntil: null,
        })
        .where(sameLease)
        .returning({ id: deliveries.id });
      return rows.length ? "retrying" : "lost";
    }
    const deadAt = new Date();
    const expiresAt = new Date(deadAt.getTime() + config.DEAD_LETTER_RETENTION_HOURS * 3600_000);
    const rows = await tx
      .update(deliveries)
      .set({
        status: "dead",
        attempts,
        attemptedAt: appendAttempt,
        lastHttpStatus: outcome.status,
        lastError: outcome.error,
        deadAt,
        expiresAt,
        lockedUntil: null,
      })
      .where(sameLease)
      .returning();
    if (!rows[0]) return "lost";
    await queueFallbackEmail(tx, rows[0], expiresAt, attempts);
    return "dead";
  });
}

/**
 * Claims and sends due deliveries, at most `limit` (default 200) per call.
 * Never throws for a receiver's failure; database errors propagate.
 */
export async function deliverDue(options: { limit?: number; now?: Date } = {}): Promise<DeliverResult> {
  const config = getConfig();
  const claimed = await claimDueDeliveries(options.limit ?? 200, options.now ?? new Date());
  const result: DeliverResult = { claimed: claimed.length, delivered: 0, retrying: 0, dead: 0, cancelled: 0 };
  if (claimed.length === 0) return result;
  const db = await getDb();
  const hookIds = [...new Set(claimed.flatMap((d) => (d.webhookId ? [d.webhookId] : [])))];
  const hooks = hookIds.length ? await db.select().from(webhooks).where(inArray(webhooks.id, hookIds)) : [];
  const hookById = new Map(hooks.map((h) => [h.id, h]));
  const queue = [...claimed];
  const worker = async () => {
    for (let d = queue.shift(); d; d = queue.shift()) {
      let secret: string | null = null;
      if (d.kind === "webhook") {
        const hook = d.webhookId ? hookById.get(d.webhookId) : undefined;
        if (!hook || hook.deletedAt) {
          await db
            .update(deliveries)
            .set({ status: "cancelled", lockedUntil: null, lastError: "webhook deleted" })
            .where(eq(deliveries.id, d.id));
          result.cancelled++;
          continue;
        }
        secret = decryptSecret(hook.secretCiphertext, hook.id);
      }
      const attemptedAt = new Date();
      const outcome = await attemptDelivery(d, secret, config);
      const state = await recordOutcome(d, outcome, attemptedAt, config);
      if (state !== "lost") result[state]++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.WEBHOOK_CONCURRENCY, claimed.length) }, worker));
  return result;
}

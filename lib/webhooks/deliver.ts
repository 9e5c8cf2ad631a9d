/**
 * The delivery worker: sends due `deliveries` (registered webhooks, signed; per-task
 * callbacks, unsigned) and applies the retry policy (docs/api-conventions.md "Webhook deliveries";
 * docs/api-conventions.md "Delivery, retry and dead-letter queue").
 *
 * - Fairness (issue 20 item 4, issue 25 item 10): deliveries are claimed just in time, only as
 *   many as there are free sending slots (WEBHOOK_CONCURRENCY per worker), at most
 *   WEBHOOK_ENDPOINT_CONCURRENCY in flight per registered endpoint (a webhook; the callbacks of
 *   one task owner) and WEBHOOK_HOST_CONCURRENCY per host, endpoints taking turns
 *   (claim-deliveries.ts). A slot is refilled as soon as its attempt ends (`DeliveryPump`),
 *   never after a whole batch. An endpoint whose recent attempts all failed has its circuit
 *   open for a while (breaker.ts, one state for every instance): its due deliveries are then
 *   not claimed by any worker, so a dead receiver stops taking slots; they stay due, their
 *   attempts uncounted, and nothing else on its host is affected.
 * - Claim: each due row is leased for `leaseMs()` (WEBHOOK_TIMEOUT_MS + 2 × DB_QUERY_TIMEOUT_MS
 *   + 30 s) right before it is sent, so no attempt runs under a lapsed lease and every attempt
 *   is recorded. A process killed mid-delivery loses nothing: the row is taken again once its
 *   lease lapses (at-least-once; receivers de-duplicate on `event_id` / `X-Service-Delivery`).
 * - Send: `safeFetch` (address re-checked at connect time, redirects not followed, bounded
 *   by WEBHOOK_TIMEOUT_MS ≤ 10 s). Any 2xx is delivered; anything else (3xx included), a
 *   timeout or a refused address fails.
 * - Retry: first attempt right away, then after each of WEBHOOK_RETRY_DELAYS_SECONDS
 *   (30 s, 5 min, 30 min): 4 attempts in all. The spec's "3 attempts" is read as the three
 *   retries the schedule names. Due retries are run by the every-minute cron, so a 30 s
 *   delay is served 30-90 s later.
 * - Dead letter: after the last attempt the row becomes `dead`, kept until `expires_at`
 *   (DEAD_LETTER_RETENTION_HOURS, 72 h), and a `webhook-fallback` e-mail is queued in the same
 *   transaction (record-outcome.ts); `fallback_email_sent` turns true when it is sent.
 */
import { eq } from "drizzle-orm";
import { type Config, getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { type Delivery, deliveries, webhooks } from "../db/schema/index.js";
import { safeFetch } from "../net/safe-fetch.js";
import { admitEndpoints, openedSince, recordBreaker } from "./breaker.js";
import { type ClaimedDelivery, claimDueDeliveries, unclaimDeliveries } from "./claim-deliveries.js";
import { serializeBody } from "./payloads.js";
import { type AttemptOutcome, recordOutcome } from "./record-outcome.js";
import { decryptSecret } from "./secret-box.js";
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
} from "./signature.js";

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

/**
 * Sends deliveries as slots free up: `fill()` claims as many due deliveries as there are
 * free slots (WEBHOOK_CONCURRENCY minus those in flight) and starts them without waiting;
 * `next()` resolves when any attempt ends, `drain()` when all have. Each attempt is bounded
 * by WEBHOOK_TIMEOUT_MS and recorded under its own lease. Never throws for a receiver's
 * failure; a database error while recording is logged (the lease lapses and the delivery
 * is taken again).
 */
export class DeliveryPump {
  /** Counts so far. */
  readonly result: DeliverResult = { claimed: 0, delivered: 0, retrying: 0, dead: 0, cancelled: 0 };
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly config: Config = getConfig()) {}

  /** Attempts in flight. */
  get busy(): number {
    return this.inFlight.size;
  }

  /**
   * Claims and starts as many due deliveries as there are free slots (and at most `max`),
   * leaving out the endpoints whose circuit is open, and claiming one delivery of a half-open
   * endpoint whose probe this worker took (breaker.ts, shared by every instance).
   * @returns how many were started. Database errors of the claim propagate.
   */
  async fill(now: Date = new Date(), max = Number.POSITIVE_INFINITY): Promise<number> {
    const free = Math.min(max, this.config.WEBHOOK_CONCURRENCY - this.inFlight.size);
    if (free <= 0) return 0;
    const admission = await admitEndpoints(this.config, now.getTime());
    let claimed: ClaimedDelivery[] = [];
    try {
      claimed = await claimDueDeliveries(free, now, this.config, {
        skipEndpoints: admission.skip,
        probeEndpoints: admission.probe,
      });
    } finally {
      await admission.release(new Set(claimed.map((d) => d.endpoint)));
    }
    // A circuit opened by another worker between the admission and the claim: those deliveries
    // go back unattempted and uncounted, so none is sent while it is open.
    const opened = new Set(
      await openedSince([...new Set(claimed.map((d) => d.endpoint))], this.config, now.getTime()),
    );
    if (opened.size) {
      await unclaimDeliveries(claimed.filter((d) => opened.has(d.endpoint)));
      claimed = claimed.filter((d) => !opened.has(d.endpoint));
    }
    this.result.claimed += claimed.length;
    for (const delivery of claimed) {
      const run: Promise<void> = this.send(delivery)
        .catch((error: unknown) => {
          console.error(`[webhooks] delivery ${delivery.id}: not recorded (its lease will lapse):`, error);
        })
        .finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
    return claimed.length;
  }

  /** Resolves when any attempt in flight ends (at once when none is). */
  async next(): Promise<void> {
    if (this.inFlight.size) await Promise.race(this.inFlight);
  }

  /** Resolves when every attempt in flight has ended. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.race(this.inFlight);
  }

  private async send(d: ClaimedDelivery): Promise<void> {
    const db = await getDb();
    let secret: string | null = null;
    if (d.kind === "webhook") {
      const [hook] = d.webhookId ? await db.select().from(webhooks).where(eq(webhooks.id, d.webhookId)) : [];
      if (!hook || hook.deletedAt) {
        await db
          .update(deliveries)
          .set({ status: "cancelled", lockedUntil: null, lastError: "webhook deleted" })
          .where(eq(deliveries.id, d.id));
        this.result.cancelled++;
        return;
      }
      secret = decryptSecret(hook.secretCiphertext, hook.id);
    }
    const attemptedAt = new Date();
    const outcome = await attemptDelivery(d, secret, this.config);
    await recordBreaker(d.endpoint, outcome.ok, this.config);
    const state = await recordOutcome(d, outcome, attemptedAt, this.config);
    if (state !== "lost") this.result[state]++;
  }
}

/**
 * Claims and sends due deliveries, refilling each slot as soon as its attempt ends, until
 * nothing more is due (or `budgetMs`, default 40 000, has passed; attempts already started
 * are then awaited). `limit` caps how many are claimed in all.
 * Never throws for a receiver's failure; database errors of the claim propagate.
 */
export async function deliverDue(
  options: { limit?: number; now?: Date; budgetMs?: number } = {},
): Promise<DeliverResult> {
  const pump = new DeliveryPump(getConfig());
  const deadline = Date.now() + (options.budgetMs ?? 40_000);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  try {
    for (;;) {
      // Nothing in flight before this claim: if it claims nothing, nothing is due.
      const quietBefore = pump.busy === 0;
      const started = await pump.fill(options.now ?? new Date(), limit - pump.result.claimed);
      if ((started === 0 && quietBefore) || Date.now() > deadline) break;
      await pump.next();
    }
  } finally {
    await pump.drain();
  }
  return pump.result;
}

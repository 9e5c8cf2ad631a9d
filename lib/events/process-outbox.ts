/**
 * One pass over the notification outbox: dispatch undispatched events into deliveries,
 * e-mails and staff push messages, send due deliveries, queued e-mails and push messages
 * (lib/push/send-pushes.ts), and (cron only) purge expired dead letters and old pushes. Run right after a commit by `kickOutbox` and every minute by
 * `api/cron/deliver-webhooks.ts`.
 *
 * Deliveries go through one `DeliveryPump` for the whole pass: the pass never waits for a
 * batch of attempts to end before dispatching new events. While attempts are in flight it
 * wakes when one ends (its slot is refilled), when `kickOutbox` signals a new commit, or
 * every `TICK_MS`, and dispatches and claims again; so a healthy receiver's event is sent
 * while another receiver's requests hang (issue 20 item 4).
 */
import { and, eq, inArray, lt } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { deliveries } from "../db/schema/index.js";
import { sendQueuedEmails } from "../mail/send-queued-emails.js";
import { purgePushes, sendQueuedPushes } from "../push/send-pushes.js";
import { DeliveryPump } from "../webhooks/deliver.js";
import { dispatchEvents } from "./dispatch-events.js";
import { outboxKicked } from "./kick-signal.js";

/** Longest sleep of a pass while attempts are in flight and nothing else happens, ms. */
const TICK_MS = 250;

/** Delivered and cancelled deliveries are kept this long for support, then purged, days. */
export const DELIVERED_RETENTION_DAYS = 7;

/** Counts of one pass. */
export interface OutboxResult {
  dispatched_events: number;
  deliveries_created: number;
  emails_queued: number;
  delivered: number;
  retrying: number;
  dead: number;
  cancelled: number;
  emails_sent: number;
  emails_failed: number;
  pushes_queued: number;
  pushes_sent: number;
  pushes_failed: number;
  subscriptions_gone: number;
  purged: number;
}

/**
 * Runs the outbox until nothing is due or `budgetMs` (default 40 000) has passed.
 * @param options.purge delete dead letters past `expires_at` and old delivered rows (cron).
 */
export async function processOutbox(
  options: { budgetMs?: number; purge?: boolean } = {},
): Promise<OutboxResult> {
  const deadline = Date.now() + (options.budgetMs ?? 40_000);
  const r: OutboxResult = {
    dispatched_events: 0,
    deliveries_created: 0,
    emails_queued: 0,
    delivered: 0,
    retrying: 0,
    dead: 0,
    cancelled: 0,
    emails_sent: 0,
    emails_failed: 0,
    pushes_queued: 0,
    pushes_sent: 0,
    pushes_failed: 0,
    subscriptions_gone: 0,
    purged: 0,
  };
  const pump = new DeliveryPump(getConfig());
  try {
    for (;;) {
      const d = await dispatchEvents();
      r.dispatched_events += d.events;
      r.deliveries_created += d.deliveries;
      r.emails_queued += d.emails;
      r.pushes_queued += d.pushes;
      // Nothing in flight before this claim: if it claims nothing, nothing is due.
      const quietBefore = pump.busy === 0;
      const started = await pump.fill();
      const m = await sendQueuedEmails();
      r.emails_sent += m.sent;
      r.emails_failed += m.failed;
      const p = await sendQueuedPushes();
      r.pushes_sent += p.pushes_sent;
      r.pushes_failed += p.pushes_failed;
      r.subscriptions_gone += p.subscriptions_gone;
      const pushed = p.pushes_sent + p.pushes_retrying + p.pushes_failed + p.subscriptions_gone;
      if (Date.now() > deadline) break;
      const idle = d.events === 0 && started === 0 && m.sent + m.failed === 0 && pushed === 0;
      if (idle && quietBefore) break;
      if (idle) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          pump.next(),
          outboxKicked(),
          new Promise((resolve) => {
            timer = setTimeout(resolve, TICK_MS);
          }),
        ]);
        clearTimeout(timer);
      }
    }
  } finally {
    await pump.drain();
    r.delivered += pump.result.delivered;
    r.retrying += pump.result.retrying;
    r.dead += pump.result.dead;
    r.cancelled += pump.result.cancelled;
  }
  if (options.purge) r.purged = (await purgeDeliveries()) + (await purgePushes());
  return r;
}

/** Deletes dead letters past `expires_at` and delivered/cancelled rows older than 7 days. */
export async function purgeDeliveries(now = new Date()): Promise<number> {
  const db = await getDb();
  const dead = await db
    .delete(deliveries)
    .where(and(eq(deliveries.status, "dead"), lt(deliveries.expiresAt, now)))
    .returning({ id: deliveries.id });
  const old = await db
    .delete(deliveries)
    .where(
      and(
        inArray(deliveries.status, ["delivered", "cancelled"]),
        lt(deliveries.createdAt, new Date(now.getTime() - DELIVERED_RETENTION_DAYS * 86_400_000)),
      ),
    )
    .returning({ id: deliveries.id });
  return dead.length + old.length;
}

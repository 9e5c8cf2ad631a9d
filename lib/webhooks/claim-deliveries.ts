/**
 * Claiming due deliveries for the delivery worker (deliver.ts), fairly:
 *
 * - Deliveries are claimed just in time, only as many as there are free sending slots, and at
 *   most WEBHOOK_DESTINATION_CONCURRENCY in flight per destination (scheme://host[:port] of the
 *   URL) across every worker; the claim takes each destination's oldest due deliveries first,
 *   round-robin, so a destination with a long backlog never crowds out another (issue 20 item 4).
 * - Due rows (`pending` and `next_attempt_at` at or before `now`'s millisecond, or `delivering` whose lease
 *   `locked_until` has passed: the worker that held it died) are taken with
 *   `FOR UPDATE SKIP LOCKED`, each leased for `leaseMs()` right before it is sent, so the lease
 *   always outlives the attempt and its recording (at-least-once delivery).
 */
import { inArray, sql } from "drizzle-orm";
import { type Config, getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { type Delivery, deliveries } from "../db/schema/index.js";

/**
 * Lease of one claimed delivery, ms: the attempt's bound (WEBHOOK_TIMEOUT_MS), two database
 * waits to record it (DB_QUERY_TIMEOUT_MS each) and 30 s to spare. The delivery is sent at
 * once after its claim, so the lease outlives the attempt and its recording.
 */
export function leaseMs(config: Config = getConfig()): number {
  return config.WEBHOOK_TIMEOUT_MS + 2 * config.DB_QUERY_TIMEOUT_MS + 30_000;
}

/**
 * The destination of a delivery URL, the unit of fairness and of the circuit breaker:
 * `scheme://host[:port]` in lower case, as the claim's SQL computes it.
 */
export function destinationOf(url: string): string {
  return (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]+/.exec(url)?.[0] ?? url).toLowerCase();
}

/** The same as `destinationOf`, in SQL, for the claim. */
const destinationSql = sql`lower(substring(${deliveries.url} from '^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+'))`;

/** Advisory-lock key serialising claims, so that per-destination caps hold across workers. */
const CLAIM_LOCK_KEY = 420_004;

/**
 * Claims up to `limit` due deliveries and leases each (status `delivering`, `locked_until` =
 * now + `leaseMs()`), taking at most WEBHOOK_DESTINATION_CONCURRENCY minus what is already in
 * flight per destination, each destination's oldest first, round-robin across destinations.
 * Claims are serialised by a transaction-scoped advisory lock so the cap holds across workers.
 * @returns the claimed rows (as updated).
 */
export async function claimDueDeliveries(
  limit: number,
  now: Date,
  config: Config = getConfig(),
): Promise<Delivery[]> {
  if (limit <= 0) return [];
  const db = await getDb();
  const lease = new Date(now.getTime() + leaseMs(config));
  const cap = config.WEBHOOK_DESTINATION_CONCURRENCY;
  const at = now.toISOString();
  // `now` counts to the end of its millisecond: a delivery queued with the column default (the
  // database's now(), microseconds) earlier in that millisecond is due.
  const dueBefore = new Date(now.getTime() + 1).toISOString();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`);
    const due = sql`((${deliveries.status} = 'pending' and ${deliveries.nextAttemptAt} < ${dueBefore}::timestamptz)
      or (${deliveries.status} = 'delivering' and ${deliveries.lockedUntil} < ${at}::timestamptz))`;
    const picked = await tx.execute(sql`
      select ${deliveries.id} as id from ${deliveries}
      where ${deliveries.id} in (
        select r.id from (
          select ${deliveries.id} as id, ${deliveries.nextAttemptAt} as next_at, ${destinationSql} as dest,
            row_number() over (partition by ${destinationSql} order by ${deliveries.nextAttemptAt}, ${deliveries.id}) as rn
          from ${deliveries} where ${due}
        ) r
        left join (
          select ${destinationSql} as dest, count(*) as n from ${deliveries}
          where ${deliveries.status} = 'delivering' and ${deliveries.lockedUntil} >= ${at}::timestamptz
          group by 1
        ) f on f.dest = r.dest
        where r.rn + coalesce(f.n, 0) <= ${cap}
        order by r.rn, r.next_at
        limit ${limit}
      ) and ${due}
      for update skip locked`);
    const ids = ((picked as unknown as { rows?: { id: string }[] }).rows ?? []).map((r) => r.id);
    if (ids.length === 0) return [];
    return tx
      .update(deliveries)
      .set({ status: "delivering", lockedUntil: lease })
      .where(inArray(deliveries.id, ids))
      .returning();
  });
}

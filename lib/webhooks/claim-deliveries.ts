/**
 * Claiming due deliveries for the delivery worker (deliver.ts), fairly (issue 20 item 4,
 * issue 25 item 10):
 *
 * - Deliveries are claimed just in time, only as many as there are free sending slots. The
 *   unit of fairness is the registered endpoint (a webhook; the per-task callbacks of one task
 *   owner), never the host: at most WEBHOOK_ENDPOINT_CONCURRENCY in flight per endpoint and,
 *   for politeness, at most WEBHOOK_HOST_CONCURRENCY per host (scheme://host[:port] of the URL,
 *   all its endpoints together; at least twice the endpoint cap, so no endpoint takes its host's
 *   slots), across every worker. Endpoints take turns (round-robin, each one's oldest first), so
 *   a backlog or a dead endpoint never crowds out another endpoint, on its host or elsewhere.
 * - Due rows (`pending` and `next_attempt_at` at or before `now`'s millisecond, or `delivering` whose lease
 *   `locked_until` has passed: the worker that held it died) are taken with
 *   `FOR UPDATE SKIP LOCKED`, each leased for `leaseMs()` right before it is sent, so the lease
 *   always outlives the attempt and its recording (at-least-once delivery).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { type Config, getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { rowsOf } from "../db/rows.js";
import { type Delivery, deliveries, tasks } from "../db/schema/index.js";

/**
 * Lease of one claimed delivery, ms: the attempt's bound (WEBHOOK_TIMEOUT_MS), two database
 * waits to record it (DB_QUERY_TIMEOUT_MS each) and 30 s to spare. The delivery is sent at
 * once after its claim, so the lease outlives the attempt and its recording.
 */
export function leaseMs(config: Config = getConfig()): number {
  return config.WEBHOOK_TIMEOUT_MS + 2 * config.DB_QUERY_TIMEOUT_MS + 30_000;
}

/**
 * The host of a delivery URL, the unit of the politeness cap: `scheme://host[:port]` in lower
 * case (SQL, for the claim).
 */
const hostSql = sql`lower(substring(${deliveries.url} from '^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+'))`;

/**
 * The registered endpoint of a delivery, the unit of fairness and of the circuit breaker
 * (issue 25 item 10; SQL, for the claim): a webhook's id; for a per-task callback its task
 * owner, `key:<api_key_id>` (the submitting key), else `task:<task_id>` (a task without a key:
 * its access-token holder); a callback whose task is gone: `dlv:<id>`, on its own.
 */
const endpointSql = sql`coalesce(${deliveries.webhookId},
  'key:' || (select ${tasks.apiKeyId} from ${tasks} where ${tasks.id} = ${deliveries.taskId}),
  'task:' || ${deliveries.taskId}, 'dlv:' || ${deliveries.id})`;

/** Advisory-lock key serialising claims, so that the endpoint and host caps hold across workers. */
const CLAIM_LOCK_KEY = 420_004;

/** A claimed delivery, with its endpoint key (the breaker's unit, `endpointSql`). */
export type ClaimedDelivery = Delivery & { endpoint: string };

/**
 * Claims up to `limit` due deliveries and leases each (status `delivering`, `locked_until` =
 * now + `leaseMs()`). Per endpoint at most WEBHOOK_ENDPOINT_CONCURRENCY in flight and per host
 * at most WEBHOOK_HOST_CONCURRENCY, counting what is already in flight (`delivering` under a
 * live lease, every worker); endpoints take turns (round-robin by their next free slot, each
 * endpoint's oldest first), so neither a backlog nor a dead endpoint delays another endpoint,
 * on its host or elsewhere. Claims are serialised by a transaction-scoped advisory lock so the
 * caps hold across workers.
 * @param options.skipEndpoints endpoints not to claim now (their circuit is open, breaker.ts):
 *   their deliveries stay due and unattempted
 * @param options.probeEndpoints half-open endpoints this worker probes (breaker.ts): at most one
 *   delivery of each in flight, across every worker
 * @returns the claimed rows (as updated) with their endpoint keys
 * @throws the database's errors (nothing is claimed then)
 */
export async function claimDueDeliveries(
  limit: number,
  now: Date,
  config: Config = getConfig(),
  options: { skipEndpoints?: readonly string[]; probeEndpoints?: readonly string[] } = {},
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const db = await getDb();
  const lease = new Date(now.getTime() + leaseMs(config));
  const endpointCap = config.WEBHOOK_ENDPOINT_CONCURRENCY;
  const hostCap = config.WEBHOOK_HOST_CONCURRENCY;
  const at = now.toISOString();
  // `now` counts to the end of its millisecond: a delivery queued with the column default (the
  // database's now(), microseconds) earlier in that millisecond is due.
  const dueBefore = new Date(now.getTime() + 1).toISOString();
  const skip = options.skipEndpoints ?? [];
  const probe = options.probeEndpoints ?? [];
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`);
    const due = sql`((${deliveries.status} = 'pending' and ${deliveries.nextAttemptAt} < ${dueBefore}::timestamptz)
      or (${deliveries.status} = 'delivering' and ${deliveries.lockedUntil} < ${at}::timestamptz))`;
    const inFlight = sql`${deliveries.status} = 'delivering' and ${deliveries.lockedUntil} >= ${at}::timestamptz`;
    const notSkipped = skip.length
      ? sql`and ${endpointSql} not in (${sql.join(
          skip.map((e) => sql`${e}`),
          sql`, `,
        )})`
      : sql``;
    // A probed endpoint's cap is 1: one attempt tells whether its receiver is back.
    const capOf = probe.length
      ? sql`case when d.endpoint in (${sql.join(
          probe.map((e) => sql`${e}`),
          sql`, `,
        )}) then 1 else ${endpointCap} end`
      : sql`${endpointCap}`;
    // r: due rows numbered per endpoint (oldest first); e: those within their endpoint's cap,
    // `turn` = the endpoint slot they would take, numbered per host in turn order; then the
    // host's cap, and the turns across endpoints (round-robin).
    const picked = await tx.execute(sql`
      select ${deliveries.id} as id, ${endpointSql} as endpoint from ${deliveries}
      where ${deliveries.id} in (
        select e.id from (
          select r.id, r.next_at, r.host, r.turn,
            row_number() over (partition by r.host order by r.turn, r.next_at, r.id) as host_rn
          from (
            select d.id, d.next_at, d.host, d.rn + coalesce(fe.n, 0) as turn from (
              select ${deliveries.id} as id, ${deliveries.nextAttemptAt} as next_at,
                ${hostSql} as host, ${endpointSql} as endpoint,
                row_number() over (partition by ${endpointSql} order by ${deliveries.nextAttemptAt}, ${deliveries.id}) as rn
              from ${deliveries} where ${due} ${notSkipped}
            ) d
            left join (
              select ${endpointSql} as endpoint, count(*) as n from ${deliveries} where ${inFlight} group by 1
            ) fe on fe.endpoint = d.endpoint
            where d.rn + coalesce(fe.n, 0) <= ${capOf}
          ) r
        ) e
        left join (
          select ${hostSql} as host, count(*) as n from ${deliveries} where ${inFlight} group by 1
        ) fh on fh.host = e.host
        where e.host_rn + coalesce(fh.n, 0) <= ${hostCap}
        order by e.turn, e.next_at, e.id
        limit ${limit}
      ) and ${due}
      for update skip locked`);
    const rows = rowsOf<{ id: string; endpoint: string }>(picked);
    if (rows.length === 0) return [];
    const endpointOf = new Map(rows.map((r) => [r.id, r.endpoint]));
    const updated = await tx
      .update(deliveries)
      .set({ status: "delivering", lockedUntil: lease })
      .where(
        inArray(
          deliveries.id,
          rows.map((r) => r.id),
        ),
      )
      .returning();
    return updated.map((d) => ({ ...d, endpoint: endpointOf.get(d.id) ?? d.id }));
  });
}

/**
 * Gives claimed deliveries back unattempted (their endpoint's circuit opened meanwhile,
 * breaker.ts `openedSince`): `pending` again, still due, nothing recorded or counted. A row whose
 * lease changed meanwhile is left alone.
 * @param claimed rows as `claimDueDeliveries` returned them (their lease identifies the claim)
 * @throws the database's errors (the leases then lapse and the rows are taken again)
 */
export async function unclaimDeliveries(claimed: readonly Delivery[]): Promise<void> {
  if (claimed.length === 0) return;
  const db = await getDb();
  for (const d of claimed) {
    await db
      .update(deliveries)
      .set({ status: "pending", lockedUntil: null })
      .where(
        and(
          eq(deliveries.id, d.id),
          eq(deliveries.status, "delivering"),
          eq(deliveries.lockedUntil, d.lockedUntil!),
        ),
      );
  }
}

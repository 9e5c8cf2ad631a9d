/**
 * Retention of activity logs and proof files (docs/privacy.md "Retention"): rows older than
 * ACTIVITY_LOG_RETENTION_DAYS / PROOF_FILE_RETENTION_DAYS (0 = kept) are deleted by the
 * privacy-retention job, with one `privacy_audit` row giving the counts. Dead letters expire on
 * their own (DEAD_LETTER_RETENTION_HOURS, deliver-webhooks job).
 *
 * The activity log is partitioned by UTC month (lib/privacy/activity-partitions.ts): every month
 * whose whole range is past the cutoff is dropped whole first, one statement whatever its size
 * (issue 32 item 6). What is left past the cutoff — the month the cutoff falls in, and the DEFAULT
 * partition — and old proof files go in batches of RETENTION_BATCH_ROWS, oldest first through the
 * `at` / `created_at` index, each batch its own short transaction (no statement near the database's
 * statement cap, no lock held for long), until nothing is left or RETENTION_TIME_BUDGET_MS is
 * spent; the job runs hourly, so a backlog (a retention shortened, a day of 10× traffic) is caught
 * up over the next runs and `retention_backlog` says one is left. One day of activity at 3.9
 * requests/s is ~340k rows.
 */
import { asc, inArray, lt, type SQL, sql } from "drizzle-orm";
import { OPERATOR_TIMEZONE } from "../billing/dates.js";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { rowsOf } from "../db/rows.js";
import {
  activityAgentsDaily,
  activityAgentsWeekly,
  activityEndpointsDaily,
  activityLog,
  privacyAudit,
  proofFiles,
} from "../db/schema/index.js";
import { dropExpiredActivityPartitions } from "./activity-partitions.js";

const DAY_MS = 86_400_000;

/** Rows deleted per statement (and transaction). */
export const RETENTION_BATCH_ROWS = 5_000;
/** Time one run spends deleting before it leaves the rest to the next run, ms. */
export const RETENTION_TIME_BUDGET_MS = 30_000;

/** What one run deleted, and whether rows past retention are left for the next run. */
export interface RetentionResult {
  /** Activity rows gone, those of dropped partitions included. */
  activity_rows_deleted: number;
  /** Monthly partitions of `activity_log` dropped whole. */
  partitions_dropped: number;
  /** Roll-up rows (both daily roll-ups) of days no activity row is left of, deleted after a drop. */
  rollup_rows_deleted: number;
  proof_files_deleted: number;
  retention_backlog: boolean;
}

/**
 * Deletes, oldest first, at most `batch` proof files created before `cutoff`.
 * @returns how many were deleted
 */
async function deleteProofFiles(cutoff: Date, batch: number): Promise<number> {
  const db = await getDb();
  const doomed = db
    .select({ id: proofFiles.id })
    .from(proofFiles)
    .where(lt(proofFiles.createdAt, cutoff))
    .orderBy(asc(proofFiles.createdAt))
    .limit(batch);
  // A subquery, not a list of ids: nothing is bound per row (issue 32 item 5).
  const gone = await db
    .delete(proofFiles)
    .where(inArray(proofFiles.id, doomed))
    .returning({ id: proofFiles.id });
  return gone.length;
}

/**
 * Deletes, oldest first, at most `batch` activity rows with `at` before `cutoff`. Rows are named by
 * their whole key (the primary key `(at, id)`, read in order) and the outer `at < cutoff` keeps the
 * delete to the partitions that can hold such rows (the cutoff's month and the DEFAULT one, once
 * older months are dropped).
 * @returns how many were deleted
 */
async function deleteActivityRows(cutoff: Date, batch: number): Promise<number> {
  const db = await getDb();
  const before = sql`${cutoff.toISOString()}::timestamptz`;
  const result = await db.execute(sql`
    with gone as (
      delete from ${activityLog} where ${activityLog.at} < ${before} and (${activityLog.id}, ${activityLog.at}) in (
        select ${activityLog.id}, ${activityLog.at} from ${activityLog} where ${activityLog.at} < ${before}
        order by ${activityLog.at} limit ${batch}
      ) returning 1
    ) select count(*)::int as n from gone`);
  return Number(rowsOf<{ n: number | string }>(result)[0]?.n ?? 0);
}

/**
 * Deletes the daily roll-up rows (`activity_agents_daily`, `activity_endpoints_daily`; docs/decisions.md
 * 21) of the days before both the cutoff's day and the day of the oldest activity row left, in the
 * operator's timezone, and the weekly rows (`activity_agents_weekly`; decision 24) of the weeks that
 * end before that day; the week that day falls in is summed again from its daily rows left. Deleted
 * log rows take their counts out of the roll-ups through the roll-up triggers, but a dropped
 * partition fires no trigger: its days' roll-up rows go here, once no row of those days is left.
 * The day that straddles a dropped UTC month's end keeps the dropped rows' counts until its last
 * rows pass the cutoff (at most 5 hours).
 * @returns how many roll-up rows were deleted
 */
async function deleteExpiredRollups(cutoff: Date): Promise<number> {
  const db = await getDb();
  const day = (at: SQL) => sql`(${at} at time zone ${OPERATOR_TIMEZONE})::date`;
  const [bound] = rowsOf<{ before: string }>(
    await db.execute(
      sql`select least(${day(sql`${cutoff.toISOString()}::timestamptz`)}, coalesce((select ${day(sql`min(${activityLog.at})`)} from ${activityLog}), 'infinity'::date))::text as before`,
    ),
  );
  const before = sql`${bound!.before}::date`;
  // The Monday of the week `before` falls in.
  const monday = sql`date_trunc('week', ${before}::timestamp)::date`;
  return db.transaction(async (tx) => {
    const agents = await tx
      .delete(activityAgentsDaily)
      .where(sql`${activityAgentsDaily.day} < ${before}`)
      .returning({ one: sql`1` });
    const endpoints = await tx
      .delete(activityEndpointsDaily)
      .where(sql`${activityEndpointsDaily.day} < ${before}`)
      .returning({ one: sql`1` });
    const weeks = await tx
      .delete(activityAgentsWeekly)
      .where(sql`${activityAgentsWeekly.week} < ${monday}`)
      .returning({ one: sql`1` });
    const w = activityAgentsWeekly;
    const d = activityAgentsDaily;
    // The week cut by `before`, when it started earlier: its daily rows left are its sums.
    await tx.execute(sql`delete from ${w} where ${w.week} = ${monday} and ${monday} < ${before}`);
    await tx.execute(sql`
      insert into ${w} (week, agent_model, agent_name, org_id, api_key_id, requests, errors, latency_ms_sum, first_at, last_at)
      select ${monday}, ${d.agentModel}, ${d.agentName}, ${d.orgId}, ${d.apiKeyId}, sum(${d.requests}), sum(${d.errors}),
             sum(${d.latencyMsSum}), min(${d.firstAt}), max(${d.lastAt})
      from ${d}
      where ${monday} < ${before} and ${d.day} >= ${before} and ${d.day} < ${monday} + 7
      group by 2, 3, 4, 5`);
    return agents.length + endpoints.length + weeks.length;
  });
}

/**
 * Deletes what is past its retention at `now`, in batches (see the module comment).
 * @param options `batchRows`, `budgetMs` (tests shrink them)
 * @returns the counts and whether a backlog is left
 */
export async function purgeExpiredPersonalData(
  now = new Date(),
  options: { batchRows?: number; budgetMs?: number } = {},
): Promise<RetentionResult> {
  const config = getConfig();
  const batch = options.batchRows ?? RETENTION_BATCH_ROWS;
  const deadline = Date.now() + (options.budgetMs ?? RETENTION_TIME_BUDGET_MS);
  const counts = {
    activity_rows_deleted: 0,
    partitions_dropped: 0,
    rollup_rows_deleted: 0,
    proof_files_deleted: 0,
  };
  let backlog = false;
  const drain = async (deleteBatch: (batch: number) => Promise<number>): Promise<number> => {
    let total = 0;
    for (;;) {
      if (Date.now() >= deadline) {
        backlog = true;
        return total;
      }
      const n = await deleteBatch(batch);
      total += n;
      if (n < batch) return total;
    }
  };
  if (config.ACTIVITY_LOG_RETENTION_DAYS > 0) {
    const cutoff = new Date(now.getTime() - config.ACTIVITY_LOG_RETENTION_DAYS * DAY_MS);
    const dropped = await dropExpiredActivityPartitions(cutoff);
    if (dropped.deferred) backlog = true;
    counts.partitions_dropped = dropped.partitions_dropped;
    counts.activity_rows_deleted = dropped.rows_dropped;
    counts.activity_rows_deleted += await drain((n) => deleteActivityRows(cutoff, n));
    if (dropped.partitions_dropped > 0) counts.rollup_rows_deleted = await deleteExpiredRollups(cutoff);
  }
  if (config.PROOF_FILE_RETENTION_DAYS > 0) {
    const cutoff = new Date(now.getTime() - config.PROOF_FILE_RETENTION_DAYS * DAY_MS);
    counts.proof_files_deleted = await drain((n) => deleteProofFiles(cutoff, n));
  }
  if (counts.activity_rows_deleted + counts.proof_files_deleted + counts.partitions_dropped > 0) {
    const db = await getDb();
    await db.insert(privacyAudit).values({
      action: "retention_purge",
      actor: "job",
      details: { ...counts, retention_backlog: backlog },
      at: now,
    });
  }
  return { ...counts, retention_backlog: backlog };
}

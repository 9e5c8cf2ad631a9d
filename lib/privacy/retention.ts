/**
 * Retention of activity logs and proof files (docs/privacy.md "Retention"): rows older than
 * ACTIVITY_LOG_RETENTION_DAYS / PROOF_FILE_RETENTION_DAYS (0 = kept) are deleted by the
 * privacy-retention job, with one `privacy_audit` row giving the counts. Dead letters expire on
 * their own (DEAD_LETTER_RETENTION_HOURS, deliver-webhooks job).
 *
 * Bounded work whatever the backlog (issue 32 item 6): rows go in batches of
 * RETENTION_BATCH_ROWS, oldest first through the `at` / `created_at` index, each batch its own short
 * transaction (no statement near the database's statement cap, no lock held for long), until
 * nothing is left or RETENTION_TIME_BUDGET_MS is spent; the job runs hourly, so a backlog (a
 * retention shortened, a day of 10× traffic) is caught up over the next runs and
 * `retention_backlog` says one is left. One day of activity at 3.9 requests/s is ~340k rows.
 */
import { asc, inArray, lt } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { activityLog, privacyAudit, proofFiles } from "../db/schema/index.js";

const DAY_MS = 86_400_000;

/** Rows deleted per statement (and transaction). */
export const RETENTION_BATCH_ROWS = 5_000;
/** Time one run spends deleting before it leaves the rest to the next run, ms. */
export const RETENTION_TIME_BUDGET_MS = 30_000;

/** What one run deleted, and whether rows past retention are left for the next run. */
export interface RetentionResult {
  activity_rows_deleted: number;
  proof_files_deleted: number;
  retention_backlog: boolean;
}

/**
 * Deletes, oldest first, at most `batch` rows of `table` older than `cutoff` (by `column`).
 * @returns how many were deleted
 */
async function deleteBatch(
  table: typeof activityLog | typeof proofFiles,
  column: typeof activityLog.at | typeof proofFiles.createdAt,
  cutoff: Date,
  batch: number,
): Promise<number> {
  const db = await getDb();
  const doomed = db
    .select({ id: table.id })
    .from(table)
    .where(lt(column, cutoff))
    .orderBy(asc(column))
    .limit(batch);
  // A subquery, not a list of ids: nothing is bound per row (issue 32 item 5).
  const gone = await db.delete(table).where(inArray(table.id, doomed)).returning({ id: table.id });
  return gone.length;
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
  const counts = { activity_rows_deleted: 0, proof_files_deleted: 0 };
  let backlog = false;
  const drain = async (
    table: typeof activityLog | typeof proofFiles,
    column: typeof activityLog.at | typeof proofFiles.createdAt,
    cutoff: Date,
  ): Promise<number> => {
    let total = 0;
    for (;;) {
      if (Date.now() >= deadline) {
        backlog = true;
        return total;
      }
      const n = await deleteBatch(table, column, cutoff, batch);
      total += n;
      if (n < batch) return total;
    }
  };
  if (config.ACTIVITY_LOG_RETENTION_DAYS > 0) {
    const cutoff = new Date(now.getTime() - config.ACTIVITY_LOG_RETENTION_DAYS * DAY_MS);
    counts.activity_rows_deleted = await drain(activityLog, activityLog.at, cutoff);
  }
  if (config.PROOF_FILE_RETENTION_DAYS > 0) {
    const cutoff = new Date(now.getTime() - config.PROOF_FILE_RETENTION_DAYS * DAY_MS);
    counts.proof_files_deleted = await drain(proofFiles, proofFiles.createdAt, cutoff);
  }
  if (counts.activity_rows_deleted + counts.proof_files_deleted > 0) {
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

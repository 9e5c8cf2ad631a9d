/**
 * The expiry job (api/cron/expire-payments, every 5 minutes): expires unpaid tasks past their
 * 48 h payment window (lib/tasks/expire-payments.ts), purges `Idempotency-Key` records past
 * their 24 h (lib/idempotency/store.ts) and folds the task roll-ups' appended counter rows
 * (lib/analytics/task-rollups.ts); the run is recorded in `job_runs`.
 */
import { compactTaskRollups } from "../analytics/task-rollups.js";
import { getDb } from "../db/client.js";
import { purgeExpiredRecords } from "../idempotency/store.js";
import { purgeExpiredOauthArtifacts } from "../oauth/adapter.js";
import { expireOverduePayments } from "../tasks/expire-payments.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the expiry job once.
 * @returns the job result; its details are the expiry counts plus `idempotency_records_purged` and
 *   `oauth_artifacts_purged` (expired OAuth codes, tokens and sessions: lib/oauth/adapter.ts) and
 *   `task_rollup_rows_folded` (appended counter rows of the task roll-ups folded)
 */
export function expirePayments(): Promise<JobResult> {
  return runJob("expire-payments", async () => ({
    ...(await expireOverduePayments()),
    idempotency_records_purged: await purgeExpiredRecords(await getDb()),
    oauth_artifacts_purged: await purgeExpiredOauthArtifacts(),
    task_rollup_rows_folded: await compactTaskRollups(),
  }));
}

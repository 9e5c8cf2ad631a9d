/**
 * The privacy-retention job (api/cron/privacy-retention, hourly): de-identifies the accounts whose
 * erasure request is due (lib/privacy/erasure.ts), replaces the requester contact of tasks of
 * others that named a de-identified account's e-mail once they are terminal, creates the activity log's
 * partitions of this month and the next 2 (lib/privacy/activity-partitions.ts), and deletes
 * activity-log rows and proof files past their retention (lib/privacy/retention.ts: expired months
 * of the activity log dropped whole); the run is recorded in `job_runs`.
 */
import { ensureActivityPartitions } from "../privacy/activity-partitions.js";
import { processDueErasures, redactNamedTasks } from "../privacy/erasure.js";
import { purgeExpiredPersonalData } from "../privacy/retention.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the job once at `now`.
 * @returns the job result; details `{ erasures_processed, named_tasks_redacted, partitions_created,
 *   activity_rows_deleted, partitions_dropped, proof_files_deleted, retention_backlog }`
 *   (`partitions_created`: names of the activity-log partitions made this run)
 */
export function privacyRetention(now = new Date()): Promise<JobResult> {
  return runJob("privacy-retention", async () => {
    const partitions = await ensureActivityPartitions(now);
    return {
      erasures_processed: await processDueErasures(now),
      named_tasks_redacted: await redactNamedTasks(now),
      partitions_created: partitions.created,
      ...(partitions.deferred > 0 ? { partitions_deferred: partitions.deferred } : {}),
      ...(await purgeExpiredPersonalData(now)),
    };
  });
}

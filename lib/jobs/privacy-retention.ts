/**
 * The privacy-retention job (api/cron/privacy-retention, hourly): de-identifies the accounts whose
 * erasure request is due (lib/privacy/erasure.ts), replaces the requester contact of tasks of
 * others that named a de-identified account's e-mail once they are terminal, and deletes activity-log rows and proof files
 * past their retention (lib/privacy/retention.ts); the run is recorded in `job_runs`.
 */
import { processDueErasures, redactNamedTasks } from "../privacy/erasure.js";
import { purgeExpiredPersonalData } from "../privacy/retention.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the job once at `now`.
 * @returns the job result; details `{ erasures_processed, named_tasks_redacted, activity_rows_deleted,
 *   proof_files_deleted }`
 */
export function privacyRetention(now = new Date()): Promise<JobResult> {
  return runJob("privacy-retention", async () => ({
    erasures_processed: await processDueErasures(now),
    named_tasks_redacted: await redactNamedTasks(now),
    ...(await purgeExpiredPersonalData(now)),
  }));
}

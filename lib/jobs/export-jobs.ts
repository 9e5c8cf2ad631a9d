/**
 * The export-jobs job (api/cron/export-jobs, every minute): writes chunks of queued export jobs
 * (Law 25 access exports, large compliance exports) within EXPORT_JOB_BUDGET_SECONDS and deletes
 * the files whose link expired (lib/exports/jobs.ts); the run is recorded in `job_runs`.
 */
import { getConfig } from "../config.js";
import { runExportJobs } from "../exports/jobs.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the job once.
 * @returns the job result; details `{ chunks_written, jobs_completed, jobs_failed, attempts_failed, files_expired }`
 */
export function exportJobsCron(): Promise<JobResult> {
  return runJob("export-jobs", () => runExportJobs(), getConfig().EXPORT_JOB_BUDGET_SECONDS + 15);
}

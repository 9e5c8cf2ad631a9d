/**
 * The deadline-watch job (api/cron/deadline-watch, every 5 minutes): flags paid and dispatched
 * tasks whose execution deadline is near (lib/field/deadline-watch.ts); the run is recorded in
 * `job_runs`.
 */
import { flagTasksAtRisk } from "../field/deadline-watch.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the deadline watch once.
 * @returns the job result; its details are `{ flagged }`
 */
export function deadlineWatch(): Promise<JobResult> {
  return runJob("deadline-watch", () => flagTasksAtRisk().then((r) => ({ ...r })));
}

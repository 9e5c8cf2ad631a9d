/**
 * The deadline-watch job (api/cron/deadline-watch, every 5 minutes): flags paid and dispatched
 * tasks whose execution deadline is near (lib/field/deadline-watch.ts); the run is recorded in
 * `job_runs`.
 */
import { flagTasksAtRisk } from "../field/deadline-watch.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the deadline watch once.
 * @param now the instant the tasks are judged at (and their `minutes_left` counted from);
 *   default the current time (the cron). Tests pass their own clock.
 * @returns the job result; its details are `{ flagged }`
 */
export function deadlineWatch(now: Date = new Date()): Promise<JobResult> {
  return runJob("deadline-watch", () => flagTasksAtRisk(now).then((r) => ({ ...r })));
}

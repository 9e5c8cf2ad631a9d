/**
 * The deadline-watch job (api/cron/deadline-watch, every 5 minutes): flags paid and dispatched
 * tasks whose execution deadline is near (lib/field/deadline-watch.ts), and pushes the reviewers a
 * reminder of each task waiting for its review longer than PUSH_REVIEW_WAIT_MINUTES, once per task
 * (lib/push/queue-pushes.ts; issue 44 item 6); the run is recorded in `job_runs`.
 */
import { flagTasksAtRisk } from "../field/deadline-watch.js";
import { queueReviewWaitPushes } from "../push/queue-pushes.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the deadline watch once.
 * @param now the instant the tasks are judged at (and their `minutes_left` counted from);
 *   default the current time (the cron). Tests pass their own clock.
 * @returns the job result; its details are `{ flagged, review_waits, review_pushes }`
 */
export function deadlineWatch(now: Date = new Date()): Promise<JobResult> {
  return runJob("deadline-watch", async () => ({
    ...(await flagTasksAtRisk(now)),
    ...(await queueReviewWaitPushes(now)),
  }));
}

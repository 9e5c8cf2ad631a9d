/**
 * The SLA-credit job (api/cron/sla-credits, hourly): credits the paid tasks finished after their
 * execution deadline (lib/tasks/sla-credits.ts); the run is recorded in `job_runs`.
 */
import { creditLateTasks } from "../tasks/sla-credits.js";
import { type JobResult, runJob } from "./run-job.js";

/**
 * Runs the job once at `now`.
 * @returns the job result; details `{ checked, credited, credited_cad }`
 */
export function slaCredits(now = new Date()): Promise<JobResult> {
  return runJob("sla-credits", () => creditLateTasks(now));
}

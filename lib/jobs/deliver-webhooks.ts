/**
 * The outbox job (api/cron/deliver-webhooks, every minute): one outbox pass of at most 40 s
 * (dispatch undispatched events, send due webhook / callback deliveries and queued e-mails)
 * that also purges expired dead letters (lib/events/process-outbox.ts); the run is recorded in
 * `job_runs`.
 */
import { processOutbox } from "../events/process-outbox.js";
import { type JobResult, runJob } from "./run-job.js";

/** Time budget of one cron pass, ms: leaves the attempts still in flight time to end within the function's 60 s (vercel.json maxDuration). */
const CRON_BUDGET_MS = 40_000;

/**
 * Runs the outbox job once.
 * @returns the job result; its details are the counts of the outbox pass
 */
export function deliverWebhooks(): Promise<JobResult> {
  return runJob("deliver-webhooks", async () => ({
    ...(await processOutbox({ budgetMs: CRON_BUDGET_MS, purge: true })),
  }));
}

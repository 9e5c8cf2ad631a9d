/**
 * Runs a scheduled job once and records the run in `job_runs` (last run, status,
 * duration, details), which `/api/status` reads. A lease (`locked_until`) makes
 * overlapping invocations of the same job skip instead of running twice. The job's changes are
 * attributed to the actor `system` named `job` in the audit trail (lib/db/actor.ts).
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { runAsActor, systemActor } from "../db/actor.js";
import { getDb } from "../db/client.js";
import { jobRuns } from "../db/schema/index.js";
// Registers the outbox kick with the state layer's "events committed" hook (lib/db/after-events.ts).
import "../events/kick-outbox.js";

/** Result of one invocation. */
export interface JobResult {
  job: string;
  ok: boolean;
  skipped?: boolean;
  duration_ms?: number;
  details?: Record<string, unknown>;
  error?: string;
}

/** A failed run that still reports its details (recorded with the error). */
export class JobError extends Error {
  override name = "JobError";
  constructor(
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * Runs `work` under the job's lease (`leaseSeconds`, default 55 s) and records its
 * outcome. `work` returns the run's details (e.g. `{ pending_checked: 3 }`).
 * Never throws for a failure of `work`: it is recorded and returned with ok=false.
 */
export async function runJob(
  job: string,
  work: () => Promise<Record<string, unknown>>,
  leaseSeconds = 55,
): Promise<JobResult> {
  const db = await getDb();
  const now = new Date();
  const lockedUntil = new Date(now.getTime() + leaseSeconds * 1000);
  await db.insert(jobRuns).values({ job }).onConflictDoNothing();
  const claimed = await db
    .update(jobRuns)
    .set({ lockedUntil })
    .where(and(eq(jobRuns.job, job), or(isNull(jobRuns.lockedUntil), lt(jobRuns.lockedUntil, now))))
    .returning({ job: jobRuns.job });
  if (claimed.length === 0) return { job, ok: true, skipped: true };
  const started = performance.now();
  try {
    // What the job changes is recorded in the audit trail as the system's, under the job's name.
    const details = await runAsActor(systemActor(job), null, work);
    const duration = Math.round(performance.now() - started);
    await db
      .update(jobRuns)
      .set({
        lastRunAt: new Date(),
        lastSuccessAt: new Date(),
        lastStatus: "ok",
        lastError: null,
        durationMs: duration,
        details,
        lockedUntil: null,
      })
      .where(eq(jobRuns.job, job));
    return { job, ok: true, duration_ms: duration, details };
  } catch (error) {
    const duration = Math.round(performance.now() - started);
    const message = error instanceof Error ? error.message : String(error);
    // A failure may still report what the run did (e.g. the checker's pending_checked).
    const details = error instanceof JobError ? error.details : undefined;
    await db
      .update(jobRuns)
      .set({
        lastRunAt: new Date(),
        lastStatus: "error",
        lastError: message.slice(0, 1000),
        durationMs: duration,
        ...(details ? { details } : {}),
        lockedUntil: null,
      })
      .where(eq(jobRuns.job, job));
    return { job, ok: false, duration_ms: duration, error: message, ...(details ? { details } : {}) };
  }
}

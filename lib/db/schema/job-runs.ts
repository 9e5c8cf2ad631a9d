import { integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";
import type { JobRunStatus } from "./enums.js";

/** Last run of each scheduled job; `/api/status` reads `check-payments` from it. */
export const jobRuns = pgTable("job_runs", {
  /** Job name, e.g. `check-payments`, `deliver-webhooks`, `expire-payments`. */
  job: text("job").primaryKey(),
  lastRunAt: timestamptz("last_run_at"),
  lastSuccessAt: timestamptz("last_success_at"),
  lastStatus: text("last_status").$type<JobRunStatus>(),
  lastError: text("last_error"),
  /** Duration of the last run, milliseconds. */
  durationMs: integer("duration_ms"),
  /** Job-specific figures of the last run, e.g. `{ pending_checked: 3 }`. */
  details: jsonb("details").$type<Record<string, unknown>>(),
  /** Lease: a run that finds this in the future skips, so overlapping cron invocations do not double-run. */
  lockedUntil: timestamptz("locked_until"),
});

export type JobRun = typeof jobRuns.$inferSelect;
export type NewJobRun = typeof jobRuns.$inferInsert;

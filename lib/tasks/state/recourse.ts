/**
 * Recourse when the work is wrong or late (issue 27; docs/tasks.md "Recourse: disputes and SLA credits"), as data and pure
 * arithmetic: the dispute window, the reasons and resolutions, the SLA credit policy and its
 * computation. Published by GET /api/capabilities (`recourse`), each catalog entry's `contract`,
 * the owner's status view and the signed receipt (`sla`). No database import: the catalogue and
 * the capabilities read it at start.
 */
import { z } from "zod";
import { getConfig } from "../../config.js";
import { DISPUTE_REASONS, DISPUTE_RESOLUTIONS, type DisputeResolution } from "../../db/schema/enums.js";
import type { Task } from "../../db/schema/index.js";
import { fromCents, roundHalfAwayFromZero, toCents } from "../../money.js";

/** One full day late, milliseconds (24 h). */
const DAY_MS = 24 * 3600 * 1000;

/** The terms of recourse, as published (hours, percents of the task's price). */
export function recourseTerms(config = getConfig()) {
  return {
    disputes: {
      window_hours: config.DISPUTE_WINDOW_HOURS,
      window_starts: "completed_at",
      who: "the task's owner (submitting key, a key of the same account, the signed-in account, or the access_token)",
      open_with: "POST /api/task-dispute (MCP tool dispute_task)",
      reasons: [...DISPUTE_REASONS],
      resolutions: [...DISPUTE_RESOLUTIONS],
      one_open_per_task: true,
      again_after_resolutions: ["redo"] as DisputeResolution[],
    },
    sla_credit: {
      automatic: true,
      applies_to: "paid tasks completed or failed after their execution_deadline",
      percent_per_full_day: config.SLA_CREDIT_PERCENT,
      cap_percent: config.SLA_CREDIT_CAP_PERCENT,
      of: "the amount paid (taxes included)",
      paid_as:
        "prepaid account: credited to the balance with a credit note; USDC: a refund owed, sent to the paying wallet",
    },
    review_sla_missed: {
      rule: "a task not reviewed by its review_deadline may be cancelled by its owner with a full refund, even after paying",
    },
  };
}

/** The recourse terms as published (response documentation of the catalog and the capabilities). */
export const recourseTermsSchema = z
  .object({
    disputes: z.object({
      window_hours: z
        .number()
        .int()
        .meta({ description: "Hours after completed_at to open a dispute (72)." }),
      window_starts: z.literal("completed_at"),
      who: z.string(),
      open_with: z.string(),
      reasons: z.array(z.enum(DISPUTE_REASONS)),
      resolutions: z.array(z.enum(DISPUTE_RESOLUTIONS)),
      one_open_per_task: z.boolean(),
      again_after_resolutions: z.array(z.enum(DISPUTE_RESOLUTIONS)).meta({
        description:
          "A task is disputed once; it may be disputed again (within its window) only when every earlier " +
          "dispute was resolved with one of these (redo). Otherwise 409 CONFLICT (docs/decisions.md 37).",
      }),
    }),
    sla_credit: z.object({
      automatic: z.boolean(),
      applies_to: z.string(),
      percent_per_full_day: z.number().int().meta({
        description:
          "Percent of the amount paid per full 24 h past execution_deadline (10): 23 h late earns nothing, 50 h late earns 2 days' worth.",
      }),
      cap_percent: z
        .number()
        .int()
        .meta({ description: "Most of the amount paid a credit reaches, percent (50)." }),
      of: z.string(),
      paid_as: z.string(),
    }),
    review_sla_missed: z.object({ rule: z.string() }),
  })
  .meta({
    description:
      "Recourse when the work is wrong or late: disputes (window, reasons, resolutions) and the automatic SLA credit policy.",
  });

/** The recourse terms' type. */
export type RecourseTerms = ReturnType<typeof recourseTerms>;

/**
 * The SLA credit of a task finished (completed or failed) at `finishedAt` against its execution
 * deadline `deadline`: full 24 h periods late, and the percent of the price credited
 * (`percentPerDay` each, at most `capPercent`). Less than 24 h late: `{ daysLate: 0, percent: 0 }`.
 * E.g. 50 h late at 10 %/day capped at 50 % → 2 days, 20 % (issue 27's worked example;
 * docs/decisions.md 15).
 */
export function slaCreditPercent(
  deadline: Date,
  finishedAt: Date,
  percentPerDay: number,
  capPercent: number,
): { daysLate: number; percent: number } {
  const late = finishedAt.getTime() - deadline.getTime();
  if (late <= 0) return { daysLate: 0, percent: 0 };
  const daysLate = Math.floor(late / DAY_MS);
  return { daysLate, percent: Math.min(daysLate * percentPerDay, capPercent) };
}

/** `percent` of `paidCad` (CAD), rounded half away from zero to the cent. */
export function percentOfCad(paidCad: number, percent: number): number {
  return fromCents(roundHalfAwayFromZero((toCents(paidCad) * percent) / 100));
}

/**
 * By how much a task finished at `finishedAt` missed its execution deadline `deadline`: hours, in
 * tenths rounded up (a minute late reads 0.1, never 0), or null when it finished in time. Unlike
 * the credit ({@link slaCreditPercent}, full 24 h periods), any lateness counts (issue 42 item 5).
 */
export function slaMissedByHours(deadline: Date, finishedAt: Date): number | null {
  const late = finishedAt.getTime() - deadline.getTime();
  return late > 0 ? Math.ceil(late / 360_000) / 10 : null;
}

/**
 * The `sla` block of a task (owner's status view): deadlines (ISO 8601), the credit policy
 * (percent per full day late, cap), the credit given, CAD, when one was, and `missed_by_hours`
 * ({@link slaMissedByHours}) when the task finished (`finishedAt`: completed, or failed) after its
 * execution deadline, credited or not.
 */
export function slaView(
  task: Pick<Task, "reviewDeadline" | "executionDeadline">,
  creditedCad: number | null,
  finishedAt: Date | null = null,
  config = getConfig(),
): Record<string, unknown> {
  const missedBy = finishedAt ? slaMissedByHours(task.executionDeadline, finishedAt) : null;
  return {
    review_deadline: task.reviewDeadline.toISOString(),
    execution_deadline: task.executionDeadline.toISOString(),
    credit_percent_per_day: config.SLA_CREDIT_PERCENT,
    cap_percent: config.SLA_CREDIT_CAP_PERCENT,
    ...(missedBy !== null ? { missed_by_hours: missedBy } : {}),
    ...(creditedCad !== null ? { credited_cad: creditedCad } : {}),
  };
}

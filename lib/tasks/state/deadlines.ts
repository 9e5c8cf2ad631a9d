/**
 * SLA deadlines (spec "What the service does" item 6 and "Limits"): operational hours in
 * America/Toronto ({@link OPERATIONAL_HOURS}) and the SLA hours of {@link SLA}.
 *
 * RULE: the SLA clock starts at submission if inside review hours, else at the next
 * opening of review hours; urgent tasks start the clock immediately (the operator may
 * work outside hours for urgent tasks); the deadline is start + SLA hours as elapsed
 * (absolute) hours, so a DST change does not shorten or lengthen the SLA.
 *
 * Execution deadlines apply the same rule to execution hours, counted from payment
 * (72 h standard / 24 h urgent). Hours are half-open: open <= local time < close, so a
 * moment exactly at closing time waits for the next opening. Weekday vs weekend is decided
 * by the local (Toronto) calendar date; public holidays are not modelled.
 */
import { DateTime } from "luxon";
import type { Urgency } from "./schemas.js";
import { OPERATIONAL_HOURS, SLA } from "./sla.js";

/** An activity with its own operational hours. */
export type Activity = "review" | "execution";

const HOUR_MS = 3_600_000;

function assertValidDate(value: unknown, name: string): asserts value is Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new RangeError(`${name} must be a valid Date`);
  }
}

function assertUrgency(value: unknown): asserts value is Urgency {
  if (value !== "standard" && value !== "urgent") {
    throw new RangeError(`urgency must be "standard" or "urgent", got ${String(value)}`);
  }
}

/** Parses "HH:MM" into hour and minute. */
function hourMinute(hhmm: string): { hour: number; minute: number } {
  const [h, m] = hhmm.split(":");
  return { hour: Number(h), minute: Number(m) };
}

/**
 * A span of instants [from, until) over which `nextOpening` gives one answer: the instant
 * itself (`opening` null: inside the hours from one opening to its closing) or one opening.
 */
interface OpeningWindow {
  from: number;
  until: number;
  opening: number | null;
}

/** The window of each activity's last computed answer (submissions arrive in time order, so most hit it). */
const lastWindow: Partial<Record<Activity, OpeningWindow>> = {};

/**
 * Start of `activity`'s hours at `at` if `at` is inside them (returned as a new Date with
 * the same instant), else the next opening time (Toronto local time, DST-aware).
 *
 * The answer holds for a whole window of instants: inside the hours, from that opening to
 * its closing; before an opening, from `at` to that opening (every instant in between is
 * past the same closings and before the same opening). The last window per activity is
 * kept, so calls at nearby instants skip the time-zone arithmetic.
 */
export function nextOpening(activity: Activity, at: Date): Date {
  assertValidDate(at, "at");
  if (activity !== "review" && activity !== "execution") {
    throw new RangeError(`activity must be "review" or "execution", got ${String(activity)}`);
  }
  const t = at.getTime();
  const window = lastWindow[activity];
  if (window && t >= window.from && t < window.until) return new Date(window.opening ?? t);
  const hours = OPERATIONAL_HOURS[activity];
  const local = DateTime.fromJSDate(at, { zone: OPERATIONAL_HOURS.timezone });
  const today = local.startOf("day");
  for (let offset = 0; offset <= 7; offset++) {
    const day = today.plus({ days: offset });
    const schedule = day.weekday >= 6 ? hours.weekends : hours.weekdays;
    const open = day.set(hourMinute(schedule.open));
    const close = day.set(hourMinute(schedule.close));
    if (local < open) {
      lastWindow[activity] = { from: t, until: open.toMillis(), opening: open.toMillis() };
      return open.toJSDate();
    }
    if (local < close) {
      lastWindow[activity] = { from: open.toMillis(), until: close.toMillis(), opening: null };
      return new Date(t);
    }
  }
  throw new Error("unreachable: no opening within a week");
}

function deadline(
  activity: Activity,
  from: Date,
  urgency: Urgency,
  standardH: number,
  urgentH: number,
): Date {
  const start = urgency === "urgent" ? from : nextOpening(activity, from);
  const h = urgency === "urgent" ? urgentH : standardH;
  return new Date(start.getTime() + h * HOUR_MS);
}

/** Review deadline of a task submitted at `submittedAt` (24 h standard / 12 h urgent; see module RULE). */
export function reviewDeadline(submittedAt: Date, urgency: Urgency): Date {
  assertValidDate(submittedAt, "submittedAt");
  assertUrgency(urgency);
  return deadline("review", submittedAt, urgency, SLA.review_hours, SLA.review_hours_urgent);
}

/** Execution deadline of a task paid at `paidAt` (72 h standard / 24 h urgent; see module RULE). */
export function executionDeadline(paidAt: Date, urgency: Urgency): Date {
  assertValidDate(paidAt, "paidAt");
  assertUrgency(urgency);
  return deadline("execution", paidAt, urgency, SLA.execution_hours, SLA.execution_hours_urgent);
}

/**
 * Execution deadline shown at submission: as if payment arrived at the review deadline.
 * Recompute with {@link executionDeadline} once payment is confirmed.
 */
export function provisionalExecutionDeadline(submittedAt: Date, urgency: Urgency): Date {
  return executionDeadline(reviewDeadline(submittedAt, urgency), urgency);
}

/** End of the payment window: `openedAt` + 48 elapsed hours (no operational-hours shift). */
export function paymentExpiry(openedAt: Date): Date {
  assertValidDate(openedAt, "openedAt");
  return new Date(openedAt.getTime() + SLA.payment_window_hours * HOUR_MS);
}

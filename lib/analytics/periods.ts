/**
 * The calendar periods of the analytics (America/Toronto, `OPERATOR_TIMEZONE`): today's date, the
 * whole ISO weeks inside a period, and the conditions that read a period once from a daily roll-up
 * and its weekly sums (docs/decisions.md 23 and 24).
 */
import { and, gt, gte, lt, lte, or, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { DateTime } from "luxon";
import { OPERATOR_TIMEZONE } from "../billing/dates.js";

/** Today's date in America/Toronto (YYYY-MM-DD). */
export const today = () => DateTime.now().setZone(OPERATOR_TIMEZONE).toISODate()!;

/**
 * The whole ISO weeks (Monday to Sunday) inside the days `fromDay`..`toDay` (YYYY-MM-DD,
 * inclusive): `weeksFrom` the first one's Monday and `weeksTo` the last one's Sunday, or both null
 * when the period holds no whole week. When `currentDay` (today's date) is given and `toDay` is
 * today or later, the week of `toDay` counts as whole: the roll-ups hold no day after today (their
 * rows are requests made and tasks paid), so its weekly row is its days up to `toDay`.
 */
export function wholeWeeks(
  fromDay: string,
  toDay: string,
  currentDay?: string,
): { weeksFrom: string | null; weeksTo: string | null } {
  const from = DateTime.fromISO(fromDay);
  const to = DateTime.fromISO(toDay);
  const monday = from.weekday === 1 ? from : from.startOf("week").plus({ weeks: 1 });
  const open = currentDay !== undefined && toDay >= currentDay;
  const sunday =
    to.weekday === 7 || open ? to.endOf("week").startOf("day") : to.startOf("week").minus({ days: 1 });
  return monday < sunday
    ? { weeksFrom: monday.toISODate()!, weeksTo: sunday.toISODate()! }
    : { weeksFrom: null, weeksTo: null };
}

/**
 * The conditions that read the days `fromDay`..`toDay` (YYYY-MM-DD, inclusive) once from a daily
 * roll-up (column `day`) and its weekly sums (column `week`): `weeks` the whole weeks
 * `weeksFrom`..`weeksTo` (from `wholeWeeks`; undefined when there are none, and the weekly table
 * is not read), `days` the other days.
 */
export function splitPeriod(
  day: PgColumn,
  week: PgColumn,
  period: { fromDay: string; toDay: string; weeksFrom: string | null; weeksTo: string | null },
): { days: SQL | undefined; weeks: SQL | undefined } {
  const { fromDay, toDay, weeksFrom, weeksTo } = period;
  const inPeriod = and(gte(day, fromDay), lte(day, toDay));
  if (!weeksFrom || !weeksTo) return { days: inPeriod, weeks: undefined };
  return {
    days: and(inPeriod, or(lt(day, weeksFrom), gt(day, weeksTo))),
    weeks: and(gte(week, weeksFrom), lte(week, weeksTo)),
  };
}

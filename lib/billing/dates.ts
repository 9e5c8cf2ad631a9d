/**
 * Calendar-day bounds of the `date_from` / `date_to` filters (YYYY-MM-DD, both
 * inclusive), taken in the operator's timezone America/Toronto (spec "What the service does" 6).
 */
import { DateTime } from "luxon";
import { DomainError } from "../errors.js";

/** The operator's timezone. */
export const OPERATOR_TIMEZONE = "America/Toronto";

/**
 * `[from, to)` instants of the inclusive day range; either side may be open.
 * @throws DomainError VALIDATION_ERROR when date_from is after date_to
 */
export function dayRange(dateFrom?: string, dateTo?: string): { from?: Date; to?: Date } {
  const from = dateFrom ? DateTime.fromISO(dateFrom, { zone: OPERATOR_TIMEZONE }).startOf("day") : undefined;
  const to = dateTo
    ? DateTime.fromISO(dateTo, { zone: OPERATOR_TIMEZONE }).startOf("day").plus({ days: 1 })
    : undefined;
  if (from && to && from >= to) {
    throw new DomainError("VALIDATION_ERROR", "date_from must not be after date_to", { field: "date_from" });
  }
  return { from: from?.toJSDate(), to: to?.toJSDate() };
}

/**
 * The SLA constants (spec "What the service does" item 6 and "Limits"): operational hours and
 * SLA hours, without the deadline arithmetic of deadlines.ts, so that the catalogue and the
 * capabilities can publish them without loading luxon (cold start, docs/performance.md).
 */

/**
 * Operational hours, America/Toronto (spec "What the service does" item 6): local "HH:MM"
 * opening and closing times per activity, weekdays (Mon-Fri) and weekends (Sat-Sun).
 * Published as-is in GET /api/capabilities (`operational_hours`).
 */
export const OPERATIONAL_HOURS = {
  timezone: "America/Toronto",
  review: { weekdays: { open: "08:00", close: "22:00" }, weekends: { open: "09:00", close: "18:00" } },
  execution: { weekdays: { open: "07:00", close: "20:00" }, weekends: { open: "08:00", close: "17:00" } },
  urgent_note: "Urgent tasks may be processed outside these hours at the operator's discretion.",
} as const;

/** Service-level deadlines in hours, identical for all services (spec "Limits", "Service catalog entry"). */
export const SLA = Object.freeze({
  /** Human review of a standard task, hours after submission. */
  review_hours: 24,
  /** Human review of an urgent task, hours after submission. */
  review_hours_urgent: 12,
  /** Execution of a standard task, hours after payment is confirmed. */
  execution_hours: 72,
  /** Execution of an urgent task, hours after payment is confirmed. */
  execution_hours_urgent: 24,
  /** Window to pay an accepted or counter-offered task, hours. */
  payment_window_hours: 48,
} as const);

/**
 * Share of a task's execution window (payment → execution deadline) under which the deadline watch
 * flags a paid or dispatched task at risk (`task.at_risk`, lib/field/deadline-watch.ts): a quarter.
 */
export const AT_RISK_WINDOW_SHARE = 0.25;

import { sql } from "drizzle-orm";
import { bigint, boolean, date, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { cad } from "./columns.js";

/**
 * Daily roll-ups of the non-sandbox tasks (issue 32 item 4; docs/decisions.md 23): what the
 * analytics dashboard and the tasks part of `action=org` read instead of scanning `tasks`. `day` is
 * a calendar day in America/Toronto (the analytics' periods are whole days there, so a period is an
 * exact set of roll-up days).
 *
 * Kept by database triggers (migration 0029_task_rollup_triggers) on `tasks` (every INSERT, UPDATE
 * and DELETE adds its new rows and subtracts its old ones) and on the `charge` rows of
 * `ledger_entries` (a task's revenue is its charge when it has one, else its price), in the
 * statement's transaction: a roll-up always equals a recount of `tasks` joined with its charge.
 *
 * Two kinds of tables. The per-client ones have one row per key, upserted (a client's own tasks
 * rarely change at the same instant), and a row whose count reaches 0 is deleted. The others
 * (`tasks_paid_daily`, `tasks_created_daily`, `tasks_org_daily`) would have a row every writer
 * updates (today's `received` count, at every submission), held locked until each writer commits:
 * they are **append-only counters** instead. A change appends signed rows (`compacted` false), so
 * writers never wait for each other; readers sum the rows of a key and leave out keys summing to 0;
 * the housekeeping job (`compactTaskRollups`, every 5 minutes) folds each key's rows into one
 * (`compacted` true) and drops keys summing to 0.
 *
 * `revenue_cad` is the sum of each task's revenue: `-charge.amount_cad` (its prepaid charge) or else
 * `price_cad` or 0, less `refund_amount_cad` once `refund_status = 'refunded'` (CAD).
 */

/**
 * The column of an append-only counter table: false on rows a change appended, true on the one row
 * per key the housekeeping job folded them into.
 */
const counterColumns = () => ({ compacted: boolean("compacted").notNull().default(false) });

/** Paid tasks per day of `paid_at`, service type and current status (append-only counter): revenue per service and ISO week, outcomes. */
export const tasksPaidDaily = pgTable(
  "tasks_paid_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    serviceType: text("service_type").notNull(),
    status: text("status").notNull(),
    tasks: integer("tasks").notNull(),
    revenueCad: cad("revenue_cad").notNull(),
    ...counterColumns(),
  },
  (t) => [
    index("tasks_paid_daily_day_idx").on(t.day, t.serviceType, t.status),
    index("tasks_paid_daily_appended_idx").on(t.day).where(sql`not compacted`),
  ],
);

/**
 * The columns of a client roll-up after its day or week: the API key that submitted the tasks, or,
 * for tasks without a key, the requester's contact (`''` in the column not used), and the sums.
 * A function: each table needs its own column objects.
 */
const clientColumns = () => ({
  /** `''`: tasks without a key, counted by `requester_contact`. */
  apiKeyId: text("api_key_id").notNull(),
  /** The task's `requester_contact` when it has no key, else `''`. */
  requesterContact: text("requester_contact").notNull(),
  tasks: integer("tasks").notNull(),
  revenueCad: cad("revenue_cad").notNull(),
});

/** Paid tasks per day of `paid_at` and client (`clientColumns`): the dashboard's top clients. */
export const tasksPaidClientsDaily = pgTable(
  "tasks_paid_clients_daily",
  { day: date("day", { mode: "string" }).notNull(), ...clientColumns() },
  (t) => [
    primaryKey({ name: "tasks_paid_clients_daily_pk", columns: [t.day, t.apiKeyId, t.requesterContact] }),
  ],
);

/**
 * `tasks_paid_clients_daily` summed per ISO week (`week`: its Monday, a day in America/Toronto): the
 * whole weeks of a period are read here, its first and last days from the daily rows, so the top
 * clients of 84 days read about 12 rows per client instead of 84.
 */
export const tasksPaidClientsWeekly = pgTable(
  "tasks_paid_clients_weekly",
  { week: date("week", { mode: "string" }).notNull(), ...clientColumns() },
  (t) => [
    primaryKey({ name: "tasks_paid_clients_weekly_pk", columns: [t.week, t.apiKeyId, t.requesterContact] }),
  ],
);

/** Tasks per day of `created_at` and current status (append-only counter): the dashboard's tasks created by status. */
export const tasksCreatedDaily = pgTable(
  "tasks_created_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    status: text("status").notNull(),
    tasks: integer("tasks").notNull(),
    ...counterColumns(),
  },
  (t) => [
    index("tasks_created_daily_day_idx").on(t.day, t.status),
    index("tasks_created_daily_appended_idx").on(t.day).where(sql`not compacted`),
  ],
);

/**
 * Tasks per organization (`org_id` of X-Agent-Identity; tasks without one are left out), day of
 * `created_at` and current status, with the revenue of those already paid (append-only counter): the
 * tasks of `action=org`.
 */
export const tasksOrgDaily = pgTable(
  "tasks_org_daily",
  {
    orgId: text("org_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    status: text("status").notNull(),
    tasks: integer("tasks").notNull(),
    /** Revenue of the rows' tasks with a `paid_at` (CAD). */
    paidRevenueCad: cad("paid_revenue_cad").notNull(),
    ...counterColumns(),
  },
  (t) => [
    index("tasks_org_daily_org_id_day_idx").on(t.orgId, t.day, t.status),
    index("tasks_org_daily_appended_idx").on(t.day).where(sql`not compacted`),
  ],
);

/**
 * Version counters of roll-ups whose closed part readers keep in memory (docs/decisions.md 25):
 * `tasks_paid_clients` is raised by the triggers of migration 0033 whenever a statement changes a
 * row of `tasks_paid_clients_daily` or `tasks_paid_clients_weekly` in an ISO week that ended before
 * today (America/Toronto), and by those of migration 0034 when a key's contact changes or a key is
 * deleted (the kept sums are per client, the key's contact; decision 26). A write to the current
 * week (every payment) leaves it alone, so it is no hot row; a write to a closed week (a refund, an
 * erasure, a corrected charge) makes every cached sum of closed weeks stale at once.
 */
export const rollupVersions = pgTable("rollup_versions", {
  name: text("name").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
});

import { bigint, date, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";

/**
 * Daily roll-ups of the activity log (issue 32 item 4; docs/decisions.md 21): what the analytics
 * read instead of the raw rows. `day` is the calendar day of the request in America/Toronto (the
 * analytics' periods are whole days there, so a period is an exact set of roll-up days).
 *
 * Kept by database triggers on `activity_log` (migration 0025_activity_rollup_triggers): every
 * INSERT (or COPY), UPDATE and DELETE of log rows adds or subtracts its rows in the same
 * statement's transaction, so a roll-up always equals a recount of the log, the open day
 * included, whichever code path wrote the rows. A roll-up row whose count reaches 0 is deleted.
 *
 * Text dimensions are NOT NULL with `''` standing for a null in the log (a plain unique key, equal
 * joins in the triggers); readers turn `''` back into null.
 */

/**
 * The columns of an agents roll-up row after its period (day or week): the identity, the key and
 * the sums of the log rows they count. A function, so that each table gets its own column objects.
 */
const agentRollupColumns = () => ({
  agentModel: text("agent_model").notNull(),
  /** `''` once erased (Law 25) or when the log has none. */
  agentName: text("agent_name").notNull(),
  orgId: text("org_id").notNull(),
  /** `''`: requests without a key. */
  apiKeyId: text("api_key_id").notNull(),
  requests: integer("requests").notNull(),
  /** Requests answered with an HTTP status ≥ 400. */
  errors: integer("errors").notNull(),
  /** Sum of `latency_ms`, ms. */
  latencyMsSum: bigint("latency_ms_sum", { mode: "number" }).notNull(),
  /** Earliest and latest `at` of the period's rows. */
  firstAt: timestamptz("first_at").notNull(),
  lastAt: timestamptz("last_at").notNull(),
});

/**
 * Requests per day, agent identity (model, name, org) and API key, of the rows whose
 * X-Agent-Identity was valid: `action=agents` and the agents of `action=org`.
 */
export const activityAgentsDaily = pgTable(
  "activity_agents_daily",
  { day: date("day", { mode: "string" }).notNull(), ...agentRollupColumns() },
  (t) => [
    primaryKey({
      name: "activity_agents_daily_pk",
      columns: [t.day, t.agentModel, t.agentName, t.orgId, t.apiKeyId],
    }),
    index("activity_agents_daily_org_id_day_idx").on(t.orgId, t.day),
  ],
);

/**
 * The same sums as `activity_agents_daily` per ISO week (`week`: its Monday, America/Toronto): the
 * daily rows of one week, identity and key summed, `first_at`/`last_at` their earliest and latest.
 * Kept by the same triggers (migration 0031_activity_agents_weekly_triggers); the analytics read
 * the whole weeks of a period here and only the days around them from the daily table, so a
 * 30-day period reads about 5 rows per agent and key instead of 30 (docs/decisions.md 24).
 */
export const activityAgentsWeekly = pgTable(
  "activity_agents_weekly",
  { week: date("week", { mode: "string" }).notNull(), ...agentRollupColumns() },
  (t) => [
    primaryKey({
      name: "activity_agents_weekly_pk",
      columns: [t.week, t.agentModel, t.agentName, t.orgId, t.apiKeyId],
    }),
    index("activity_agents_weekly_org_id_week_idx").on(t.orgId, t.week),
  ],
);

/** Requests per day, organization (`org_id` of X-Agent-Identity, rows without one are left out), method and endpoint. */
export const activityEndpointsDaily = pgTable(
  "activity_endpoints_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    orgId: text("org_id").notNull(),
    method: text("method").notNull(),
    endpoint: text("endpoint").notNull(),
    requests: integer("requests").notNull(),
    /** Requests answered with an HTTP status ≥ 400. */
    errors: integer("errors").notNull(),
  },
  (t) => [
    primaryKey({
      name: "activity_endpoints_daily_pk",
      columns: [t.orgId, t.day, t.method, t.endpoint],
    }),
  ],
);

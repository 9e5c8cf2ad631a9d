import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";

/**
 * One row per API request: per-key and per-organization analytics, compliance exports
 * and the request-volume alert. No foreign keys, so logging never fails a request and
 * rows outlive what they name.
 *
 * Partitioned by month of `at` (migrations 0026-0027, lib/privacy/activity-partitions.ts): the primary
 * key includes the partition key, as PostgreSQL requires; `id` alone stays unique in practice (one
 * sequence), and nothing references it.
 *
 * Two btree indexes are written for every row, the least a row can cost (migration 0035,
 * docs/decisions.md 27): the primary key `(at, id)`, which also serves every read by time
 * (retention oldest first, the privacy export and erasure paging by `(at, id)`), and the partial
 * per-key and per-organization indexes, which hold only the rows that name a key or an organization:
 * every reader looks rows up by one (`api_key_id = …`, `IN (…)`, `org_id = …`, which imply NOT
 * NULL, so the planner uses them). An anonymous public read's row, most of the traffic, writes the
 * primary key's entry alone.
 */
export const activityLog = pgTable(
  "activity_log",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    at: timestamptz("at").notNull().defaultNow(),
    requestId: text("request_id"),
    apiKeyId: text("api_key_id"),
    /** Client IP. */
    ip: text("ip"),
    method: text("method").notNull(),
    /** Route path without the query string, e.g. `/api/submit-task`. */
    endpoint: text("endpoint").notNull(),
    /** HTTP status of the response. */
    status: integer("status").notNull(),
    latencyMs: integer("latency_ms").notNull(),
    /** Parts of `X-Agent-Identity` (`{model}/{agent_name}/{org_id}`). */
    agentModel: text("agent_model"),
    agentName: text("agent_name"),
    orgId: text("org_id"),
    /** Whether `X-Agent-Identity` was well formed; null when absent. */
    identityValid: boolean("identity_valid"),
    /**
     * The W3C Trace Context `traceparent` the request carried (its HTTP header, or an MCP request's
     * `params._meta.traceparent`), when well formed; null otherwise (lib/http/trace.ts).
     */
    traceparent: text("traceparent"),
  },
  (t) => [
    primaryKey({ columns: [t.at, t.id] }),
    index("activity_log_api_key_id_at_idx").on(t.apiKeyId, t.at).where(sql`${t.apiKeyId} IS NOT NULL`),
    index("activity_log_org_id_at_idx").on(t.orgId, t.at).where(sql`${t.orgId} IS NOT NULL`),
  ],
);

export type ActivityLogEntry = typeof activityLog.$inferSelect;
export type NewActivityLogEntry = typeof activityLog.$inferInsert;

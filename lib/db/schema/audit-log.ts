import { bigserial, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";
import type { ActorKind, AuditAction, Role } from "./enums.js";

/**
 * The audit trail (docs/staff-and-audit.md): one row per task transition, money movement and key
 * or account change, written in the transaction of the change (lib/db/audit.ts) with the actor of
 * the request or job (lib/db/actor.ts). Append-only: no code path updates or deletes a row, and a
 * trigger (migration 0016) refuses UPDATE, DELETE and TRUNCATE. No foreign keys, so rows outlive
 * what they name and nothing elsewhere cascades into them. `details` holds ids, amounts and
 * statuses, never personal information (erasure cannot edit this table).
 */
export const auditLog = pgTable(
  "audit_log",
  {
    /** Increasing: the order of the trail and the key of its cursor. */
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamptz("at").notNull().defaultNow(),
    actorKind: text("actor_kind").$type<ActorKind>().notNull(),
    /** Staff id, API key id (`key_…`), client account id, job name; null for `anonymous`. */
    actorId: text("actor_id"),
    /** The actor's role (`owner` for an admin key); null for requesters and jobs. */
    actorRole: text("actor_role").$type<Role>(),
    action: text("action").$type<AuditAction>().notNull(),
    taskId: text("task_id"),
    /** What was changed besides a task: `account`, `api_key`, `ledger_entry`. */
    targetKind: text("target_kind"),
    targetId: text("target_id"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    /** The request that made the change (`req_…`); null for jobs. */
    requestId: text("request_id"),
  },
  (t) => [
    index("audit_log_at_idx").on(t.at),
    index("audit_log_task_id_idx").on(t.taskId, t.id),
    index("audit_log_actor_idx").on(t.actorKind, t.actorId, t.id),
  ],
);

export type AuditLogEntry = typeof auditLog.$inferSelect;
export type NewAuditLogEntry = typeof auditLog.$inferInsert;

/** Schemas of GET /api/audit-log (docs/staff-and-audit.md): its query and its rows. */
import { z } from "zod";
import { ACTOR_KINDS, AUDIT_ACTIONS, ROLES } from "../db/schema/enums.js";
import { queryNumber } from "../validation.js";

/** Largest page of GET /api/audit-log. */
export const AUDIT_LOG_MAX_LIMIT = 200;

const instant = (what: string) =>
  z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: `${what} (ISO 8601 with offset, e.g. 2026-03-01T00:00:00Z).` });

/** Query of GET /api/audit-log. */
export const auditLogQuerySchema = z
  .object({
    actor_kind: z.enum(ACTOR_KINDS).optional().meta({ description: "Rows of this kind of actor." }),
    actor_id: z.string().trim().min(1).max(100).optional().meta({
      description: "Rows of this actor: staff id, API key id (`key_…`), client account id, job name.",
    }),
    task_id: z.string().trim().min(1).max(64).optional().meta({ description: "Rows about this task." }),
    action: z.enum(AUDIT_ACTIONS).optional().meta({ description: "Rows of this action." }),
    from: instant("Rows at or after this instant"),
    to: instant("Rows before this instant"),
    cursor: z
      .string()
      .max(100)
      .optional()
      .meta({ description: "`next_cursor` of the previous page, unchanged." }),
    limit: queryNumber().pipe(z.number().int().min(1).max(AUDIT_LOG_MAX_LIMIT)).optional().default(50),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    path: ["to"],
    message: "must be after from",
  });
export type AuditLogQuery = z.output<typeof auditLogQuerySchema>;

/** One row of the audit trail. */
export const auditLogEntrySchema = z
  .object({
    id: z.string().meta({ description: "Increasing row id (decimal)." }),
    at: z.string(),
    actor: z.object({
      kind: z.enum(ACTOR_KINDS),
      id: z.string().nullable(),
      role: z
        .enum(ROLES)
        .nullable()
        .meta({ description: "`owner` for an admin key; null for requesters and jobs." }),
    }),
    action: z.enum(AUDIT_ACTIONS),
    task_id: z.string().nullable(),
    target: z
      .object({ kind: z.string(), id: z.string().nullable() })
      .nullable()
      .meta({ description: "What changed besides a task: `account`, `api_key`, `ledger_entry`." }),
    details: z.record(z.string(), z.unknown()),
    request_id: z.string().nullable(),
  })
  .meta({ id: "AuditLogEntry" });
export type AuditLogEntryView = z.output<typeof auditLogEntrySchema>;

/** Answer of GET /api/audit-log. */
export const auditLogPageSchema = z.object({
  entries: z.array(auditLogEntrySchema).meta({ description: "Newest first." }),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: "Pass as `cursor` for the next page; null at the end." }),
});
export type AuditLogPage = z.output<typeof auditLogPageSchema>;

/**
 * Reading the audit trail (GET /api/audit-log, permission `audit.read`; docs/staff-and-audit.md):
 * newest first, filtered by actor, task, action and time, paged by an opaque cursor (the last row's
 * id: rows only ever get added, so a page never shifts).
 */
import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { type AuditLogEntry, auditLog } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { AuditLogEntryView, AuditLogPage, AuditLogQuery } from "./schemas.js";

const CURSOR_PREFIX = "al1:";

function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`, "utf8").toString("base64url");
}

/**
 * The row id a cursor of `encodeCursor` carries.
 * @throws DomainError VALIDATION_ERROR (field `cursor`) for anything else
 */
function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const id = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new DomainError(
      "VALIDATION_ERROR",
      "Invalid cursor: pass next_cursor of the previous page unchanged",
      {
        field: "cursor",
      },
    );
  }
  return id;
}

/** One row as GET /api/audit-log shows it. */
function entryView(row: AuditLogEntry): AuditLogEntryView {
  return {
    id: String(row.id),
    at: row.at.toISOString(),
    actor: { kind: row.actorKind, id: row.actorId, role: row.actorRole },
    action: row.action,
    task_id: row.taskId,
    target: row.targetKind ? { kind: row.targetKind, id: row.targetId } : null,
    details: row.details,
    request_id: row.requestId,
  };
}

/**
 * One page of the audit trail matching `query`.
 * @returns the rows, newest first, and the cursor of the next page (null when none is left)
 * @throws DomainError VALIDATION_ERROR (a cursor this function did not make)
 */
export async function listAuditLog(query: AuditLogQuery): Promise<AuditLogPage> {
  const conditions: (SQL | undefined)[] = [
    query.actor_kind ? eq(auditLog.actorKind, query.actor_kind) : undefined,
    query.actor_id ? eq(auditLog.actorId, query.actor_id) : undefined,
    query.task_id ? eq(auditLog.taskId, query.task_id) : undefined,
    query.action ? eq(auditLog.action, query.action) : undefined,
    query.from ? gte(auditLog.at, new Date(query.from)) : undefined,
    query.to ? lt(auditLog.at, new Date(query.to)) : undefined,
    query.cursor ? lt(auditLog.id, decodeCursor(query.cursor)) : undefined,
  ];
  const db = await getDb();
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    entries: page.map(entryView),
    next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]!.id) : null,
  };
}

/**
 * The audit writer (docs/staff-and-audit.md): one `audit_log` row per change, written with the
 * transaction `tx` of the change itself (so a rollback leaves no row and a commit always leaves
 * one), attributed to the current actor (lib/db/actor.ts). Rows are only ever inserted: the table
 * refuses UPDATE, DELETE and TRUNCATE (migration 0016).
 */
import { currentActor } from "./actor.js";
import { bulkInsert } from "./bulk.js";
import { auditLog, type NewAuditLogEntry } from "./schema/audit-log.js";
import type { AuditAction } from "./schema/enums.js";
import type { Tx } from "./types.js";

/** What a change records; the actor, time and request id are added. */
export interface AuditRecord {
  action: AuditAction;
  taskId?: string | null;
  /** `account`, `api_key`, `ledger_entry`. */
  targetKind?: string;
  targetId?: string;
  /** Ids, amounts, statuses: never personal information. */
  details?: Record<string, unknown>;
}

function row(record: AuditRecord): NewAuditLogEntry {
  const { actor, requestId } = currentActor();
  return {
    actorKind: actor.kind,
    actorId: actor.id,
    actorRole: actor.role,
    action: record.action,
    taskId: record.taskId ?? null,
    targetKind: record.targetKind ?? null,
    targetId: record.targetId ?? null,
    details: record.details ?? {},
    requestId,
  };
}

/**
 * Records `records` (in order) in `tx`, the transaction of the change they describe.
 * @throws the database's errors (the change then rolls back with it)
 */
export async function recordAudit(tx: Tx, ...records: AuditRecord[]): Promise<void> {
  if (records.length === 0) return;
  if (records.length === 1) await tx.insert(auditLog).values(row(records[0]!));
  else await bulkInsert(tx, auditLog, records.map(row)); // a batch of any size: one parameter
}

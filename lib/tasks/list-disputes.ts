/**
 * Reading disputes (issue 27): the staff queue (GET /api/disputes, permission `disputes.read`),
 * the staff view of one dispute (also the answer of POST /api/dispute-resolve) and the owner's
 * summary in the task's status view (lib/tasks/task-view.ts reads it with {@link latestDispute}).
 */
import { asc, eq, inArray, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { disputeFiles, type TaskDispute, taskDisputes } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { formatUsdc } from "../money.js";
import type { ListDisputesQuery } from "./state/dispute-schemas.js";
import { disputeSummary } from "./state/dispute-view.js";

/** Metadata of one evidence file: name, type, size (bytes), SHA-256 (hex), and its content (base64) when read. */
export interface EvidenceFile {
  filename: string;
  type: string;
  size: number;
  sha256: string;
  content?: string;
}

/**
 * The evidence files of `disputeIds`, in upload order, by dispute id: metadata, and with
 * `withContent` each file's content (base64) too.
 */
export async function evidenceFilesOf(
  disputeIds: string[],
  withContent = false,
): Promise<Map<string, EvidenceFile[]>> {
  const out = new Map<string, EvidenceFile[]>();
  if (disputeIds.length === 0) return out;
  const db = await getDb();
  const rows = await db
    .select({
      disputeId: disputeFiles.disputeId,
      filename: disputeFiles.filename,
      type: disputeFiles.mimeType,
      size: disputeFiles.sizeBytes,
      sha256: disputeFiles.sha256,
      ...(withContent ? { bytes: disputeFiles.content } : {}),
    })
    .from(disputeFiles)
    .where(inArray(disputeFiles.disputeId, disputeIds))
    .orderBy(asc(disputeFiles.position));
  for (const { disputeId, bytes, ...f } of rows as ((typeof rows)[number] & { bytes?: Uint8Array })[]) {
    const file: EvidenceFile = bytes ? { ...f, content: Buffer.from(bytes).toString("base64") } : f;
    out.set(disputeId, [...(out.get(disputeId) ?? []), file]);
  }
  return out;
}

/** `dispute` as staff see it: the summary, the task, the details, the evidence files' metadata. */
export function disputeStaffView(dispute: TaskDispute, files: EvidenceFile[]): Record<string, unknown> {
  return {
    ...disputeSummary(dispute),
    task_id: dispute.taskId,
    details: dispute.details,
    evidence_files: files,
    refund_usdc: dispute.refundUsdcMicro === null ? null : formatUsdc(dispute.refundUsdcMicro),
  };
}

/** `dispute` as staff see it, with its evidence files read. */
export async function readDisputeStaffView(dispute: TaskDispute): Promise<Record<string, unknown>> {
  return disputeStaffView(dispute, (await evidenceFilesOf([dispute.id])).get(dispute.id) ?? []);
}

/**
 * The disputes of the staff queue: open first, then oldest first; filtered by `status`; at most
 * `limit`. With `dispute_id`: that one dispute, its evidence files with their content (base64).
 * @throws DomainError NOT_FOUND (`dispute_id` names no dispute)
 */
export async function listDisputes(
  query: ListDisputesQuery,
): Promise<{ disputes: Record<string, unknown>[] }> {
  const db = await getDb();
  if (query.dispute_id) {
    const [dispute] = await db.select().from(taskDisputes).where(eq(taskDisputes.id, query.dispute_id));
    if (!dispute)
      throw new DomainError("NOT_FOUND", `No dispute ${query.dispute_id}`, { field: "dispute_id" });
    const files = (await evidenceFilesOf([dispute.id], true)).get(dispute.id) ?? [];
    return { disputes: [disputeStaffView(dispute, files)] };
  }
  const rows = await db
    .select()
    .from(taskDisputes)
    .where(query.status ? eq(taskDisputes.status, query.status) : undefined)
    .orderBy(sql`${taskDisputes.status} = 'open' desc`, asc(taskDisputes.openedAt), asc(taskDisputes.id))
    .limit(query.limit);
  const files = await evidenceFilesOf(rows.map((r) => r.id));
  return { disputes: rows.map((r) => disputeStaffView(r, files.get(r.id) ?? [])) };
}

/**
 * Execution (POST /api/task-complete): dispatch, on-site, complete with proof files,
 * or fail. Proof files are decoded and checked by content (lib/tasks/state/proof-files) and
 * stored in the same transaction as the status change and its event. Completion and failure
 * sign the task's receipt (lib/receipts) in that transaction too; the event carries it, and the
 * completion event the files' sizes and SHA-256; photos' capture metadata is stored with them.
 */
import { proofFiles } from "../../db/schema/index.js";
import { readCapture } from "../../receipts/capture.js";
import { issueReceipt } from "../../receipts/receipt.js";
import type { CompleteTaskBody } from "./admin-schemas.js";
import { applyTransition, type TransitionResult } from "./apply-transition.js";
import { decodeProofFiles, proofFileRows } from "./proof-files.js";

/**
 * Applies an execution step.
 * @throws DomainError NOT_FOUND, CONFLICT (wrong status), INVALID_FORMAT / VALIDATION_ERROR / PAYLOAD_TOO_LARGE (proof files)
 */
export async function executeTask(body: CompleteTaskBody, now = new Date()): Promise<TransitionResult> {
  switch (body.action) {
    case "dispatch":
      return applyTransition(body.task_id, "dispatch", {
        changes: () => ({
          dispatchedAt: now,
          ...(body.operator_notes ? { operatorNotes: body.operator_notes } : {}),
        }),
      });
    case "on_site":
      return applyTransition(body.task_id, "arrive", {
        changes: () => ({
          onSiteAt: now,
          ...(body.operator_notes ? { operatorNotes: body.operator_notes } : {}),
        }),
      });
    case "fail":
      return applyTransition(body.task_id, "fail", {
        changes: async (task) => {
          const changes = {
            failureReason: body.reason ?? "The operator could not complete the task",
            operatorNotes: body.operator_notes ?? null,
          };
          return { ...changes, receipt: await issueReceipt({ ...task, ...changes }, "failed", [], now) };
        },
        payload: (t) => ({ reason: t.failureReason, receipt: t.receipt }),
      });
    case "complete": {
      const files = await decodeProofFiles(body.proof_files ?? [], "proof_files");
      return applyTransition(body.task_id, "complete", {
        changes: async (task) => {
          const changes = { completedAt: now, operatorNotes: body.operator_notes ?? null };
          const proof = files.map((f) => ({ sha256: f.sha256, size: f.sizeBytes, type: f.mimeType }));
          return {
            ...changes,
            receipt: await issueReceipt({ ...task, ...changes }, "completed", proof, now),
          };
        },
        after: async (task, tx) => {
          if (!files.length) return;
          // Capture time and place of photos vs. the task (flags only; lib/receipts/capture.ts).
          const context = {
            coordinates:
              (task.location as { coordinates?: [number, number] | null } | null)?.coordinates ?? null,
            windowStart: task.dispatchedAt ?? task.paidAt,
            windowEnd: now,
          };
          const captures = await Promise.all(files.map((f) => readCapture(f.bytes, f.mimeType, context)));
          const rows = proofFileRows(task.id, files).map((r, i) => ({ ...r, capture: captures[i] ?? null }));
          await tx.insert(proofFiles).values(rows);
        },
        payload: (t) => ({
          completed_at: t.completedAt?.toISOString(),
          operator_notes: t.operatorNotes,
          proof_files_count: files.length,
          proof_files: files.map((f) => ({
            filename: f.filename,
            type: f.mimeType,
            size: f.sizeBytes,
            sha256: f.sha256,
          })),
          receipt: t.receipt,
        }),
      });
    }
  }
}

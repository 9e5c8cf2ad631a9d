/**
 * Execution (POST /api/task-complete): dispatch, on-site, complete with proof files,
 * or fail. Proof files are decoded and checked by content (lib/tasks/state/proof-files) and
 * stored in the same transaction as the status change and its event.
 */
import { proofFiles } from "../../db/schema/index.js";
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
        changes: () => ({
          failureReason: body.reason ?? "The operator could not complete the task",
          operatorNotes: body.operator_notes ?? null,
        }),
        payload: (t) => ({ reason: t.failureReason }),
      });
    case "complete": {
      const files = await decodeProofFiles(body.proof_files ?? [], "proof_files");
      return applyTransition(body.task_id, "complete", {
        changes: () => ({ completedAt: now, operatorNotes: body.operator_notes ?? null }),
        after: async (task, tx) => {
          if (files.length) await tx.insert(proofFiles).values(proofFileRows(task.id, files));
        },
        payload: (t) => ({
          completed_at: t.completedAt?.toISOString(),
          operator_notes: t.operatorNotes,
          proof_files_count: files.length,
        }),
      });
    }
  }
}

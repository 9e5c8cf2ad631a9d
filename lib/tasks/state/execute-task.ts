/**
 * Execution (POST /api/task-complete): dispatch, on-site, complete with proof files,
 * or fail. Proof files are decoded and checked by content (lib/tasks/state/proof-files) and
 * stored in the same transaction as the status change and its event. Completion and failure
 * sign the task's receipt (lib/receipts) in that transaction too; the event carries it, and the
 * completion event the files' sizes and SHA-256; photos' capture metadata is stored with them.
 *
 * Files uploaded from the field before completion (POST /api/field-proof, one per request) are
 * already attached to the task: completion lists them first (upload order), then the files of its
 * own body, in the receipt's `proof` and the event's `proof_files`. The task's site visit (if any)
 * goes into the receipt and the completion event (`site_visit`, issue 26 item 6).
 *
 * A staff member restricted to its assignments (`field`, lib/tasks/state/task-access.ts
 * `assigneeOnly`) may act only on a task assigned to it: checked on the locked row.
 */
import { asc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.js";
import { proofFiles, type SiteVisit, type Task } from "../../db/schema/index.js";
import { type CaptureContext, readCapture } from "../../receipts/capture.js";
import { issueReceipt, type ReceiptProof } from "../../receipts/receipt.js";
import type { CompleteTaskBody } from "./admin-schemas.js";
import { applyTransition, type TransitionResult } from "./apply-transition.js";
import { decodeProofFiles, proofFileRows } from "./proof-files.js";
import { readSiteVisit, siteVisitView } from "./site-visit.js";
import { assertAssignee, type TaskPrincipal } from "./task-access.js";

/** Who acts (the request's caller), when it matters: a `field` staff member must be the assignee. */
export interface ExecuteOptions {
  caller?: Pick<TaskPrincipal, "role" | "staff"> | null;
}

/**
 * What the capture metadata of a proof photo of `task` is compared with: its place, dispatch (else
 * payment) to `windowEnd`, and the site visit's check-in when there is one.
 */
export function captureContextOf(task: Task, windowEnd: Date, visit: SiteVisit | null): CaptureContext {
  return {
    coordinates: (task.location as { coordinates?: [number, number] | null } | null)?.coordinates ?? null,
    windowStart: task.dispatchedAt ?? task.paidAt,
    windowEnd,
    ...(visit ? { checkedInAt: visit.checkedInAt } : {}),
  };
}

/** The proof files already attached to task `taskId` (uploaded from the field), in upload order. */
async function attachedProof(tx: Tx, taskId: string) {
  return tx
    .select({
      filename: proofFiles.filename,
      type: proofFiles.mimeType,
      size: proofFiles.sizeBytes,
      sha256: proofFiles.sha256,
    })
    .from(proofFiles)
    .where(eq(proofFiles.taskId, taskId))
    .orderBy(asc(proofFiles.createdAt), asc(proofFiles.position), asc(proofFiles.id));
}

/**
 * Applies an execution step.
 * @throws DomainError NOT_FOUND, FORBIDDEN (a field staff member on a task not assigned to it), CONFLICT (wrong status), INVALID_FORMAT / VALIDATION_ERROR / PAYLOAD_TOO_LARGE (proof files)
 */
export async function executeTask(
  body: CompleteTaskBody,
  now = new Date(),
  { caller }: ExecuteOptions = {},
): Promise<TransitionResult> {
  const guard = (task: Task) => assertAssignee(task, caller);
  switch (body.action) {
    case "dispatch":
      return applyTransition(body.task_id, "dispatch", {
        guard,
        changes: () => ({
          dispatchedAt: now,
          ...(body.operator_notes ? { operatorNotes: body.operator_notes } : {}),
        }),
      });
    case "on_site":
      return applyTransition(body.task_id, "arrive", {
        guard,
        changes: () => ({
          onSiteAt: now,
          ...(body.operator_notes ? { operatorNotes: body.operator_notes } : {}),
        }),
      });
    case "fail": {
      let visit: ReturnType<typeof siteVisitView> = null;
      return applyTransition(body.task_id, "fail", {
        guard,
        changes: async (task, tx) => {
          const changes = {
            failureReason: body.reason ?? "The operator could not complete the task",
            operatorNotes: body.operator_notes ?? null,
          };
          visit = siteVisitView(await readSiteVisit(task.id, tx));
          return {
            ...changes,
            receipt: await issueReceipt({ ...task, ...changes }, "failed", [], now, visit),
          };
        },
        payload: (t) => ({ reason: t.failureReason, receipt: t.receipt, site_visit: visit }),
      });
    }
    case "complete": {
      const files = await decodeProofFiles(body.proof_files ?? [], "proof_files");
      let attached: (ReceiptProof & { filename: string })[] = [];
      let visit: SiteVisit | null = null;
      return applyTransition(body.task_id, "complete", {
        guard,
        changes: async (task, tx) => {
          const changes = { completedAt: now, operatorNotes: body.operator_notes ?? null };
          [attached, visit] = await Promise.all([attachedProof(tx, task.id), readSiteVisit(task.id, tx)]);
          const proof = [
            ...attached,
            ...files.map((f) => ({ sha256: f.sha256, size: f.sizeBytes, type: f.mimeType })),
          ];
          return {
            ...changes,
            receipt: await issueReceipt(
              { ...task, ...changes },
              "completed",
              proof,
              now,
              siteVisitView(visit),
            ),
          };
        },
        after: async (task, tx) => {
          if (!files.length) return;
          // Capture time and place of photos vs. the task (flags only; lib/receipts/capture.ts).
          const context = captureContextOf(task, now, visit);
          const captures = await Promise.all(files.map((f) => readCapture(f.bytes, f.mimeType, context)));
          const rows = proofFileRows(task.id, files).map((r, i) => ({ ...r, capture: captures[i] ?? null }));
          await tx.insert(proofFiles).values(rows);
        },
        payload: (t) => ({
          completed_at: t.completedAt?.toISOString(),
          operator_notes: t.operatorNotes,
          proof_files_count: attached.length + files.length,
          proof_files: [
            ...attached.map((f) => ({ filename: f.filename, type: f.type, size: f.size, sha256: f.sha256 })),
            ...files.map((f) => ({
              filename: f.filename,
              type: f.mimeType,
              size: f.sizeBytes,
              sha256: f.sha256,
            })),
          ],
          site_visit: siteVisitView(visit),
          receipt: t.receipt,
        }),
      });
    }
  }
}

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
 * goes into the receipt and the completion event (`site_visit`, issue 26 item 6), with the
 * service's site-visit rule, enforced at completion (`checkVisitRule`, issue 44 item 1).
 *
 * A staff member restricted to its assignments (`field`, lib/tasks/state/task-access.ts
 * `assigneeOnly`) may act only on a task assigned to it: checked on the locked row.
 */
import { asc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.js";
import { proofFiles, type SiteVisit, type Task } from "../../db/schema/index.js";
import { DomainError } from "../../errors.js";
import { type CaptureContext, readCapture } from "../../receipts/capture.js";
import { issueReceipt, type ReceiptProof } from "../../receipts/receipt.js";
import type { CompleteTaskBody } from "./admin-schemas.js";
import { applyTransition, type TransitionResult } from "./apply-transition.js";
import { decodeProofFiles, proofFileRows } from "./proof-files.js";
import { readSiteVisit, siteVisitView } from "./site-visit.js";
import { assertAssignee, assigneeOnly, type TaskPrincipal } from "./task-access.js";
import { type VisitRuleView, visitRuleOf, visitRuleView } from "./visit-rules.js";

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

/**
 * Enforces the site-visit rule of `task`'s service at completion (issue 44 item 1;
 * docs/staff-and-audit.md "Visit rules"). A `required` rule with no visit: a person restricted to
 * their assignments (`field`) is refused (409 CONFLICT, `missing: "check_in"`: they check in, even
 * outside the fence with a reason); anyone else (owner, admin key) must give `noVisitReason` (422
 * VALIDATION_ERROR on `no_visit_reason`). A sandbox task is simulated and never refused. A
 * `no_visit_reason` given while the task has a visit contradicts it (422).
 * @returns the rule's view to store and sign (the reason kept only when there is no visit)
 * @throws DomainError CONFLICT, VALIDATION_ERROR
 */
export function checkVisitRule(
  task: Pick<Task, "id" | "serviceType" | "sandbox">,
  visit: Pick<SiteVisit, "withinGeofence"> | null,
  noVisitReason: string | undefined,
  caller: ExecuteOptions["caller"],
): VisitRuleView {
  const rule = visitRuleOf(task.serviceType);
  if (visit && noVisitReason) {
    throw new DomainError(
      "VALIDATION_ERROR",
      `Task ${task.id} has a site visit: no_visit_reason is only for a completion without one`,
      { field: "no_visit_reason" },
    );
  }
  if (!visit && rule === "required" && !task.sandbox) {
    const facts = { site_visit_rule: rule, missing: "check_in", service_type: task.serviceType };
    if (assigneeOnly(caller)) {
      throw new DomainError(
        "CONFLICT",
        `Task ${task.id} (${task.serviceType}) requires a site visit: check in at the address first ` +
          "(from elsewhere, give a reason for the distance)",
        { field: "task_id", extra: facts },
      );
    }
    if (!noVisitReason) {
      throw new DomainError(
        "VALIDATION_ERROR",
        `Task ${task.id} (${task.serviceType}) requires a site visit and has none: give no_visit_reason ` +
          "to complete it without one (flagged NO_SITE_VISIT)",
        { field: "no_visit_reason", extra: facts },
      );
    }
  }
  return visitRuleView(rule, "completed", visit, visit ? null : (noVisitReason ?? null));
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
 * @throws DomainError NOT_FOUND, FORBIDDEN (a field staff member on a task not assigned to it), CONFLICT (wrong status; a field person completing a task that requires a visit without one), VALIDATION_ERROR (no_visit_reason missing or contradicting a visit), INVALID_FORMAT / VALIDATION_ERROR / PAYLOAD_TOO_LARGE (proof files)
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
      let rule: VisitRuleView | null = null;
      return applyTransition(body.task_id, "fail", {
        guard,
        changes: async (task, tx) => {
          const changes = {
            failureReason: body.reason ?? "The operator could not complete the task",
            operatorNotes: body.operator_notes ?? null,
          };
          const row = await readSiteVisit(task.id, tx);
          visit = siteVisitView(row);
          rule = visitRuleView(visitRuleOf(task.serviceType), "failed", row, null);
          return {
            ...changes,
            visitRule: rule.rule,
            receipt: await issueReceipt({ ...task, ...changes }, "failed", [], now, visit, rule),
          };
        },
        payload: (t) => ({
          reason: t.failureReason,
          receipt: t.receipt,
          site_visit: visit,
          visit_rule: rule,
        }),
      });
    }
    case "complete": {
      const files = await decodeProofFiles(body.proof_files ?? [], "proof_files");
      let attached: (ReceiptProof & { filename: string })[] = [];
      let visit: SiteVisit | null = null;
      let rule: VisitRuleView | null = null;
      return applyTransition(body.task_id, "complete", {
        guard,
        changes: async (task, tx) => {
          [attached, visit] = await Promise.all([attachedProof(tx, task.id), readSiteVisit(task.id, tx)]);
          rule = checkVisitRule(task, visit, body.no_visit_reason, caller);
          const changes = {
            completedAt: now,
            operatorNotes: body.operator_notes ?? null,
            visitRule: rule.rule,
            noVisitReason: rule.no_visit_reason ?? null,
          };
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
              rule,
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
          visit_rule: rule,
          receipt: t.receipt,
        }),
      });
    }
  }
}

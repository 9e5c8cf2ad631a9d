/**
 * Sandbox auto-advance (docs/api-conventions.md): a sandbox task moves one step per status poll,
 * `received` → `accepted_pending_payment` → `paid` → `dispatched` → `completed`, through
 * the same state machine (events included); completion carries one generated proof
 * image. Sandbox never e-mails, never touches a chain and never bills.
 */
import type { Task } from "../db/schema/index.js";
import { isDomainError } from "../errors.js";
import { reviewTask } from "./review-task.js";
import { sampleProofPng } from "./sample-proof.js";
import { getTaskOrThrow } from "./state/apply-transition.js";
import { executeTask } from "./state/execute-task.js";
import { recordPayment } from "./state/record-payment.js";

/** Advances sandbox task `task` by one step; returns the task as it now is. */
export async function advanceSandboxTask(task: Task): Promise<Task> {
  if (!task.sandbox) return task;
  try {
    switch (task.status) {
      case "received":
        return (
          await reviewTask({
            task_id: task.id,
            action: "approve",
            operator_notes: "Sandbox: approved automatically",
          })
        ).task;
      case "accepted_pending_payment":
      case "counter_offered":
        return (await recordPayment(task.id, { method: "manual", note: "Sandbox: simulated payment" })).task;
      case "paid":
        return (await executeTask({ task_id: task.id, action: "dispatch" })).task;
      case "dispatched":
      case "on_site": {
        const proof = sampleProofPng(task.id);
        return (
          await executeTask({
            task_id: task.id,
            action: "complete",
            operator_notes: "Sandbox: simulated completion with a generated proof image.",
            proof_files: [
              { filename: proof.filename, type: proof.mimeType, content: proof.bytes.toString("base64") },
            ],
          })
        ).task;
      }
      default:
        return task;
    }
  } catch (error) {
    // Two polls racing: the other one advanced it; show the current state.
    if (isDomainError(error, "CONFLICT")) return getTaskOrThrow(task.id);
    throw error;
  }
}

/**
 * The pay page of a task awaiting payment (`/pay/#task_id=…&pay_token=…`; docs/x402.md "The pay
 * page"): where a person pays a task their agent submitted. An MCP client that declared URL
 * elicitation is sent there from `tasks/result` (lib/mcp/task-methods.ts); the page reads
 * GET /api/task-pay with the pay token and shows the exact amount, the networks and wallets, the
 * x402 URL and the payment deadline, then follows the task until it is paid.
 *
 * The link itself (`payPageUrl`) is made in lib/payments/pay-link.ts, where the e-mail dispatcher
 * can reach it. The pay token is a purpose-bound JWT (lib/auth/jwt.ts, audience "task-pay",
 * subject the task id, expiring with the task's payment window, at most `PAY_TOKEN_MAX_SECONDS`):
 * it shows the payment block of that one task and nothing else (no content, no address, no proof), so the URL
 * carries no credential to the task itself (MCP 2025-11-25, "URL mode elicitation": no credentials
 * or personal information in the URL).
 */
import { DomainError } from "../errors.js";
import { PAY_TOKEN_AUDIENCE } from "../payments/pay-link.js";
import { getTaskOrThrow } from "./state/apply-transition.js";
import { type TaskCredential, taskAccess } from "./state/task-access.js";
import { awaitsPayment } from "./state/transitions.js";
import { paymentView } from "./task-view.js";

/**
 * What the pay page shows of task `taskId`: its status and service, the payment block of its
 * status (method, CAD and exact USDC amounts, networks and wallets, x402 URL, deadline, payment
 * once made). Readable with a pay token made for this task, or by its owner or an admin.
 * @throws DomainError NOT_FOUND (unknown task; a stranger; a pay token forged, expired or of
 *   another task: all look alike, as for any task read)
 */
export async function payPageView(
  taskId: string,
  credential: TaskCredential,
  payToken: string | undefined,
): Promise<Record<string, unknown>> {
  const task = await getTaskOrThrow(taskId);
  let allowed = false;
  if (payToken) {
    const { verifyPurposeToken } = await import("../auth/jwt.js");
    const claims = await verifyPurposeToken(payToken, PAY_TOKEN_AUDIENCE);
    allowed = claims?.sub === task.id;
  }
  if (!allowed) allowed = (await taskAccess(task, credential)) !== "public";
  if (!allowed) throw new DomainError("NOT_FOUND", `No task ${taskId}`, { field: "task_id" });
  return {
    task_id: task.id,
    status: task.status,
    service_type: task.serviceType,
    sandbox: task.sandbox,
    awaiting_payment: awaitsPayment(task),
    payment: paymentView(task),
  };
}

/**
 * GET /api/task-pay?task_id=…&pay_token=… — how to pay a task (the pay page's read; lib/tasks/pay-page.ts).
 *
 * POST /api/task-pay?task_id=… — pay a task awaiting payment with x402 (docs/x402.md; x402
 * specification v2 "HTTP transport", v1 for `X-PAYMENT`). The flow is lib/payments/x402/pay-task.ts;
 * this adapter reads the payment header and writes x402's answers:
 *
 * - 402: the `PAYMENT-REQUIRED` header (v2, base64 JSON) and a body that is our error envelope
 *   (`error.code` PAYMENT_REQUIRED, `error.invalid_reason` for a refused payment) plus x402 v1's
 *   `x402Version: 1` and `accepts[]`: one body serves our clients and v1 x402 clients alike (the
 *   envelope's members and x402's do not collide; docs/decisions.md "x402 at the payment step").
 * - 202 + Retry-After while a settlement is in flight.
 * - 200: the task status, with `PAYMENT-RESPONSE` (v2) or `X-PAYMENT-RESPONSE` (v1), base64 JSON.
 */
import { isDomainError } from "../lib/errors.js";
import { endpoint, route } from "../lib/http/handler.js";
import { json } from "../lib/http/response.js";
import { presentedAccessToken } from "../lib/keys/credentials.js";
import { payTaskOperation, readTaskPaymentOperation } from "../lib/payments/operations.js";
import type { PaymentPresentation } from "../lib/payments/x402/pay-task.js";
import type { TaskPaymentRequired } from "../lib/payments/x402/protocol.js";

/** Base64 of the JSON of `value` (x402 header encoding). */
const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64");

/** The payment the request presents: `PAYMENT-SIGNATURE` (v2) wins over `X-PAYMENT` (v1). */
function presentation(request: Request): PaymentPresentation | undefined {
  const v2 = request.headers.get("payment-signature");
  if (v2?.trim()) return { raw: v2, version: 2 };
  const v1 = request.headers.get("x-payment");
  if (v1?.trim()) return { raw: v1, version: 1 };
  return undefined;
}

/** The 402 answer: envelope + x402 v1 body, x402 v2 header. */
function paymentRequired(
  required: TaskPaymentRequired,
  requestId: string,
  message: string,
  reason?: string,
): Response {
  return json(
    {
      error: {
        code: "PAYMENT_REQUIRED",
        message,
        field: "payment",
        details: [],
        ...(reason ? { invalid_reason: reason } : {}),
      },
      request_id: requestId,
      ...required.v1,
    },
    402,
    { "payment-required": base64Json(required.v2) },
  );
}

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(readTaskPaymentOperation, async ({ query, caller, request }) => {
    const { payPageView } = await import("../lib/tasks/pay-page.js");
    const credential = { caller, accessToken: query.access_token ?? presentedAccessToken(request) };
    return payPageView(query.task_id, credential, query.pay_token);
  }),
  POST: endpoint(payTaskOperation, async ({ query, caller, request, requestId }) => {
    const { payTaskWithX402, requiredAfterRefusal } = await import("../lib/payments/x402/pay-task.js");
    const credential = { caller, accessToken: query.access_token ?? presentedAccessToken(request) };
    let outcome: Awaited<ReturnType<typeof payTaskWithX402>>;
    try {
      outcome = await payTaskWithX402(query.task_id, credential, presentation(request));
    } catch (error) {
      if (!isDomainError(error, "PAYMENT_REQUIRED")) throw error;
      const reason = error.extra.invalid_reason as string | undefined;
      const required = await requiredAfterRefusal(query.task_id, reason);
      if (!required) throw error;
      return paymentRequired(required, requestId, error.message, reason);
    }
    if (outcome.kind === "required") {
      return paymentRequired(
        outcome.required,
        requestId,
        "Payment required: sign the EIP-3009 authorization of one of `accepts` and send it as PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1)",
      );
    }
    if (outcome.kind === "in_flight") {
      return json(
        { status: "settlement_in_flight", task_id: outcome.task.id, tx_hash: outcome.txHash },
        202,
        { "retry-after": String(outcome.retryAfterSeconds) },
      );
    }
    const [{ taskAccess }, { taskStatusView }] = await Promise.all([
      import("../lib/tasks/state/task-access.js"),
      import("../lib/tasks/task-view.js"),
    ]);
    const view = await taskStatusView(outcome.task, await taskAccess(outcome.task, credential));
    return json(view, 200, {
      [outcome.version === 1 ? "x-payment-response" : "payment-response"]: base64Json(outcome.response),
    });
  }),
});

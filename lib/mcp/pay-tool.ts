/**
 * The MCP tool `pay_task`: x402 at the payment step over MCP (x402 "Transport: MCP", tool-result
 * binding; docs/x402.md), the same flow as POST /api/task-pay (lib/payments/x402/pay-task.ts):
 *
 * - called without a payment → an `isError` tool result whose `content[0].text` is
 *   `{"x402/error": {"code": 402, "message", "data": PaymentRequired}}` (v2), with no
 *   `structuredContent` (docs/decisions.md 29); a refused payment answers the same with
 *   `error` = x402's reason;
 * - called again with the signed `PaymentPayload` in `params._meta["x402/payment"]` → verified,
 *   settled, the task paid: the task's status (as check_task_status gives it) with the settlement
 *   in `_meta["x402/payment-response"]`;
 * - while a settlement of the task is in flight → `{status: "settlement_in_flight",
 *   retry_after_seconds, tx_hash}` (call again after that many seconds).
 *
 * Other failures (unknown task, not awaiting payment, not the caller's) are the usual `isError`
 * results with the HTTP API's envelope.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isDomainError } from "../errors.js";
import { ApiError } from "../http/errors.js";
import { type Caller, hasScope } from "../keys/credentials.js";
import { mcpTaskStatusSchema, taskToolResult } from "./task-results.js";
import {
  accessTokenArgument,
  actingAs,
  apiKeyArgument,
  errorResult,
  resolveCaller,
  type ToolDefinition,
  writeTool,
} from "./tool-kit.js";

/** The `_meta` key of the client's PaymentPayload (x402 MCP transport). */
export const X402_PAYMENT_META = "x402/payment";
/** The `_meta` key of the server's settlement response (x402 MCP transport). */
export const X402_PAYMENT_RESPONSE_META = "x402/payment-response";

/**
 * The x402 `PaymentRequired` (v2) as an `isError` tool result, as the x402 MCP transport asks:
 * `content[0].text` is `{"x402/error": {"code": 402, "message", "data": PaymentRequired}}`. It has
 * no `structuredContent`, which that transport makes optional: a client validates it against
 * pay_task's `outputSchema` and would throw instead of returning the result (docs/decisions.md 29).
 * Then come the words and, as every failed tool result, the error envelope (code
 * PAYMENT_REQUIRED, the PaymentRequired in `error.x402`) in the last text block and in `_meta`.
 */
function paymentRequiredResult(required: { error?: string }, requestId: string): CallToolResult {
  const reason = required.error ?? "Payment required";
  const message =
    `${reason}: sign one of the requirements in accepts (an EIP-3009 USDC authorization of the exact amount) ` +
    'and call pay_task again with the PaymentPayload in params._meta["x402/payment"]';
  const wrapper = { "x402/error": { code: 402, message: reason, data: required } };
  return errorResult(
    `PAYMENT_REQUIRED: ${message}`,
    { error: { code: "PAYMENT_REQUIRED", message, details: [], x402: required }, request_id: requestId },
    [JSON.stringify(wrapper)],
  );
}

/**
 * The credential a payment acts with: the key when it holds `task_create`, and the task's access
 * token. A key without the scope pays only through the task's own token: it does not lend its
 * ownership to the token, so a token that does not match the task reaches nothing.
 */
export function payingCredential(
  caller: Caller | null,
  accessToken: string | undefined,
): { caller: Caller | null; accessToken: string | undefined } {
  return { caller: caller !== null && hasScope(caller, "task_create") ? caller : null, accessToken };
}

export const PAY_TASK_TOOL: ToolDefinition = {
  name: "pay_task",
  title: "Pay a task with x402",
  description:
    "Pay a task awaiting payment (accepted_pending_payment or counter_offered) with x402: a signed EIP-3009 USDC " +
    "authorization of the exact amount, settled on chain by the service, which pays the gas. Call it without payment: " +
    'the isError result\'s content[0].text is {"x402/error": {"code": 402, "data": PaymentRequired}} (one `exact` ' +
    "requirement per network; also in _meta.error.x402). Sign one " +
    'and call again with the PaymentPayload in params._meta["x402/payment"] (any x402 MCP client does this): the task ' +
    'is paid and the result carries _meta["x402/payment-response"]. Needs the key that submitted the task (scope ' +
    "task_create) or its access_token. Paying by a plain USDC transfer of payment_usdc stays possible.",
  input: {
    task_id: z.string().trim().min(1).max(64).meta({ description: "The task_id returned by submit_task." }),
    access_token: accessTokenArgument,
    api_key: apiKeyArgument,
  },
  output: z.union([
    mcpTaskStatusSchema,
    z.object({
      status: z.literal("settlement_in_flight"),
      task_id: z.string(),
      retry_after_seconds: z.number().int(),
      tx_hash: z.string().nullable(),
    }),
  ]),
  annotations: writeTool("Pay a task with x402", true),
  async run(args, ctx, meta) {
    const caller = await resolveCaller(ctx, args.api_key as string | undefined);
    const accessToken = args.access_token as string | undefined;
    if (!caller && !accessToken) {
      throw new ApiError(
        "UNAUTHORIZED",
        "pay_task needs the key that submitted the task (x-api-key header or api_key) or its access_token",
      );
    }
    const credential = payingCredential(caller, accessToken);
    if (caller && !credential.caller && !accessToken) {
      throw new ApiError("FORBIDDEN", "pay_task requires the task_create scope");
    }
    const { payTaskWithX402, requiredAfterRefusal } = await import("../payments/x402/pay-task.js");
    const taskId = String(args.task_id);
    const payment = meta?.[X402_PAYMENT_META];
    const presentation =
      payment === undefined || payment === null
        ? undefined
        : {
            raw: payment,
            version: ((payment as { x402Version?: unknown }).x402Version === 1 ? 1 : 2) as 1 | 2,
          };
    let outcome: Awaited<ReturnType<typeof payTaskWithX402>>;
    try {
      outcome = await actingAs(caller, () => payTaskWithX402(taskId, credential, presentation));
    } catch (error) {
      if (!isDomainError(error, "PAYMENT_REQUIRED")) throw error;
      const required = await requiredAfterRefusal(taskId, error.extra.invalid_reason as string | undefined);
      if (!required) throw error;
      return paymentRequiredResult(required.v2, ctx.requestId);
    }
    if (outcome.kind === "required") return paymentRequiredResult(outcome.required.v2, ctx.requestId);
    if (outcome.kind === "in_flight") {
      const value = {
        status: "settlement_in_flight" as const,
        task_id: outcome.task.id,
        retry_after_seconds: outcome.retryAfterSeconds,
        tx_hash: outcome.txHash,
      };
      return {
        content: [
          {
            type: "text",
            text: `The settlement of ${outcome.task.id} is in flight; call pay_task again in ${outcome.retryAfterSeconds} s.`,
          },
        ],
        structuredContent: value,
      };
    }
    const [{ taskAccess }, { taskStatusView }] = await Promise.all([
      import("../tasks/state/task-access.js"),
      import("../tasks/task-view.js"),
    ]);
    const access = await taskAccess(outcome.task, credential);
    const view = await taskStatusView(outcome.task, access, undefined, { proofContent: false });
    const result = await taskToolResult(outcome.task, view, access);
    return { ...result, _meta: { ...(result._meta ?? {}), [X402_PAYMENT_RESPONSE_META]: outcome.response } };
  },
};

/**
 * The MCP tool `pay_task`: x402 at the payment step over MCP (x402 "Transport: MCP", tool-result
 * binding; docs/x402.md), the same flow as POST /api/task-pay (lib/payments/x402/pay-task.ts):
 *
 * - called without a payment → an `isError` tool result whose `structuredContent` is the x402
 *   `PaymentRequired` (v2) and whose `content[0].text` is its JSON; a refused payment answers the
 *   same with `error` = x402's reason;
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
import { hasScope } from "../keys/credentials.js";
import { mcpTaskStatusSchema, taskToolResult } from "./task-results.js";
import {
  accessTokenArgument,
  actingAs,
  apiKeyArgument,
  resolveCaller,
  type ToolDefinition,
  writeTool,
} from "./tool-kit.js";

/** The `_meta` key of the client's PaymentPayload (x402 MCP transport). */
export const X402_PAYMENT_META = "x402/payment";
/** The `_meta` key of the server's settlement response (x402 MCP transport). */
export const X402_PAYMENT_RESPONSE_META = "x402/payment-response";

/** The x402 `PaymentRequired` as an `isError` tool result (structuredContent and content[0].text). */
function paymentRequiredResult(required: unknown): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(required) }],
    structuredContent: required as Record<string, unknown>,
  };
}

export const PAY_TASK_TOOL: ToolDefinition = {
  name: "pay_task",
  title: "Pay a task with x402",
  description:
    "Pay a task awaiting payment (accepted_pending_payment or counter_offered) with x402: a signed EIP-3009 USDC " +
    "authorization of the exact amount, settled on chain by the service, which pays the gas. Call it without payment: " +
    "the isError result's structuredContent is the x402 PaymentRequired (one `exact` requirement per network). Sign one " +
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
    if (caller && !accessToken && !hasScope(caller, "task_create")) {
      throw new ApiError("FORBIDDEN", "pay_task requires the task_create scope");
    }
    const { payTaskWithX402, requiredAfterRefusal } = await import("../payments/x402/pay-task.js");
    const taskId = String(args.task_id);
    const credential = { caller, accessToken };
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
      return paymentRequiredResult(required.v2);
    }
    if (outcome.kind === "required") return paymentRequiredResult(outcome.required.v2);
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

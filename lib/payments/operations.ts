/** Operation descriptors of the payments domain: operator views of on-chain transfers, and paying a task with x402. */
import { z } from "zod";
import { TASK_STATUSES } from "../db/schema/enums.js";
import { TASK_ACCESS_TOKEN_HEADER } from "../descriptors/headers.js";
import { defineOperation } from "../descriptors/operation.js";
import { paymentDetailsSchema, taskStatusSchema } from "../tasks/state/view-schemas.js";
import { chainTransfersQuerySchema, chainTransferViewSchema } from "./schemas.js";

export const listChainTransfersOperation = defineOperation({
  id: "listChainTransfers",
  method: "GET",
  path: "/api/chain-transfers",
  summary: "USDC transfers seen by the payment checker, by default those that paid no task (operator)",
  description:
    "Every USDC transfer into a service wallet is kept. `unmatched`: no task awaited that exact amount " +
    "(wrong amount, a task already paid, unknown); `late`: it arrived after the task's payment window; " +
    "`reorged`: the chain dropped it. `reason` explains each; `from` is where a refund goes.",
  tags: ["Operator"],
  auth: "admin",
  permission: "payments.read",
  query: chainTransfersQuerySchema,
  response: z.object({
    transfers: z.array(chainTransferViewSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  errors: ["VALIDATION_ERROR"],
});

/** An x402 payment requirement (`accepts[]` of x402 v2's PaymentRequired). */
const x402RequirementSchema = z.object({
  scheme: z.literal("exact"),
  network: z.string().meta({ description: "CAIP-2, e.g. eip155:8453 (Base), eip155:1 (Ethereum)." }),
  asset: z.string().meta({ description: "The USDC contract." }),
  amount: z.string().meta({ description: "USDC micro-units (6 decimals): exactly the task's payment_usdc." }),
  payTo: z.string().meta({ description: "Our receiving wallet." }),
  maxTimeoutSeconds: z.number().int(),
  extra: z.object({ name: z.string(), version: z.string() }).meta({
    description: "The token's EIP-712 domain the EIP-3009 authorization is signed under (USDC: USD Coin, 2).",
  }),
});

/** The 402 body: our error envelope plus x402 v1's PaymentRequired members. */
const paymentRequiredBodySchema = z.object({
  error: z.object({
    code: z.literal("PAYMENT_REQUIRED"),
    message: z.string(),
    field: z.string().optional(),
    details: z.array(z.unknown()),
    invalid_reason: z
      .string()
      .optional()
      .meta({ description: "x402's reason when a presented payment was refused." }),
  }),
  request_id: z.string(),
  x402Version: z.literal(1),
  accepts: z.array(
    x402RequirementSchema
      .omit({ amount: true })
      .extend({ maxAmountRequired: z.string(), resource: z.string(), description: z.string() }),
  ),
});

export const payTaskOperation = defineOperation({
  id: "payTask",
  method: "POST",
  path: "/api/task-pay",
  summary: "Pay a task awaiting payment with x402 (EIP-3009 USDC, gas paid by the service)",
  description:
    "The task's owner (the submitting key or a key of the same account, with scope task_create; or the task's " +
    "access_token as the query parameter, `X-Task-Access-Token` or `Authorization: Bearer tok_…`); anyone else → " +
    "404. On a task in accepted_pending_payment or counter_offered: without a payment → 402 with the x402 v2 " +
    "`PAYMENT-REQUIRED` header (base64 JSON {x402Version: 2, resource, accepts[]}: scheme exact, one entry per " +
    "network, amount = payment_usdc in micro-units) and a body holding our error envelope plus x402 v1's " +
    "`x402Version: 1` and `accepts[]` (maxAmountRequired). Sign the EIP-3009 transferWithAuthorization " +
    "(any x402 client: @x402/fetch) and send it again as `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1): verified, " +
    "settled on chain (the service pays the gas) and the task is paid → 200 with the task status and " +
    "`PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`. While the settlement is in flight → 202 with Retry-After; the same " +
    "signed payment sent again gets the same answer and is never settled twice. A refused payment → 402 with " +
    "`error.invalid_reason` (x402's reason: wrong amount, expired, nonce used, balance…), nothing recorded. Paying " +
    "by a plain USDC transfer of the exact amount stays possible. x402 off on this deployment → 404.",
  tags: ["Tasks"],
  auth: "optional",
  scope: "task_create",
  query: z.object({
    task_id: z.string().trim().min(1).max(64),
    access_token: z
      .string()
      .max(100)
      .optional()
      .meta({ description: "Anonymous submissions: the access_token." }),
  }),
  response: taskStatusSchema,
  idempotent: true,
  idempotencyOutsideTransaction: true,
  documentedHeaders: [
    {
      name: "PAYMENT-SIGNATURE",
      required: false,
      description:
        "x402 v2: base64 JSON PaymentPayload {x402Version: 2, accepted, payload: {signature, authorization}}.",
    },
    {
      name: "X-PAYMENT",
      required: false,
      description:
        "x402 v1: base64 JSON {x402Version: 1, scheme: exact, network, payload: {signature, authorization}}.",
    },
    TASK_ACCESS_TOKEN_HEADER,
  ],
  responses: {
    202: {
      description:
        "A settlement of this task is in flight (its transaction was sent): ask again after Retry-After.",
      headers: { "Retry-After": "Seconds to wait." },
      schema: z.object({
        status: z.literal("settlement_in_flight"),
        task_id: z.string(),
        tx_hash: z.string().nullable(),
      }),
    },
    402: {
      description:
        "Payment required (no payment sent), or the payment was refused (`error.invalid_reason`). Codes: PAYMENT_REQUIRED",
      headers: {
        "PAYMENT-REQUIRED":
          "x402 v2: base64 JSON {x402Version: 2, error?, resource, accepts[]} (absent when x402 is off).",
      },
      schema: paymentRequiredBodySchema,
    },
  },
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "NOT_FOUND", "CONFLICT", "PAYMENT_REQUIRED"],
});

export const readTaskPaymentOperation = defineOperation({
  id: "readTaskPayment",
  method: "GET",
  path: "/api/task-pay",
  summary:
    "How to pay a task: its exact amount, networks, wallets, x402 URL and deadline (the pay page's read)",
  description:
    "What the pay page (`/pay/#task_id=…&pay_token=…`) shows: the task's status and service and the payment block " +
    "of its status, nothing of its content. Readable with `pay_token`, the purpose-bound token of the pay page URL " +
    "that MCP `tasks/result` gives a client declaring URL elicitation (it expires with the payment window, at most " +
    "7 days), or by the task's owner (key, signed-in account, access_token) or an admin. Anyone else, and a token " +
    "forged, expired or made for another task → 404. Works with x402 on or off: the plain transfer of the exact " +
    "amount to a listed wallet always pays.",
  tags: ["Tasks"],
  auth: "optional",
  scope: "task_create",
  query: z.object({
    task_id: z.string().trim().min(1).max(64),
    pay_token: z
      .string()
      .max(2000)
      .optional()
      .meta({ description: "The pay token of the pay page URL (its fragment)." }),
    access_token: z
      .string()
      .max(100)
      .optional()
      .meta({ description: "Anonymous submissions: the access_token." }),
  }),
  response: z.object({
    task_id: z.string(),
    status: z.enum(TASK_STATUSES),
    service_type: z.string(),
    sandbox: z.boolean(),
    awaiting_payment: z.boolean().meta({
      description: "True while the task waits for its payment (accepted_pending_payment or counter_offered).",
    }),
    payment: paymentDetailsSchema,
  }),
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "NOT_FOUND"],
});

/** Request schemas of the admin task operations (docs/api-conventions.md "Admin operations"). */
import { z } from "zod";
import { TASK_STATUSES } from "../../db/schema/enums.js";
import { plainText, queryNumber } from "../../validation.js";
import { proofFilesInputSchema } from "./proof-files.js";
import { SERVICE_TYPES } from "./schemas.js";

export const taskIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "The task id.", examples: ["TASK-MI9X3K2A-0K5ZQ8W1RT"] });
/** An EVM transaction hash. */
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, { error: "must be a 0x-prefixed 32-byte hex hash" });
const cad = z.number().positive().max(1_000_000).multipleOf(0.01, { error: "must have at most 2 decimals" });

export const reviewTaskBodySchema = z
  .strictObject({
    task_id: taskIdSchema,
    action: z.enum(["approve", "reject", "counter_offer"]),
    price_cad: cad.optional().meta({ description: "approve: the price (CAD); default the estimate." }),
    counter_offer_amount: cad.optional().meta({ description: "counter_offer: the proposed price (CAD)." }),
    reason: z
      .string()
      .trim()
      .max(1000)
      .optional()
      .meta({ description: "Shown to the requester (reject, counter_offer)." }),
    operator_notes: plainText(z.string().trim().max(2000)).optional(),
  })
  .meta({ id: "TaskReviewRequest" });
export type ReviewTaskBody = z.output<typeof reviewTaskBodySchema>;

export const completeTaskBodySchema = z
  .strictObject({
    task_id: taskIdSchema,
    action: z.enum(["dispatch", "on_site", "complete", "fail"]),
    operator_notes: plainText(z.string().trim().max(5000)).optional(),
    proof_files: proofFilesInputSchema
      .optional()
      .meta({ description: "complete: proof files, base64 content." }),
    reason: plainText(z.string().trim().max(1000)).optional().meta({ description: "fail: why." }),
    no_visit_reason: plainText(z.string().trim().min(1).max(1000))
      .optional()
      .meta({
        description:
          "complete, by an owner or an admin key, a task whose service requires a site visit (catalog `site_visit`) and " +
          "that has none: why it was done without one (recorded, flagged NO_SITE_VISIT in the status and the receipt). " +
          "Missing then → 422 VALIDATION_ERROR on no_visit_reason; a field person must check in instead (409 CONFLICT). " +
          "Refused (422) when the task has a visit.",
      }),
  })
  .meta({ id: "TaskCompleteRequest" });
export type CompleteTaskBody = z.output<typeof completeTaskBodySchema>;

export const recordPaymentBodySchema = z
  .strictObject({
    task_id: taskIdSchema,
    tx_hash: txHash.optional(),
    network: z.string().trim().min(1).max(40).optional(),
    note: z.string().trim().max(1000).optional(),
  })
  .meta({ id: "TaskPaymentRequest" });
export type RecordPaymentBody = z.output<typeof recordPaymentBodySchema>;

export const settleRefundBodySchema = z
  .strictObject({
    task_id: taskIdSchema,
    outcome: z.enum(["refunded", "denied"]).meta({
      description:
        "refunded: the money went back (USDC to the originating wallet, or to the prepaid account, which this call credits); " +
        "denied: no refund under the cancellation policy (give the reason in note).",
    }),
    amount_cad: cad.optional().meta({
      description:
        "refunded: CAD refunded; default the amount owed (requested at cancellation, granted by a dispute or an SLA credit). At most the price paid less every refund already given back (for a task paid in USDC, its receipt's total, taxes included; the credit note reverses the taxes in proportion); above → 422 with max_amount_cad.",
    }),
    tx_hash: txHash.optional().meta({ description: "refunded in USDC: the refund transaction." }),
    note: z.string().trim().min(1).max(1000).optional().meta({
      description: "To the requester (in the e-mail and the status); required when denied.",
    }),
  })
  .superRefine((body, ctx) => {
    if (body.outcome === "denied" && !body.note) {
      ctx.addIssue({ code: "custom", path: ["note"], message: "is required when the refund is denied" });
    }
    if (body.outcome === "denied" && (body.amount_cad !== undefined || body.tx_hash !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [body.amount_cad !== undefined ? "amount_cad" : "tx_hash"],
        message: "only goes with outcome refunded",
      });
    }
  })
  .meta({ id: "TaskRefundRequest" });
export type SettleRefundBody = z.output<typeof settleRefundBodySchema>;

export const taskQuerySchema = z.object({ task_id: taskIdSchema });

export const cancelTaskQuerySchema = z.object({
  task_id: taskIdSchema,
  access_token: z
    .string()
    .max(100)
    .optional()
    .meta({ description: "Anonymous submissions: the access_token." }),
});
export const cancelTaskBodySchema = z.strictObject({
  reason: plainText(z.string().trim().max(1000)).optional(),
});

export const TASK_LIST_MAX_LIMIT = 200;
/**
 * Largest `offset` of GET /api/task-list: a deeper page makes PostgreSQL read and discard every
 * row before it (issue 32 item 3). Larger → 422 VALIDATION_ERROR; narrow the filters instead.
 */
export const TASK_LIST_MAX_OFFSET = 10_000;
/**
 * `total` of GET /api/task-list counts at most this many tasks (then `total_capped` is true, and
 * an operator's screen reads "1,000+"): an exact count of a million rows is a full scan on every
 * page (issue 32 item 3), and a count to 10,000 still read 10,000 rows a page (about 4 ms at
 * 1,000,000 tasks, more than the page itself; to 1,000 under 2 ms, what a small database costs).
 */
export const TASK_LIST_TOTAL_CAP = 1_000;
/**
 * `total` of a GET /api/task-list with `q` counts at most this many tasks (then `total_capped` is
 * true): each candidate costs a case-insensitive match of its text, so the count's cost follows the
 * cap divided by the share of tasks that match. A common word (a city in one task of five) counted
 * to TASK_LIST_TOTAL_CAP took 60-80 ms at 1,000,000 tasks, to 1,000 about 8 ms; to 200 it reads
 * about as many tasks as a whole database of 1,000 does (docs/performance.md, Scale). An operator
 * narrowing a search reads "200+" and adds a word or a filter.
 */
export const TASK_LIST_SEARCH_TOTAL_CAP = 200;
export const taskListQuerySchema = z.object({
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").map((s) => s.trim()) : undefined))
    .pipe(z.array(z.enum(TASK_STATUSES)).optional())
    .meta({ description: "Comma-separated statuses." }),
  service_type: z.enum(SERVICE_TYPES).optional(),
  q: z
    .string()
    .trim()
    .max(200)
    .optional()
    .meta({ description: "Text in id, description, address or contact." }),
  sort: z
    .enum(["created_at", "-created_at", "review_deadline", "-review_deadline", "updated_at", "-updated_at"])
    .default("-created_at"),
  limit: queryNumber().pipe(z.number().int().min(1).max(TASK_LIST_MAX_LIMIT)).optional().default(50),
  offset: queryNumber()
    .pipe(z.number().int().min(0).max(TASK_LIST_MAX_OFFSET))
    .optional()
    .default(0)
    .meta({
      description: `Rows to skip, at most ${TASK_LIST_MAX_OFFSET}; narrow the filters to reach older tasks.`,
    }),
  include_sandbox: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  cursor: z
    .string()
    .trim()
    .max(500)
    .optional()
    .meta({
      description:
        "`next_cursor` of the previous page, unchanged, with the same filters and sort (keyset paging: any depth, " +
        "no offset; not combined with offset).",
    }),
});
export type TaskListQuery = z.output<typeof taskListQuerySchema>;

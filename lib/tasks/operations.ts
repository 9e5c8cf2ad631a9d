/** Operation descriptors of the task endpoints (public and admin). */
import { z } from "zod";
import type { ErrorCode } from "../descriptors/error-codes.js";
import { TASK_ACCESS_TOKEN_HEADER } from "../descriptors/headers.js";
import { defineOperation, type Operation, type PermissionRule } from "../descriptors/operation.js";
import {
  cancelTaskBodySchema,
  cancelTaskQuerySchema,
  completeTaskBodySchema,
  recordPaymentBodySchema,
  reviewTaskBodySchema,
  settleRefundBodySchema,
  TASK_LIST_MAX_LIMIT,
  TASK_LIST_MAX_OFFSET,
  TASK_LIST_SEARCH_TOTAL_CAP,
  TASK_LIST_TOTAL_CAP,
  taskListQuerySchema,
  taskQuerySchema,
} from "./state/admin-schemas.js";
import {
  disputeListSchema,
  disputeSchema,
  listDisputesQuerySchema,
  openDisputeBodySchema,
  resolveDisputeBodySchema,
} from "./state/dispute-schemas.js";
import { taskSubmissionSchema } from "./state/schemas.js";
import { taskCreatedSchema, taskStatusSchema } from "./state/view-schemas.js";

/**
 * What sets one operator action on a task apart: its route, words, body, permission and own
 * errors, and its answer when it is not the task's status view.
 */
type OperatorAction<B extends z.ZodType, R extends z.ZodType> = Pick<
  Operation<z.ZodType, B, R>,
  "id" | "path" | "summary" | "description" | "maxBodyBytes" | "response"
> & { body: B; errors?: ErrorCode[]; permission: PermissionRule };

/**
 * An operator action on one task (review, complete, record a payment, settle a refund, resolve a
 * dispute; assign, lib/field/operations.ts): POST with an admin key, tagged Operator, idempotent,
 * answering the task's status view unless it names another `response`, and able to answer
 * MISSING_FIELD, VALIDATION_ERROR, NOT_FOUND and CONFLICT besides the action's own errors.
 */
export function operatorTaskAction<B extends z.ZodType, R extends z.ZodType = typeof taskStatusSchema>({
  errors = [],
  ...action
}: OperatorAction<B, R>) {
  return defineOperation({
    method: "POST",
    tags: ["Operator"],
    auth: "admin",
    response: taskStatusSchema,
    idempotent: true,
    ...action,
    errors: ["MISSING_FIELD", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT", ...errors],
  });
}

export const submitTaskOperation = defineOperation({
  id: "submitTask",
  method: "POST",
  path: "/api/submit-task",
  summary: "Submit a task for human review",
  description:
    "Key optional (recommended; scope task_create). Anonymous submissions receive an access_token. " +
    "Header `X-Service-Mode: sandbox` creates a simulated task (SANDBOX- id, advances one step per status poll, " +
    "no e-mails, no payments). An estimate above max_cost_cad rejects the task at once (201, status rejected).",
  tags: ["Tasks"],
  auth: "optional",
  scope: "task_create",
  body: taskSubmissionSchema,
  response: taskCreatedSchema,
  successStatus: 201,
  idempotent: true,
  anonymousSecret: true,
  documentedHeaders: [
    {
      name: "X-Service-Mode",
      required: false,
      description: "`sandbox` creates a simulated task; any other non-empty value → 422 VALIDATION_ERROR.",
      enum: ["sandbox"],
    },
  ],
  errors: [
    "MISSING_FIELD",
    "VALIDATION_ERROR",
    "FIELD_TOO_LONG",
    "LOCATION_NOT_FOUND",
    "OUT_OF_SERVICE_ZONE",
    "POLICY_VIOLATION",
  ],
});

export const getTaskStatusOperation = defineOperation({
  id: "getTaskStatus",
  method: "GET",
  path: "/api/submit-task",
  summary: "Task status, payment details, proof files and polling advice",
  description:
    "Anyone with the task id reads its public part (ids, service, status, urgency, times, deadlines, history, " +
    "_polling); the rest needs the task's owner (the submitting key, a key linked to the same client account, or " +
    "the access_token as `X-Task-Access-Token` or `Authorization: Bearer tok_…`) or an admin key. An access " +
    "token that is not the task's → 403 FORBIDDEN. Non-terminal responses carry Retry-After (seconds). Sandbox " +
    "tasks advance one step per poll.",
  tags: ["Tasks"],
  auth: "optional",
  staffAccess: true,
  query: taskQuerySchema,
  response: taskStatusSchema,
  documentedHeaders: [TASK_ACCESS_TOKEN_HEADER],
  errors: ["MISSING_FIELD", "NOT_FOUND", "FORBIDDEN"],
});

export const cancelTaskOperation = defineOperation({
  id: "cancelTask",
  method: "DELETE",
  path: "/api/submit-task",
  summary: "Cancel a task (free before payment; refund request after)",
  description:
    "The task's owner (the submitting key or a key linked to the same client account, with scope task_cancel; or " +
    "the `access_token` of a keyless task, as the query parameter, `X-Task-Access-Token` or `Authorization: Bearer " +
    "tok_…`) or an admin key; anyone else → 403.",
  tags: ["Tasks"],
  auth: "optional",
  scope: "task_cancel",
  query: cancelTaskQuerySchema,
  body: cancelTaskBodySchema,
  documentedHeaders: [TASK_ACCESS_TOKEN_HEADER],
  response: taskStatusSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "NOT_FOUND", "FORBIDDEN", "CONFLICT"],
});

export const reviewTaskOperation = operatorTaskAction({
  id: "reviewTask",
  path: "/api/task-review",
  summary: "Approve, counter-offer or reject a received task (operator)",
  description:
    "Approve and counter_offer give the task its exact USDC amount (payment_usdc). An approval of a task " +
    "whose submitting key bills an active, funded prepaid account charges it in the same transaction " +
    "(status paid); if anything fails, nothing is written and the same request can be retried.",
  body: reviewTaskBodySchema,
  permission: "tasks.review",
  errors: ["EXCHANGE_RATE_UNAVAILABLE"],
});

export const completeTaskOperation = operatorTaskAction({
  id: "completeTask",
  path: "/api/task-complete",
  summary: "Dispatch, mark on site, complete with proof files, or fail a paid task (operator)",
  body: completeTaskBodySchema,
  permission: {
    field: "action",
    by: {
      dispatch: "tasks.dispatch",
      on_site: "tasks.execute",
      complete: "tasks.execute",
      fail: "tasks.execute",
    },
  },
  maxBodyBytes: 4_400_000,
  errors: ["PAYLOAD_TOO_LARGE"],
});

export const recordPaymentOperation = operatorTaskAction({
  id: "recordTaskPayment",
  path: "/api/task-payment",
  summary: "Record a payment received out of band (operator)",
  body: recordPaymentBodySchema,
  permission: "payments.record",
});

export const settleRefundOperation = operatorTaskAction({
  id: "settleTaskRefund",
  path: "/api/task-refund",
  summary: "Settle a refund request: refunded or denied (operator)",
  description:
    "For a task cancelled after payment (refund_status pending). A prepaid-account task is credited to its account " +
    "(ledger refund and refund invoice); a USDC refund is sent by the operator and recorded here with its tx_hash. " +
    "The requester is e-mailed. A settlement closes every refund owed on the task; a task may be settled again when " +
    "a refund is owed again (each settlement once, with its own e-mail). amount_cad above what was paid less what " +
    "was already given back → 422 with max_amount_cad; a refund that is not pending (already settled, or settled " +
    "concurrently) → 409 CONFLICT with current refund_status.",
  body: settleRefundBodySchema,
  permission: "refunds.settle",
});

export const listTasksOperation = defineOperation({
  id: "listTasks",
  method: "GET",
  path: "/api/task-list",
  summary: "Task index with filters, sorting and pagination (operator)",
  description:
    `Pages by limit (at most ${TASK_LIST_MAX_LIMIT}) and cursor (next_cursor: keyset paging at any depth) or offset ` +
    `(at most ${TASK_LIST_MAX_OFFSET}). total counts the ` +
    `matching tasks up to ${TASK_LIST_TOTAL_CAP} (with q: up to ${TASK_LIST_SEARCH_TOTAL_CAP}): beyond, total is that ` +
    "cap and total_capped is true (an exact count of a large history costs a full scan on every page).",
  tags: ["Operator"],
  auth: "admin",
  permission: "tasks.read",
  query: taskListQuerySchema,
  response: z.object({
    tasks: z.array(z.record(z.string(), z.unknown())),
    total: z.number().int(),
    total_capped: z.boolean(),
    limit: z.number().int(),
    offset: z.number().int(),
    next_cursor: z.string().nullable().meta({
      description: "Pass as `cursor` (same filters and sort) for the next page; null on the last page.",
    }),
  }),
  errors: ["VALIDATION_ERROR"],
});

export const openDisputeOperation = defineOperation({
  id: "openTaskDispute",
  method: "POST",
  path: "/api/task-dispute",
  summary: "Dispute a completed task (within the dispute window)",
  description:
    "The task's owner (the submitting key or a key linked to the same client account, with scope task_create; the " +
    "signed-in client; or the task's `access_token` as `X-Task-Access-Token` or `Authorization: Bearer tok_…`) " +
    "disputes a completed task within DISPUTE_WINDOW_HOURS (default 72) of its completion; see `recourse` in GET " +
    "/api/capabilities. A task is disputed once, and again only after a dispute resolved `redo` " +
    "(docs/decisions.md 37). The task keeps its status; the answer is its status view with `dispute`. Events " +
    "task.disputed, then task.dispute_resolved. A key without task_create → 403; anyone else, or an unknown task → " +
    "404; a dispute already open, an earlier dispute resolved otherwise than `redo` (`dispute_id`, `resolution`), " +
    "or a task not completed → 409 CONFLICT; the window closed → 422 VALIDATION_ERROR with " +
    "`dispute_window_ends_at`. Evidence files are checked as proof files are.",
  tags: ["Tasks"],
  auth: "optional",
  scope: "task_create",
  body: openDisputeBodySchema,
  response: taskStatusSchema,
  successStatus: 201,
  idempotent: true,
  maxBodyBytes: 4_400_000,
  documentedHeaders: [TASK_ACCESS_TOKEN_HEADER],
  errors: [
    "MISSING_FIELD",
    "VALIDATION_ERROR",
    "FIELD_TOO_LONG",
    "INVALID_FORMAT",
    "PAYLOAD_TOO_LARGE",
    "NOT_FOUND",
    "FORBIDDEN",
    "CONFLICT",
  ],
});

export const resolveDisputeOperation = operatorTaskAction({
  id: "resolveDispute",
  path: "/api/dispute-resolve",
  summary: "Resolve a dispute: redo, partial or full refund, or reject (operator)",
  description:
    "redo creates a follow-up task at no charge (`follow_up_task_id`; it carries `redo_of_task_id`). A refund of a " +
    "prepaid-account task is credited to the account at once (credit note and ledger refund); of a USDC task it " +
    "becomes a refund owed (refund_status pending, the USDC amount at the task's rate), settled with POST " +
    "/api/task-refund and its tx_hash. amount_cad above what is left → 422 with `max_amount_cad`; a resolved " +
    "dispute → 409 CONFLICT. Exactly once under retries and concurrent calls.",
  permission: "disputes.resolve",
  body: resolveDisputeBodySchema,
  response: disputeSchema,
});

export const listDisputesOperation = defineOperation({
  id: "listDisputes",
  method: "GET",
  path: "/api/disputes",
  summary: "Disputes, open first and oldest first, with their evidence files' metadata (operator)",
  description:
    "The queue: open disputes first, oldest first, each with its evidence files' metadata. With `dispute_id`: " +
    "that one dispute with its evidence files' content (base64), as the console shows it beside the task's proof.",
  tags: ["Operator"],
  auth: "admin",
  permission: "disputes.read",
  query: listDisputesQuerySchema,
  response: disputeListSchema,
  errors: ["VALIDATION_ERROR", "NOT_FOUND"],
});

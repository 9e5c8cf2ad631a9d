/**
 * The event registry (issue 46 item 2): every event type the service emits, once, with its
 * description, the zod schema of its payload (the `data` of a webhook delivery, the
 * `task_events.payload` column) and an example. Everything else is derived from it: the type
 * lists below (`TASK_EVENT_TYPES`, `EVENT_TYPES`, …), the payload check at emission
 * (`assertEventPayload`, lib/tasks/state/task-events.ts), the OpenAPI `webhooks` section
 * (lib/openapi/webhooks.ts), the typed client's payload types and the event list of
 * docs/notifications.md (checked by tests/architecture/facts.test.ts).
 *
 * It lives beside the outbox table because the table's `type` column is typed by it and
 * `lib/db` imports nothing outside itself (docs/architecture.md; docs/decisions.md entry 61).
 *
 * Payloads are open objects: the members declared here are always present and typed as
 * stated, and a receiver must ignore members it does not know (new ones may be added; a
 * declared one is never removed or retyped without a new event type).
 */
import { z } from "zod";
import { PAYMENT_METHODS, REFUND_STATUSES, SERVICE_TYPES, TASK_STATUSES } from "./enums.js";

const iso = () =>
  z.string().meta({ description: "ISO 8601 date-time (UTC)", examples: ["2026-11-28T14:00:00.000Z"] });
const cad = () => z.number().meta({ description: "CAD, exact to the cent" });
const status = z.enum(TASK_STATUSES);

/** The members every task event carries (docs/notifications.md "Deliveries"). */
const taskCommon = {
  task_id: z.string().meta({ description: "The task (`TASK-…`; `SANDBOX-…` in the sandbox)" }),
  status: status.meta({ description: "The task's status after the event" }),
  service_type: z.enum(SERVICE_TYPES),
  sandbox: z.boolean().meta({ description: "true for a sandbox task (never e-mailed)" }),
};
/** A transition's event also names the status before it. */
const transitionCommon = {
  ...taskCommon,
  previous_status: status.meta({ description: "The task's status before the event" }),
};
/** An event that changes no status: `previous_status` is the current status. */
const noticeCommon = transitionCommon;

const siteVisit = z
  .looseObject({})
  .nullable()
  .meta({ description: "The field person's check-in and check-out (docs/staff-and-audit.md), or null" });
const visitRule = z
  .looseObject({ rule: z.string() })
  .nullable()
  .meta({ description: "The service's site-visit rule and how the task met it (issue 44), or null" });
const receipt = z
  .string()
  .nullable()
  .meta({ description: "The signed receipt, a compact JWS (docs/receipts.md), or null" });

const common = {
  task_id: "TASK-7Q2M4K9X",
  service_type: "SVC-01",
  sandbox: false,
} as const;

/** One entry of the registry. */
export interface EventDefinition {
  /** What happened, in one sentence (English). */
  description: string;
  /** The payload: `data` of a webhook delivery and of a stream event. */
  payload: z.ZodType<Record<string, unknown>>;
  /** An example payload; parsed by the schema in tests/events/event-registry.test.ts. */
  example: Record<string, unknown>;
}

/** Task lifecycle events, in lifecycle order (the outbox `task_events.type` of a task). */
export const TASK_EVENTS = {
  "task.created": {
    description:
      "A task was submitted (status `received`), with its estimate and the policy screen's outcome.",
    payload: z.looseObject({
      ...taskCommon,
      estimate_cad: cad().meta({
        description: "The estimate at submission, CAD (0 for the redo of a dispute)",
      }),
      needs_counter_offer: z.boolean().optional().meta({ description: "The estimate is above budget_limit" }),
      policy: z
        .looseObject({
          version: z.string(),
          outcome: z.enum(["allow", "review"]),
          reason_codes: z.array(z.string()),
        })
        .optional()
        .meta({ description: "The policy screen's outcome (docs/policy.md)" }),
      redo_of_task_id: z.string().optional().meta({ description: "The disputed task this one redoes" }),
      dispute_id: z.string().optional().meta({ description: "The dispute that ordered the redo" }),
    }),
    example: {
      ...common,
      status: "received",
      estimate_cad: 329.67,
      needs_counter_offer: false,
      policy: { version: "2026-11-01", outcome: "allow", reason_codes: [] },
    },
  },
  "task.accepted": {
    description:
      "A reviewer accepted the task: it awaits its exact USDC payment (or was charged to the account).",
    payload: z.looseObject({
      ...transitionCommon,
      amount_cad: cad().nullable(),
      payment_usdc_micro: z.string().optional().meta({ description: "Exact USDC amount, micro-units" }),
      payment_expires_at: iso().optional(),
      reason: z.string().nullable().optional(),
      policy_override: z.literal(true).optional(),
    }),
    example: {
      ...common,
      status: "accepted_pending_payment",
      previous_status: "received",
      amount_cad: 329.67,
      payment_usdc_micro: "234070123",
      payment_expires_at: "2026-11-30T14:00:00.000Z",
    },
  },
  "task.counter_offered": {
    description: "A reviewer proposed another price; paying it accepts the offer.",
    payload: z.looseObject({
      ...transitionCommon,
      amount_cad: cad().nullable(),
      payment_usdc_micro: z.string().optional(),
      payment_expires_at: iso().optional(),
      reason: z.string().nullable().optional(),
      policy_override: z.literal(true).optional(),
    }),
    example: {
      ...common,
      status: "counter_offered",
      previous_status: "received",
      amount_cad: 400,
      payment_usdc_micro: "284000456",
      payment_expires_at: "2026-11-30T14:00:00.000Z",
      reason: "Two hours on site are needed",
    },
  },
  "task.rejected": {
    description: "The task was refused, by a reviewer or at once (an estimate above max_cost_cad).",
    payload: z.looseObject({ ...transitionCommon, reason: z.string().nullable() }),
    example: { ...common, status: "rejected", previous_status: "received", reason: "Outside what we can do" },
  },
  "task.paid": {
    description: "The payment was recorded (USDC on chain, the prepaid account, or by an operator).",
    payload: z.looseObject({
      ...transitionCommon,
      method: z.enum(PAYMENT_METHODS),
      execution_deadline: iso(),
      receipt_invoice_id: z.string().nullable().optional(),
      network: z.string().nullable().optional(),
      tx_hash: z.string().nullable().optional(),
      note: z.string().nullable().optional(),
      account_id: z.string().optional(),
      amount_charged_cad: cad().optional(),
      invoice_id: z.string().optional(),
      redo_of_task_id: z.string().optional(),
    }),
    example: {
      ...common,
      status: "paid",
      previous_status: "accepted_pending_payment",
      method: "usdc",
      receipt_invoice_id: "INV-2026-000042",
      network: "base",
      tx_hash: "0x5f1c…",
      note: null,
      execution_deadline: "2026-12-01T14:00:00.000Z",
    },
  },
  "task.dispatched": {
    description: "Someone was sent to the place (named `task.assigned` on the event stream).",
    payload: z.looseObject(transitionCommon),
    example: { ...common, status: "dispatched", previous_status: "paid" },
  },
  "task.on_site": {
    description: "The operator arrived on site.",
    payload: z.looseObject(transitionCommon),
    example: { ...common, status: "on_site", previous_status: "dispatched" },
  },
  "task.assigned": {
    description:
      "A dispatcher assigned the task to a field person, or withdrew the assignment (`assignment: null`).",
    payload: z.looseObject({
      ...noticeCommon,
      assignment: z
        .looseObject({ operator_display_name: z.string(), assigned_at: iso() })
        .nullable()
        .meta({ description: "Who goes (display name only), or null when unassigned" }),
    }),
    example: {
      ...common,
      status: "paid",
      previous_status: "paid",
      assignment: { operator_display_name: "Marie T.", assigned_at: "2026-11-28T15:00:00.000Z" },
    },
  },
  "task.at_risk": {
    description: "The execution deadline is near and the task is not finished (deadline watch).",
    payload: z.looseObject({
      ...noticeCommon,
      execution_deadline: iso(),
      minutes_left: z.number().int(),
      assigned: z.boolean(),
    }),
    example: {
      ...common,
      status: "dispatched",
      previous_status: "dispatched",
      execution_deadline: "2026-12-01T14:00:00.000Z",
      minutes_left: 240,
      assigned: true,
    },
  },
  "task.completed": {
    description: "The task was done: the proof files' details, the site visit and the signed receipt.",
    payload: z.looseObject({
      ...transitionCommon,
      completed_at: iso().optional(),
      operator_notes: z.string().nullable(),
      proof_files_count: z.number().int().min(0),
      proof_files: z.array(
        z.looseObject({ filename: z.string(), type: z.string(), size: z.number().int(), sha256: z.string() }),
      ),
      site_visit: siteVisit,
      visit_rule: visitRule,
      receipt,
    }),
    example: {
      ...common,
      status: "completed",
      previous_status: "on_site",
      completed_at: "2026-11-29T16:30:00.000Z",
      operator_notes: "Storefront photographed from the street.",
      proof_files_count: 1,
      proof_files: [{ filename: "front.jpg", type: "image/jpeg", size: 182044, sha256: "9f86d08…" }],
      site_visit: null,
      visit_rule: { rule: "optional" },
      receipt: "eyJhbGciOiJFZERTQSJ9…",
    },
  },
  "task.failed": {
    description: "The operator could not do the task; the reason and the signed receipt.",
    payload: z.looseObject({
      ...transitionCommon,
      reason: z.string().nullable(),
      receipt,
      site_visit: siteVisit,
      visit_rule: visitRule,
    }),
    example: {
      ...common,
      status: "failed",
      previous_status: "dispatched",
      reason: "The building was closed",
      receipt: "eyJhbGciOiJFZERTQSJ9…",
      site_visit: null,
      visit_rule: { rule: "optional" },
    },
  },
  "task.payment_expired": {
    description: "The payment window closed without a payment.",
    payload: z.looseObject({ ...transitionCommon, payment_expires_at: iso().optional() }),
    example: {
      ...common,
      status: "payment_expired",
      previous_status: "accepted_pending_payment",
      payment_expires_at: "2026-11-30T14:00:00.000Z",
    },
  },
  "task.cancelled": {
    description: "The task was cancelled, with the refund it owes (after payment).",
    payload: z.looseObject({
      ...transitionCommon,
      reason: z.string().nullable(),
      refund_status: z.enum(REFUND_STATUSES),
      refund_amount_cad: cad().nullable(),
      cancelled_by: z.enum(["owner", "admin", "access_token"]),
    }),
    example: {
      ...common,
      status: "cancelled",
      previous_status: "paid",
      reason: "No longer needed",
      refund_status: "pending",
      refund_amount_cad: 329.67,
      cancelled_by: "owner",
    },
  },
  "task.disputed": {
    description: "The requester disputed a finished task within the dispute window.",
    payload: z.looseObject({
      ...taskCommon,
      dispute_id: z.string(),
      reason: z.string(),
      evidence_file_count: z.number().int().min(0),
      dispute_window_ends_at: iso(),
    }),
    example: {
      ...common,
      status: "completed",
      dispute_id: "dsp_8K2J",
      reason: "not_as_described",
      evidence_file_count: 1,
      dispute_window_ends_at: "2026-12-06T16:30:00.000Z",
    },
  },
  "task.dispute_resolved": {
    description: "An operator resolved the dispute: refund, redo or denial.",
    payload: z.looseObject({
      ...taskCommon,
      dispute_id: z.string(),
      resolution: z.string(),
      reason: z.string().nullable(),
      refund_amount_cad: cad().nullable(),
      refund_usdc: z.string().nullable(),
      refund_status: z.enum(REFUND_STATUSES).nullable(),
      follow_up_task_id: z.string().nullable(),
    }),
    example: {
      ...common,
      status: "completed",
      dispute_id: "dsp_8K2J",
      resolution: "partial_refund",
      reason: null,
      refund_amount_cad: 100,
      refund_usdc: "71.000000",
      refund_status: "pending",
      follow_up_task_id: null,
    },
  },
  "task.sla_credited": {
    description: "The task finished after its execution deadline: an automatic SLA credit.",
    payload: z.looseObject({
      ...taskCommon,
      execution_deadline: iso(),
      finished_at: iso(),
      days_late: z.number().int(),
      percent: z.number(),
      credited_cad: cad(),
      credited_usdc: z.string().nullable(),
      paid_as: z.enum(["account_credit", "refund_owed"]),
      refund_status: z.enum(REFUND_STATUSES),
    }),
    example: {
      ...common,
      status: "completed",
      execution_deadline: "2026-12-01T14:00:00.000Z",
      finished_at: "2026-12-02T10:00:00.000Z",
      days_late: 1,
      percent: 10,
      credited_cad: 32.97,
      credited_usdc: "23.400000",
      paid_as: "refund_owed",
      refund_status: "pending",
    },
  },
  "task.sla_missed": {
    description: "A paid task was cancelled after its review deadline had passed unanswered.",
    payload: z.looseObject({
      ...taskCommon,
      sla: z.literal("review"),
      review_deadline: iso(),
      reviewed_at: iso().nullable(),
      refund_status: z.enum(REFUND_STATUSES),
      refund_amount_cad: cad().nullable(),
    }),
    example: {
      ...common,
      status: "cancelled",
      sla: "review",
      review_deadline: "2026-11-28T18:00:00.000Z",
      reviewed_at: null,
      refund_status: "pending",
      refund_amount_cad: 329.67,
    },
  },
} as const satisfies Record<string, EventDefinition>;

/** Billing events: no task, an account and the key whose webhooks receive them. */
export const BILLING_EVENTS = {
  "billing.low_balance": {
    description: "A spending moved the prepaid account to a worse spending level (alert or blocked).",
    payload: z.looseObject({
      account_id: z.string(),
      agent_id: z.string().meta({ description: "The account's e-mail" }),
      available_balance_cad: cad(),
      spending_level: z.string(),
      previous_spending_level: z.string(),
      reason: z.string(),
    }),
    example: {
      account_id: "acct_3JX9",
      agent_id: "ops@example.com",
      available_balance_cad: 40,
      spending_level: "alert",
      previous_spending_level: "ok",
      reason: "task_charge",
      charged_task_id: "TASK-7Q2M4K9X",
    },
  },
  "billing.payment_required": {
    description: "A charge or a pre-authorization was refused for want of funds.",
    payload: z.looseObject({
      account_id: z.string(),
      agent_id: z.string(),
      reason: z.string(),
      required_cad: cad(),
      available_balance_cad: cad(),
      spending_level: z.string(),
      task_id: z.string().optional(),
      suggestion: z.string().optional(),
    }),
    example: {
      account_id: "acct_3JX9",
      agent_id: "ops@example.com",
      reason: "insufficient_funds",
      task_id: "TASK-7Q2M4K9X",
      required_cad: 329.67,
      available_balance_cad: 40,
      spending_level: "alert",
    },
  },
} as const satisfies Record<string, EventDefinition>;

/** Every event of the registry by type. */
export const EVENTS = { ...TASK_EVENTS, ...BILLING_EVENTS };

/** Task lifecycle event types (outbox `task_events.type`), from the registry. */
export const TASK_EVENT_TYPES = Object.keys(TASK_EVENTS) as [TaskEventType, ...TaskEventType[]];
export type TaskEventType = keyof typeof TASK_EVENTS;

/** Billing event types; their events carry no task, only an account and/or API key. */
export const BILLING_EVENT_TYPES = Object.keys(BILLING_EVENTS) as [BillingEventType, ...BillingEventType[]];
export type BillingEventType = keyof typeof BILLING_EVENTS;

/** Every outbox event type. */
export const EVENT_TYPES = [...TASK_EVENT_TYPES, ...BILLING_EVENT_TYPES] as [EventType, ...EventType[]];
export type EventType = TaskEventType | BillingEventType;

/** The payload type of event `T` (what the schema parses). */
export type EventPayload<T extends EventType> = z.output<(typeof EVENTS)[T]["payload"]>;

/**
 * The problems of `payload` as the payload of event `type`, one line each (`path: message`);
 * empty when it is valid. Unknown types are a problem too.
 */
export function eventPayloadProblems(type: string, payload: unknown): string[] {
  const definition = (EVENTS as Record<string, EventDefinition | undefined>)[type];
  if (!definition) return [`unknown event type ${JSON.stringify(type)}`];
  const result = definition.payload.safeParse(payload);
  return result.success
    ? []
    : result.error.issues.map((i) => `${i.path.join(".") || "(payload)"}: ${i.message}`);
}

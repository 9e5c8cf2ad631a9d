import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { cad, createdAt, exchangeRate, timestamptz, updatedAt, usdcMicro } from "./columns.js";
import {
  ACTIVE_TASK_STATUSES,
  type Lang,
  type PaymentMethod,
  type RefundStatus,
  type ServiceType,
  type SiteVisitRule,
  type TaskStatus,
  type Urgency,
} from "./enums.js";

/** Estimate breakdown kept with a task (docs/api-conventions.md "Estimate response" `breakdown`). */
export type TaskEstimateBreakdown = Record<string, number>;

/** How the task's address was resolved (docs/api-conventions.md "Estimate response" `location`, plus any extras). */
export type TaskLocationResolution = Record<string, unknown>;

/** One rule of the policy screen that matched a submission (lib/policy). */
export interface PolicyMatch {
  rule_id: string;
  reason_code: string;
  outcome: "review" | "refuse";
  /** The words of the submission that matched, accents and case folded. */
  matched_text: string;
}

/** The policy screen kept with a task (`tasks.policy`); see lib/policy/screen.ts. */
export interface TaskPolicyRecord {
  version: string;
  outcome: "allow" | "review";
  reason_codes: string[];
  matches: PolicyMatch[];
  /** Set when an operator approved a `review` task: when, and the operator's notes. */
  override?: { at: string; action: string; operator_notes: string | null };
}

/**
 * The text the task list's `q` searches (id, description, address, contact), one string per task:
 * the expression of the trigram index `tasks_search_trgm_idx` and of the query (lib/tasks/list-tasks.ts),
 * which must be written identically for PostgreSQL to use the index.
 */
export const TASK_SEARCH_TEXT = sql.raw(
  "(id || ' ' || task_description || ' ' || location_address || ' ' || requester_contact)",
);

/**
 * The SQL condition "non-sandbox task in an active status" (`ACTIVE_TASK_STATUSES`), as literal
 * SQL: the predicate of the partial index `tasks_active_status_created_at_idx` and the WHERE of
 * the queries that must use it (lib/system/status.ts). PostgreSQL uses a partial index only when
 * it can prove the query's WHERE implies the index predicate, which literals make certain
 * (bound parameters may not, under a generic plan).
 */
export const ACTIVE_NON_SANDBOX_TASK = sql.raw(
  `not sandbox and status in (${ACTIVE_TASK_STATUSES.map((s) => `'${s}'`).join(", ")})`,
);

/**
 * The SQL condition "a paid, non-sandbox task that finished late, or failed" (the candidates of
 * the SLA-credit job, lib/tasks/sla-credits.ts; issue 27), as literal SQL: the predicate of the
 * partial index `tasks_sla_credit_candidates_idx` and part of the job's WHERE, so the hourly scan
 * reads only late or failed tasks, not every finished one.
 */
export const SLA_CREDIT_CANDIDATE = sql.raw(
  "not sandbox and paid_at is not null and status in ('completed', 'failed') and (completed_at is null or completed_at > execution_deadline)",
);

/**
 * Tasks: one row per submitted task, its current state and every value the lifecycle
 * fixes along the way (estimate, approved price, payment terms, deadlines, refund).
 * Every state change goes through the transition table, bumps `version` (optimistic
 * concurrency: `UPDATE ... WHERE id = $1 AND version = $2`) and writes its `task_events`
 * row in the same transaction.
 */
export const tasks = pgTable(
  "tasks",
  {
    /** `<task_prefix>-<base36>-<base36>`, or `SANDBOX-<base36>-<base36>` for sandbox tasks. */
    id: text("id").primaryKey(),
    /** Simulated task (X-Service-Mode: sandbox): auto-advances, never e-mails, pays or bills. */
    sandbox: boolean("sandbox").notNull().default(false),
    serviceType: text("service_type").$type<ServiceType>().notNull(),
    status: text("status").$type<TaskStatus>().notNull().default("received"),

    // --- Submission (as given by the requester) ---
    locationAddress: text("location_address").notNull(),
    taskDescription: text("task_description").notNull(),
    /** Requester e-mail: confirmations, payment instructions, deliverables, fallback e-mails. */
    requesterContact: text("requester_contact").notNull(),
    urgency: text("urgency").$type<Urgency>().notNull().default("standard"),
    /** CAD; the task is counter-offered when the estimate exceeds it. */
    budgetLimit: cad("budget_limit"),
    /** CAD; the task is rejected automatically when the estimate exceeds it. */
    maxCostCad: cad("max_cost_cad"),
    specialInstructions: text("special_instructions"),
    /** `photos`, `PDF`, `JSON`, `CSV` or `video` (validated at the edge). */
    preferredOutput: text("preferred_output"),
    /** HTTPS URL that receives `task.completed` (unsigned per-task callback). */
    callbackUrl: text("callback_url"),
    /** Language of client-facing e-mails. */
    lang: text("lang").$type<Lang>().notNull().default("fr"),

    // --- Who submitted it ---
    /** Submitting key; null for anonymous submissions. */
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    /** SHA-256 hex of the `access_token` returned to anonymous submitters (event stream). */
    accessTokenHash: text("access_token_hash"),
    /** Raw `X-Agent-Identity` header (`{model}/{agent_name}/{org_id}`). */
    agentIdentity: text("agent_identity"),
    /** `org_id` part of the agent identity (per-organization analytics). */
    orgId: text("org_id"),

    // --- Pricing ---
    /** Estimate at submission, CAD, exact to the cent. */
    estimateCad: cad("estimate_cad"),
    /** Breakdown of `estimate_cad`. */
    estimate: jsonb("estimate").$type<TaskEstimateBreakdown>(),
    /** Resolution of `location_address` (matched place, source, service-zone check). */
    location: jsonb("location").$type<TaskLocationResolution>(),
    /** True when the estimate exceeded `budget_limit` at submission: review should counter-offer. */
    needsCounterOffer: boolean("needs_counter_offer").notNull().default(false),
    /** Approved price, CAD (the estimate, or the operator's price). */
    priceCad: cad("price_cad"),
    /** Operator's counter-offer, CAD (status `counter_offered`). */
    counterOfferAmount: cad("counter_offer_amount"),

    // --- Review and execution ---
    /** Reason given on reject or counter-offer (shown to the requester). */
    reviewReason: text("review_reason"),
    /** Operator's notes (shown with the deliverables). */
    operatorNotes: text("operator_notes"),
    /** Reason given when the task failed. */
    failureReason: text("failure_reason"),
    /** Review due by (24 h, 12 h urgent, from submission). */
    reviewDeadline: timestamptz("review_deadline").notNull(),
    /** Execution due by (72 h, 24 h urgent); provisional at submission, reset when paid. */
    executionDeadline: timestamptz("execution_deadline").notNull(),
    reviewedAt: timestamptz("reviewed_at"),
    /**
     * The policy screen at submission (lib/policy): rules version, outcome (`allow` or `review`;
     * refused submissions are never stored), reason codes, matched rules, and the operator's
     * override of a `review` outcome when it was approved anyway.
     */
    policy: jsonb("policy").$type<TaskPolicyRecord>(),
    /** The signed completion receipt (compact JWS, lib/receipts) of a completed or failed task. */
    receipt: text("receipt"),

    // --- Payment terms (fixed at approval / counter-offer) ---
    /** USD per CAD used to convert the price (e.g. 0.71234567). */
    exchangeRate: exchangeRate("exchange_rate"),
    rateSource: text("rate_source"),
    rateAsOf: timestamptz("rate_as_of"),
    /**
     * Exact USDC amount to pay, micro-units. Unique among open non-sandbox payments (see
     * `tasks_open_payment_usdc_uq`): the amount alone identifies the task an on-chain
     * transfer pays for. Allocated and dated by `payment_amounts` (reuse cooldown).
     */
    paymentUsdcMicro: usdcMicro("payment_usdc_micro"),
    /** End of the 48 h payment window. */
    paymentExpiresAt: timestamptz("payment_expires_at"),

    // --- Payment received ---
    paymentMethod: text("payment_method").$type<PaymentMethod>(),
    /** Prepaid client account charged (payment_method `account`). */
    accountId: text("account_id").references(() => clientAccounts.id, { onDelete: "set null" }),
    /** Network of the paying transfer (`usdc`, or `manual` when given). */
    paymentNetwork: text("payment_network"),
    /** Transaction hash of the paying transfer (`usdc`, or `manual` when given). */
    paymentTxHash: text("payment_tx_hash"),
    /**
     * The `usdc_receipt` invoice issued with the USDC payment (same transaction; docs/taxes.md
     * "USDC receipts"); null otherwise. No foreign key: invoices already reference tasks.
     */
    receiptInvoiceId: text("receipt_invoice_id"),
    paidAt: timestamptz("paid_at"),
    dispatchedAt: timestamptz("dispatched_at"),
    onSiteAt: timestamptz("on_site_at"),
    completedAt: timestamptz("completed_at"),

    // --- Assignment and deadline watch (issue 26) ---
    /** The field staff member assigned (`staff_members.id`; POST /api/task-assign), or null. */
    assignedStaffId: text("assigned_staff_id"),
    assignedAt: timestamptz("assigned_at"),
    /** When the deadline watch reported `task.at_risk` (once per task). */
    atRiskAt: timestamptz("at_risk_at"),
    /**
     * The catalog's site-visit rule applied when the task was completed or failed (issue 44 item 1;
     * `SITE_VISIT_RULES`), null before: the receipt and the status say which rule held.
     */
    visitRule: text("visit_rule").$type<SiteVisitRule>(),
    /**
     * Why a task whose service requires a visit was completed without one (an owner or an admin
     * key; flagged `NO_SITE_VISIT`), else null.
     */
    noVisitReason: text("no_visit_reason"),

    // --- Cancellation and refund ---
    cancelledAt: timestamptz("cancelled_at"),
    cancelReason: text("cancel_reason"),
    /**
     * The refund columns below but the note are derived from the task's refund entries
     * (lib/db/schema/task-refunds.ts; lib/billing/task-refunds.ts `refundColumns`), for the status
     * view; no cap reads them (issue 42). `pending` while a refund owed is unsettled, then the last
     * settlement's outcome.
     */
    refundStatus: text("refund_status").$type<RefundStatus>().notNull().default("none"),
    /** Pending: the amount owed (null when the operator fixes it); else everything given back so far, CAD. */
    refundAmountCad: cad("refund_amount_cad"),
    /** When the operator last settled a refund (refunded or denied; POST /api/task-refund). */
    refundSettledAt: timestamptz("refund_settled_at"),
    /** Transaction of a USDC refund (0x hex), when the operator gives it. */
    refundTxHash: text("refund_tx_hash"),
    /** Operator's note to the requester (why denied, how refunded). */
    refundNote: text("refund_note"),
    /**
     * A refund owed in USDC (a dispute resolved with a refund, an SLA credit; issue 27): the exact
     * micro-USDC at the task's own rate, fixed when it was owed (the sum of the unsettled owed
     * entries); null otherwise.
     */
    refundUsdcMicro: usdcMicro("refund_usdc_micro"),

    // --- Recourse (issue 27) ---
    /** A follow-up task created by a dispute resolved `redo`: the disputed task it redoes. */
    redoOfTaskId: text("redo_of_task_id"),

    /** Optimistic-concurrency counter, incremented by every update. */
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("tasks_status_idx").on(t.status),
    index("tasks_created_at_idx").on(t.createdAt),
    /**
     * The active queue (GET /api/status counts and average wait): a small index whatever the
     * history's size (issue 32 item 2). Its predicate is `ACTIVE_NON_SANDBOX_TASK`.
     */
    index("tasks_active_status_created_at_idx").on(t.status, t.createdAt).where(ACTIVE_NON_SANDBOX_TASK),
    /** The operator's task list (GET /api/task-list), one per offered sort, keyset `(sort, id)` (issue 32 item 3). */
    index("tasks_list_created_at_id_idx").on(t.createdAt, t.id).where(sql`not sandbox`),
    index("tasks_list_updated_at_id_idx").on(t.updatedAt, t.id).where(sql`not sandbox`),
    index("tasks_list_review_deadline_id_idx").on(t.reviewDeadline, t.id).where(sql`not sandbox`),
    /**
     * The task list filtered by one status (the console's status filter, newest first; its refunds
     * view, cancelled by last change): the status's own range of `(sort, id)`, so a rare status is
     * never found by walking every task in time order (issue 45 item 2; tests/tasks/task-list-plans.test.ts).
     */
    index("tasks_list_status_created_at_id_idx").on(t.status, t.createdAt, t.id).where(sql`not sandbox`),
    index("tasks_list_status_updated_at_id_idx").on(t.status, t.updatedAt, t.id).where(sql`not sandbox`),
    /**
     * The review queue (`status=received&sort=review_deadline`): only the waiting tasks, a few
     * hundred whatever the history, by deadline. All of them are recent; the deadline index of every
     * task walked the whole history before reaching them (issue 45).
     */
    index("tasks_review_queue_idx")
      .on(t.reviewDeadline, t.id)
      .where(sql`status = 'received' and not sandbox`),
    /** The SLA-credit job's candidates (`SLA_CREDIT_CANDIDATE`), oldest deadline first. */
    index("tasks_sla_credit_candidates_idx").on(t.executionDeadline, t.id).where(SLA_CREDIT_CANDIDATE),
    index("tasks_api_key_id_idx").on(t.apiKeyId),
    /** A field person's tasks (the field app), by deadline. */
    index("tasks_assigned_staff_id_idx").on(t.assignedStaffId, t.executionDeadline),
    index("tasks_requester_contact_idx").on(t.requesterContact),
    /** The task list's substring search `q` (ILIKE '%…%' on TASK_SEARCH_TEXT; pg_trgm, migration 0019). */
    index("tasks_search_trgm_idx").using("gin", sql`${TASK_SEARCH_TEXT} gin_trgm_ops`),
    index("tasks_account_id_idx").on(t.accountId),
    index("tasks_org_id_idx").on(t.orgId),
    /** MCP tasks/list for an access token finds its task by the token's hash. */
    index("tasks_access_token_hash_idx").on(t.accessTokenHash),
    /** Exact amounts are unique among open payments (sandbox tasks never touch a chain). */
    uniqueIndex("tasks_open_payment_usdc_uq")
      .on(t.paymentUsdcMicro)
      .where(sql`status in ('accepted_pending_payment', 'counter_offered') and not sandbox`),
    check("tasks_payment_usdc_positive", sql`payment_usdc_micro is null or payment_usdc_micro > 0`),
    check("tasks_version_positive", sql`version >= 1`),
  ],
);

export type Task = typeof tasks.$inferSelect;
export type NewTask = typeof tasks.$inferInsert;

/**
 * Closed sets of values stored in `text` columns (typed with `$type<...>()`), one list each.
 * Text rather than Postgres enums so that adding a value is a plain code change, not a
 * migration that must run before the code that writes it. Values follow docs/api-conventions.md.
 */

/** Catalog service ids (`service_type`). */
export const SERVICE_TYPES = ["SVC-01", "SVC-02", "SVC-03", "SVC-04", "SVC-05"] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** Task status values (docs/api-conventions.md "Task status values and transitions"). */
export const TASK_STATUSES = [
  "received",
  "accepted_pending_payment",
  "counter_offered",
  "paid",
  "dispatched",
  "on_site",
  "completed",
  "failed",
  "rejected",
  "payment_expired",
  "cancelled",
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Statuses after which a task never changes again. */
export const TERMINAL_TASK_STATUSES = [
  "completed",
  "failed",
  "rejected",
  "payment_expired",
  "cancelled",
] as const satisfies readonly TaskStatus[];

/** Statuses in which a task waits for an exact USDC payment. */
export const OPEN_PAYMENT_STATUSES = [
  "accepted_pending_payment",
  "counter_offered",
] as const satisfies readonly TaskStatus[];

/**
 * Statuses of a task still in the operator's queue (neither terminal nor sandbox-only): the
 * queue counts of GET /api/status (lib/system/status.ts) read these, through the partial index
 * `tasks_active_status_created_at_idx` (issue 32 item 2).
 */
export const ACTIVE_TASK_STATUSES = [
  "received",
  "accepted_pending_payment",
  "counter_offered",
  "paid",
  "dispatched",
  "on_site",
] as const satisfies readonly TaskStatus[];

/** `urgency` of a task or estimate. */
export const URGENCIES = ["standard", "urgent"] as const;
export type Urgency = (typeof URGENCIES)[number];

/** Languages of client-facing e-mail. */
export const LANGS = ["fr", "en"] as const;
export type Lang = (typeof LANGS)[number];

/** How a task was (or will be) paid. */
export const PAYMENT_METHODS = ["usdc", "account", "manual"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Refund state of a task cancelled after payment. */
export const REFUND_STATUSES = ["none", "pending", "refunded", "denied"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** API key scopes (interface spec "Authentication"). */
export const SCOPES = ["audit_only", "task_create", "task_cancel", "billing_read", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes of a new key when the request names none. */
export const DEFAULT_SCOPES = ["audit_only", "task_create"] as const satisfies readonly Scope[];

// The event types (TASK_EVENT_TYPES, BILLING_EVENT_TYPES, EVENT_TYPES) are derived from the
// event registry, ./event-registry.ts (issue 46 item 2).

/** Outcome of matching one on-chain USDC transfer to a task. */
export const CHAIN_TRANSFER_STATUSES = ["matched", "unmatched", "late", "reorged"] as const;
export type ChainTransferStatus = (typeof CHAIN_TRANSFER_STATUSES)[number];

/** Result of a scheduled job's last run. */
export const JOB_RUN_STATUSES = ["ok", "error"] as const;
export type JobRunStatus = (typeof JOB_RUN_STATUSES)[number];

/** A registered webhook, or the task's own `callback_url`. */
export const DELIVERY_KINDS = ["webhook", "callback"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** Delivery state; `dead` is the dead-letter queue; `cancelled` when its webhook was deleted first. */
export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "dead", "cancelled"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** State of an idempotency record. */
export const IDEMPOTENCY_STATES = ["in_progress", "completed"] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/** Prepaid client account status (interface spec). */
export const ACCOUNT_STATUSES = ["pending_deposit", "active", "suspended"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Kinds of ledger entry; credits are positive, debits negative. */
export const LEDGER_ENTRY_KINDS = ["deposit", "charge", "refund", "adjustment"] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];

/**
 * Kinds of invoice: `deposit` (receipt of a prepaid deposit), `task_charge` (a task paid from a
 * prepaid account), `usdc_receipt` (a task paid in USDC: the receipt of the payment, docs/taxes.md
 * "USDC receipts"), `refund` (a credit note, of a charge or of a USDC receipt).
 */
export const INVOICE_KINDS = ["deposit", "task_charge", "usdc_receipt", "refund"] as const;
export type InvoiceKind = (typeof INVOICE_KINDS)[number];

/** Why a requester disputes a completed task (POST /api/task-dispute `reason`; issue 27). */
export const DISPUTE_REASONS = [
  "not_done",
  "incomplete",
  "wrong_location",
  "damaged",
  "late",
  "other",
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** State of a dispute: `open` until staff resolve it. */
export const DISPUTE_STATUSES = ["open", "resolved"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/**
 * How a dispute is resolved (POST /api/dispute-resolve): `redo` (a linked follow-up task at no
 * charge), `partial_refund`, `full_refund` (what is left of what was paid) or `reject`.
 */
export const DISPUTE_RESOLUTIONS = ["redo", "partial_refund", "full_refund", "reject"] as const;
export type DisputeResolution = (typeof DISPUTE_RESOLUTIONS)[number];

/** Purposes of a one-time e-mailed token. */
export const AUTH_TOKEN_PURPOSES = ["verify_email", "reset_password"] as const;
export type AuthTokenPurpose = (typeof AUTH_TOKEN_PURPOSES)[number];

/** State of an outgoing e-mail. */
/** `suppressed`: never sent (e.g. over UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY); kept as a record. */
export const EMAIL_STATUSES = ["queued", "sent", "failed", "suppressed"] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * Staff roles (issue 26 item 2; what each may do: lib/permissions.ts `ROLE_PERMISSIONS`). An admin
 * API key acts as `owner`.
 */
/**
 * Whether a service's tasks need a site visit (a check-in by the assignee) before completion
 * (issue 44 item 1; docs/staff-and-audit.md "Visit rules"; the catalog says which, per service).
 */
export const SITE_VISIT_RULES = ["required", "optional", "none"] as const;
export type SiteVisitRule = (typeof SITE_VISIT_RULES)[number];

export const ROLES = ["owner", "reviewer", "dispatcher", "field", "finance"] as const;
export type Role = (typeof ROLES)[number];

/**
 * A staff account's state: `invited` (the invitation is not yet accepted), `active`, `suspended`
 * (signs in nothing; its sessions end at once).
 */
export const STAFF_STATUSES = ["invited", "active", "suspended"] as const;
export type StaffStatus = (typeof STAFF_STATUSES)[number];

/**
 * Who an audit-log row says acted (docs/staff-and-audit.md): a staff member (`staff`), an API key
 * (`api_key`, admin keys included), a signed-in client account (`client`), a caller with no
 * credential or only a task's access token (`anonymous`), or a scheduled job (`system`).
 */
export const ACTOR_KINDS = ["staff", "api_key", "client", "anonymous", "system"] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/**
 * What an audit-log row records (docs/staff-and-audit.md "Actions"): each task transition
 * (`task.<action>` of lib/tasks/state/transitions.ts), each ledger movement, a refund settled,
 * an account's status or discount set, a key created, revoked, linked or unlinked, a staff
 * account invited, enrolled, signed in (with its method), given a passkey or new recovery codes,
 * given a role, suspended or reactivated, a task assigned or
 * unassigned, a site visit's check-in and check-out, a proof file uploaded from the field, a task
 * flagged at risk of missing its execution deadline (the deadline watch).
 */
export const AUDIT_ACTIONS = [
  "task.approve",
  "task.counter_offer",
  "task.reject",
  "task.pay",
  "task.expire",
  "task.cancel",
  "task.dispatch",
  "task.arrive",
  "task.complete",
  "task.fail",
  "ledger.deposit",
  "ledger.charge",
  "ledger.refund",
  "ledger.adjustment",
  "refund.settle",
  "dispute.open",
  "dispute.resolve",
  "sla.credit",
  "account.suspend",
  "account.activate",
  "account.set_discount",
  "key.create",
  "key.revoke",
  "key.link",
  "key.unlink",
  "staff.invite",
  "staff.enroll",
  "staff.set_role",
  "staff.suspend",
  "staff.activate",
  "staff.sign_in",
  "staff.passkey_add",
  "staff.recovery_codes",
  "task.assign",
  "task.unassign",
  "visit.check_in",
  "visit.check_out",
  "proof.upload",
  "task.at_risk",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Kinds of a task's refund entries (lib/db/schema/task-refunds.ts): `credit`, money given back to
 * the prepaid account at once; `owed`, money promised and awaiting finance; `settlement`, what
 * finance recorded for the owed entries it closed (refunded or denied).
 */
export const TASK_REFUND_KINDS = ["credit", "owed", "settlement"] as const;
export type TaskRefundKind = (typeof TASK_REFUND_KINDS)[number];

/** What gave money back (or promised it): the path that wrote a refund entry. */
export const TASK_REFUND_SOURCES = ["cancellation", "dispute", "sla_credit", "settlement"] as const;
export type TaskRefundSource = (typeof TASK_REFUND_SOURCES)[number];

/**
 * Why money went back, as billing shows it (`refund_reason` of a ledger refund, `refund_reasons`
 * of a credit note): the recourse path that granted it, a settlement named by the refunds it closed.
 */
export const REFUND_REASONS = [
  "cancellation",
  "dispute",
  "sla_credit",
] as const satisfies readonly TaskRefundSource[];
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * The status response of GET /api/submit-task (docs/api-conventions.md "Status response"). For a
 * caller without the owner's credential (lib/tasks/state/task-access.ts) only the public part:
 * ids, service, status, sandbox, urgency, times, deadlines, the history's statuses and times,
 * `_polling` and `_links`. For the owner or an admin also the task record, payment details from `accepted_pending_payment` on, the counter-offer,
 * proof files when completed (with their size, SHA-256 and capture metadata in `proof_files`),
 * the signed receipt once completed or failed, the policy screen's outcome, the SLA terms and any
 * credit (`sla`), the latest dispute (`dispute`, issue 27), the assignment (the staff member's
 * display name) and the site visit (issue 26), the history, `_polling` and links. For an admin
 * (an admin key or a staff member) also `actors`: who did each step, from the audit trail;
 * requesters never see it.
 */
import { and, asc, eq } from "drizzle-orm";
import { getConfig, publicBaseUrl } from "../config.js";
import { getDb } from "../db/client.js";
import { TASK_STATUSES, type TaskStatus } from "../db/schema/enums.js";
import type { EventType } from "../db/schema/event-registry.js";
import { auditLog, proofFiles, slaCredits, staffMembers, type Task, taskEvents } from "../db/schema/index.js";
import { formatUsdc } from "../money.js";
import { paymentNetworks } from "../payments/networks.js";
import { x402Enabled, x402Url } from "../payments/x402/protocol.js";
import { RECEIPT_JWKS_PATH } from "../receipts/receipt.js";
import { taxesForAmount } from "../taxes.js";
import { disputeSummary, latestDispute } from "./state/dispute-view.js";
import { slaView } from "./state/recourse.js";
import { readSiteVisit, siteVisitView } from "./state/site-visit.js";
import { seesContent, type TaskAccess } from "./state/task-access.js";
import { taskLinks } from "./state/task-links.js";
import { awaitsPayment, isTerminal } from "./state/transitions.js";
import { visitRuleOf, visitRuleView } from "./state/visit-rules.js";
import { nextPollSeconds, publicAction, recommendedAction } from "./task-advice.js";

/**
 * Statuses whose view shows the payment block: every status from approval on, but those that
 * end a task unpaid (a cancelled task shows it only when it was paid).
 */
const NO_PAYMENT: readonly TaskStatus[] = ["received", "rejected", "payment_expired", "cancelled"];
const SHOW_PAYMENT = TASK_STATUSES.filter((s) => !NO_PAYMENT.includes(s));

/** One entry of a task's status history: an event of the task, in `seq` order. */
export interface TaskHistoryEntry {
  status: TaskStatus | null;
  event: EventType;
  at: Date;
}

/** The history of task `taskId`, oldest first. */
export async function taskHistory(taskId: string): Promise<TaskHistoryEntry[]> {
  const db = await getDb();
  return db
    .select({ status: taskEvents.taskStatus, event: taskEvents.type, at: taskEvents.createdAt })
    .from(taskEvents)
    .where(eq(taskEvents.taskId, taskId))
    .orderBy(asc(taskEvents.seq));
}

/**
 * Who did a step of a task, as the console shows it: a staff member (role and display name), an
 * admin key ("API key key_…"), a scheduled job ("system (job name)") or the requester.
 */
export interface TaskActorEntry {
  at: string;
  action: string;
  actor_kind: "staff" | "admin_key" | "system" | "requester";
  actor_role: string | null;
  actor_display_name: string | null;
}

/**
 * The audit trail of task `taskId`, oldest first, as {@link TaskActorEntry}: a staff member's
 * current display name; an admin key's id; a job's name; requesters (their key, client account or
 * access token, anonymous) only as `requester`, without an id.
 */
export async function taskActors(taskId: string): Promise<TaskActorEntry[]> {
  const db = await getDb();
  const rows = await db
    .select({
      at: auditLog.at,
      action: auditLog.action,
      kind: auditLog.actorKind,
      id: auditLog.actorId,
      role: auditLog.actorRole,
      name: staffMembers.displayName,
    })
    .from(auditLog)
    .leftJoin(staffMembers, and(eq(auditLog.actorKind, "staff"), eq(staffMembers.id, auditLog.actorId)))
    .where(eq(auditLog.taskId, taskId))
    .orderBy(asc(auditLog.id));
  return rows.map((r): TaskActorEntry => {
    const base = { at: r.at.toISOString(), action: r.action };
    if (r.kind === "staff") {
      return { ...base, actor_kind: "staff", actor_role: r.role, actor_display_name: r.name };
    }
    if (r.kind === "api_key" && r.role !== null) {
      return { ...base, actor_kind: "admin_key", actor_role: r.role, actor_display_name: r.id };
    }
    if (r.kind === "system") {
      return { ...base, actor_kind: "system", actor_role: null, actor_display_name: r.id };
    }
    return { ...base, actor_kind: "requester", actor_role: null, actor_display_name: null };
  });
}

/**
 * The entries of `history` that set a status: events that change none (a dispute, an SLA credit;
 * issue 27) are delivered as events but are not steps of the status history.
 */
function statusHistory(history: TaskHistoryEntry[]): TaskHistoryEntry[] {
  return history.filter((h) => h.status !== null);
}

/** The `refund` block of a task whose refund was requested (amounts in CAD). */
function refundView(task: Task): Record<string, unknown> {
  return {
    status: task.refundStatus,
    amount_cad: task.refundAmountCad,
    settled_at: task.refundSettledAt?.toISOString() ?? null,
    tx_hash: task.refundTxHash,
    note: task.refundNote,
  };
}

/** Whether `task` may be paid with x402 now: x402 on, a real task awaiting payment, a network configured. */
function x402Payable(task: Task): boolean {
  return awaitsPayment(task) && x402Enabled() && paymentNetworks().length > 0;
}

/**
 * The `payment` block of a task: method, amount in CAD (counter-offer, price or estimate),
 * `payment_usdc` (decimal string), the networks it may be paid on (none for an account),
 * the rate and the payment's time and transaction, and the USDC receipt's invoice id.
 */
export function paymentView(task: Task): Record<string, unknown> {
  return {
    method: task.paymentMethod,
    amount_cad: task.counterOfferAmount ?? task.priceCad ?? task.estimateCad,
    payment_usdc: task.paymentUsdcMicro === null ? null : formatUsdc(task.paymentUsdcMicro),
    networks: task.paymentMethod === "account" ? [] : paymentNetworks(),
    x402_url: x402Payable(task) ? x402Url(task.id) : null,
    exchange_rate: task.exchangeRate,
    rate_source: task.rateSource,
    expires_at: task.paymentExpiresAt?.toISOString() ?? null,
    paid_at: task.paidAt?.toISOString() ?? null,
    network: task.paymentNetwork,
    tx_hash: task.paymentTxHash,
    receipt_invoice_id: task.receiptInvoiceId,
  };
}

/**
 * The proof files of task `taskId` in upload order: name, type, size (bytes), SHA-256 (hex),
 * capture metadata and, when `withContent`, the content base64-encoded.
 */
async function proofFilesView(taskId: string, withContent: boolean) {
  const db = await getDb();
  const columns = {
    filename: proofFiles.filename,
    type: proofFiles.mimeType,
    size: proofFiles.sizeBytes,
    sha256: proofFiles.sha256,
    capture: proofFiles.capture,
  };
  const order = [asc(proofFiles.createdAt), asc(proofFiles.position), asc(proofFiles.id)];
  const where = eq(proofFiles.taskId, taskId);
  if (!withContent) {
    const rows = await db
      .select(columns)
      .from(proofFiles)
      .where(where)
      .orderBy(...order);
    return rows.map((f) => ({ ...f, content: undefined }));
  }
  const rows = await db
    .select({ ...columns, content: proofFiles.content })
    .from(proofFiles)
    .where(where)
    .orderBy(...order);
  return rows.map((f) => ({ ...f, content: Buffer.from(f.content).toString("base64") }));
}

/**
 * Who the task is assigned to, as the status shows it (issue 26 item 4): the display name the
 * staff member chose and when; the staff id for an admin only (requesters never see an id or an
 * e-mail). Null when unassigned.
 */
async function assignmentView(task: Task, access: TaskAccess): Promise<Record<string, unknown> | null> {
  if (!task.assignedStaffId || !task.assignedAt) return null;
  const db = await getDb();
  const [staff] = await db
    .select({ displayName: staffMembers.displayName })
    .from(staffMembers)
    .where(eq(staffMembers.id, task.assignedStaffId));
  return {
    operator_display_name: staff?.displayName ?? "",
    assigned_at: task.assignedAt.toISOString(),
    ...(access === "admin" ? { staff_id: task.assignedStaffId } : {}),
  };
}

/** Options of {@link taskStatusView}. */
export interface TaskViewOptions {
  /**
   * Whether a completed task's view carries its proof files inline (`proof_files_data`, base64;
   * the HTTP read). MCP passes false: its results link to the files as resources instead.
   * Default true.
   */
  proofContent?: boolean;
}

/**
 * GST and QST of `task`'s amount and the total to pay, when the service is registered for the
 * sales taxes (docs/taxes.md); null otherwise or while the task has no amount.
 */
function taxesView(task: Task): ReturnType<typeof taxesForAmount> | null {
  const amount = task.counterOfferAmount ?? task.priceCad ?? task.estimateCad;
  if (amount === null) return null;
  return taxesForAmount(amount, getConfig().TAX_REGISTERED, task.reviewedAt ?? task.createdAt);
}

/**
 * The public part of `task`'s status: what anyone holding the task id may read (see the module
 * comment). `history` in `seq` order.
 */
function publicStatusView(task: Task, history: TaskHistoryEntry[]): Record<string, unknown> {
  return {
    task_id: task.id,
    service_type: task.serviceType,
    status: task.status,
    sandbox: task.sandbox,
    urgency: task.urgency,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
    review_deadline: task.reviewDeadline.toISOString(),
    execution_deadline: task.executionDeadline.toISOString(),
    history: statusHistory(history).map((h) => ({ status: h.status, at: h.at.toISOString() })),
    _polling: {
      next_poll_seconds: nextPollSeconds(task),
      is_terminal: isTerminal(task.status),
      recommended_action: publicAction(task),
    },
    _links: taskLinks(task.id),
  };
}

/**
 * Builds the status response of `task` for a caller with `access` (taskAccess of
 * lib/tasks/state/task-access.ts): the public part only for `public`, everything for the owner or
 * an admin. `history` is the task's {@link taskHistory} when the caller read it already (with the
 * task, in one query); omitted, it is read here.
 */
export async function taskStatusView(
  task: Task,
  access: TaskAccess,
  history?: TaskHistoryEntry[],
  options: TaskViewOptions = {},
): Promise<Record<string, unknown>> {
  history ??= await taskHistory(task.id);
  if (!seesContent(access)) return publicStatusView(task, history);
  // A site visit exists only once the task was on site (a check-in moves it there): no read before.
  const [assignment, visit] = await Promise.all([
    assignmentView(task, access),
    task.onSiteAt ? readSiteVisit(task.id) : null,
  ]);
  const view: Record<string, unknown> = {
    task_id: task.id,
    service_type: task.serviceType,
    status: task.status,
    sandbox: task.sandbox,
    location_address: task.locationAddress,
    task_description: task.taskDescription,
    requester_contact: task.requesterContact,
    urgency: task.urgency,
    budget_limit: task.budgetLimit,
    max_cost_cad: task.maxCostCad,
    special_instructions: task.specialInstructions,
    preferred_output: task.preferredOutput,
    callback_url: task.callbackUrl,
    lang: task.lang,
    estimate_cad: task.estimateCad,
    estimate: task.estimate,
    location: task.location,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
    review_deadline: task.reviewDeadline.toISOString(),
    execution_deadline: task.executionDeadline.toISOString(),
    review_reason: task.reviewReason,
    refund_status: task.refundStatus,
    policy: policyView(task),
    assignment,
    site_visit: siteVisitView(visit),
    visit_rule: visitRuleView(
      task.visitRule ?? visitRuleOf(task.serviceType),
      task.status,
      visit,
      task.noVisitReason,
    ),
  };
  if (access === "admin") view.at_risk_at = task.atRiskAt?.toISOString() ?? null;
  const taxed = taxesView(task);
  if (taxed) {
    view.taxes = taxed.taxes;
    view.total_with_taxes_cad = taxed.total_with_taxes_cad;
  }
  if (task.refundStatus !== "none") view.refund = refundView(task);
  if (SHOW_PAYMENT.includes(task.status) || (task.status === "cancelled" && task.paidAt)) {
    view.payment = paymentView(task);
    view.payment_usdc = task.paymentUsdcMicro === null ? null : formatUsdc(task.paymentUsdcMicro);
  }
  if (task.status === "counter_offered") view.counter_offer_amount = task.counterOfferAmount;
  if (task.status === "completed") {
    const files = await proofFilesView(task.id, options.proofContent !== false);
    if (options.proofContent !== false) {
      view.proof_files_data = files.map((f) => ({ filename: f.filename, type: f.type, content: f.content }));
    }
    view.proof_files = files.map((f) => ({
      filename: f.filename,
      type: f.type,
      size: f.size,
      sha256: f.sha256,
      capture: f.capture ?? null,
    }));
    view.operator_notes = task.operatorNotes;
    view.completed_at = task.completedAt?.toISOString() ?? null;
  }
  if (task.status === "failed") {
    view.failure_reason = task.failureReason;
    view.operator_notes = task.operatorNotes;
  }
  // Recourse (issue 27): only a finished task can be disputed or credited, so others skip the reads.
  const finished = task.status === "completed" || task.status === "failed";
  const [dispute, credit] = finished ? await Promise.all([latestDispute(task.id), slaCreditOf(task.id)]) : [];
  view.sla = slaView(task, credit ?? null, finishedAt(task, history));
  if (dispute) view.dispute = disputeSummary(dispute);
  if (task.redoOfTaskId) view.redo_of_task_id = task.redoOfTaskId;
  if (task.refundUsdcMicro !== null && view.refund) {
    (view.refund as Record<string, unknown>).amount_usdc = formatUsdc(task.refundUsdcMicro);
  }
  if (task.receipt) view.receipt = task.receipt;
  view.history = statusHistory(history).map((h) => ({
    status: h.status,
    event: h.event,
    at: h.at.toISOString(),
  }));
  if (access === "admin") view.actors = await taskActors(task.id);
  const terminal = isTerminal(task.status);
  view._polling = {
    next_poll_seconds: nextPollSeconds(task),
    is_terminal: terminal,
    recommended_action: recommendedAction(task),
  };
  view._links = task.receipt
    ? { ...taskLinks(task.id), receipt_keys: `${publicBaseUrl()}${RECEIPT_JWKS_PATH}` }
    : taskLinks(task.id);
  return view;
}

/**
 * When `task` finished: its `completed_at`, else (failed) the time of its last `task.failed` event
 * in `history`, as lib/tasks/sla-credits.ts reads it; null while it has not finished.
 */
function finishedAt(task: Task, history: TaskHistoryEntry[]): Date | null {
  if (task.status === "completed") return task.completedAt;
  if (task.status !== "failed") return null;
  return history.findLast((h) => h.event === "task.failed")?.at ?? null;
}

/** The SLA credit given to task `taskId`, CAD, or undefined (lib/tasks/sla-credits.ts). */
async function slaCreditOf(taskId: string): Promise<number | undefined> {
  const db = await getDb();
  const [row] = await db
    .select({ amountCad: slaCredits.amountCad })
    .from(slaCredits)
    .where(eq(slaCredits.taskId, taskId));
  return row?.amountCad;
}

/**
 * The policy screen of `task` for the owner's status (null for tasks screened before it existed):
 * version, outcome, reason codes, whether an operator overrode it, the matched rules and the override.
 */
function policyView(task: Pick<Task, "policy">): Record<string, unknown> | null {
  if (!task.policy) return null;
  return {
    version: task.policy.version,
    outcome: task.policy.outcome,
    reason_codes: task.policy.reason_codes,
    overridden: Boolean(task.policy.override),
    matches: task.policy.matches,
    override: task.policy.override ?? null,
  };
}

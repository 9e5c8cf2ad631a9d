/**
 * Turns a task event into the e-mail the requester receives (docs/api-conventions.md: the
 * requester_contact "receives confirmation, payment instructions, deliverables"; the
 * state table's "confirmation e-mail (none in sandbox)" and "deliverables e-mailed").
 *
 * | event                   | template               | sent when                                  |
 * | ----------------------- | ---------------------- | ------------------------------------------ |
 * | task.created            | task-received          | always                                     |
 * | task.accepted           | payment-instructions   | the task still awaits a USDC payment       |
 * | task.counter_offered    | counter-offer          | the task still awaits a USDC payment       |
 * | task.rejected           | rejection              | always                                     |
 * | task.completed          | completion             | always; proof files attached               |
 * | task.failed             | task-failed            | always                                     |
 * | task.payment_expired    | payment-expired        | always                                     |
 * | task.disputed           | recourse               | always (the requester's copy; issue 27)    |
 * | task.dispute_resolved   | recourse               | always                                     |
 * | task.sla_credited       | recourse               | always                                     |
 * Other events (paid, dispatched, on_site, cancelled, sla_missed: the cancellation says it) send nothing; sandbox tasks never
 * send anything. Billing events are e-mailed by the billing module, not here.
 */
import { getService } from "../catalog/services.js";
import { getConfig } from "../config.js";
import { OPEN_PAYMENT_STATUSES } from "../db/schema/enums.js";
import type { TaskEventType } from "../db/schema/event-registry.js";
import type { EmailAttachmentRef, NewEmail, Task, TaskEvent } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { formatUsdc } from "../money.js";
import { paymentNetworks } from "../payments/networks.js";
import { x402Enabled, x402Url } from "../payments/x402/protocol.js";
import { taskLinks } from "../tasks/state/task-links.js";
import { formatBytes, formatCad, formatDateTime } from "./format.js";
import { disputeReasonLabel, disputeResolutionLabel } from "./labels.js";
import { renderTemplate, type TemplateName, type TemplateValues } from "./templates.js";

/** Which template each task event uses. */
export const EVENT_TEMPLATES: Partial<Record<TaskEventType, TemplateName>> = {
  "task.created": "task-received",
  "task.accepted": "payment-instructions",
  "task.counter_offered": "counter-offer",
  "task.rejected": "rejection",
  "task.completed": "completion",
  "task.failed": "task-failed",
  "task.payment_expired": "payment-expired",
  "task.disputed": "recourse",
  "task.dispute_resolved": "recourse",
  "task.sla_credited": "recourse",
};

/** The events whose e-mail tells the requester how to pay (and links the pay page). */
export const PAYMENT_EMAIL_EVENTS: ReadonlySet<string> = new Set(
  Object.entries(EVENT_TEMPLATES)
    .filter(([, template]) => template === "payment-instructions" || template === "counter-offer")
    .map(([type]) => type),
);

/** Whether `task` still awaits a USDC payment: the payment and counter-offer e-mails are sent then only. */
export function awaitsUsdcPayment(task: Task): task is Task & { paymentUsdcMicro: bigint } {
  return (OPEN_PAYMENT_STATUSES as readonly string[]).includes(task.status) && task.paymentUsdcMicro !== null;
}

/** A proof file as listed in the completion e-mail. */
export interface ProofFileSummary {
  id: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

/** Values every template may use. */
export function commonValues(task: Task): TemplateValues {
  const config = getConfig();
  return {
    task_id: task.id,
    service_name: getService(task.serviceType, { includeContract: false })?.name ?? task.serviceType,
    location_address: task.locationAddress,
    status_url: taskLinks(task.id).self,
    operator_name: config.OPERATOR_NAME,
    contact_email: config.CONTACT_EMAIL,
  };
}

function networksText(task: Task): string {
  const networks = paymentNetworks();
  if (networks.length === 0) {
    return task.lang === "fr"
      ? "  (réseaux et portefeuilles : voir payment.networks dans le statut de la tâche)"
      : "  (networks and wallets: see payment.networks in the task status)";
  }
  return networks
    .map(
      (n) =>
        `  - ${n.network} (chain id ${n.chain_id})\n    USDC: ${n.usdc_contract}\n    wallet: ${n.wallet}`,
    )
    .join("\n");
}

/**
 * The e-mail row for `event` of `task`, or null when the event sends none.
 * `files` are the task's proof files (completion only); `payUrl` the task's pay page URL with its
 * pay token (payment instructions and counter-offer; left out when absent).
 */
export function composeTaskEmail(
  event: TaskEvent,
  task: Task,
  files: ProofFileSummary[] = [],
  payUrl?: string,
): NewEmail | null {
  if (task.sandbox) return null;
  const template = EVENT_TEMPLATES[event.type as TaskEventType];
  if (!template) return null;
  const lang = task.lang;
  const payload = event.payload;
  const values: TemplateValues = { ...commonValues(task) };
  let attachments: EmailAttachmentRef[] | null = null;
  switch (template) {
    case "task-received":
      Object.assign(values, {
        task_description: task.taskDescription,
        urgency: task.urgency,
        estimate_cad: formatCad(task.estimateCad, lang),
        review_deadline: formatDateTime(task.reviewDeadline, lang),
        needs_counter_offer: task.needsCounterOffer,
      });
      break;
    case "payment-instructions":
    case "counter-offer":
      if (!awaitsUsdcPayment(task)) return null;
      Object.assign(values, {
        amount_cad: formatCad(task.counterOfferAmount ?? task.priceCad ?? task.estimateCad, lang),
        amount_usdc: formatUsdc(task.paymentUsdcMicro),
        // The pay page (lib/tasks/pay-page.ts): where a person pays from a browser wallet.
        pay_url: payUrl ?? null,
        expires_at: formatDateTime(task.paymentExpiresAt, lang),
        networks: networksText(task),
        // x402 (docs/x402.md): named when it is on and a network accepts payment.
        x402_url: x402Enabled() && paymentNetworks().length > 0 ? x402Url(task.id) : null,
        reason: task.reviewReason,
      });
      break;
    case "rejection":
      values.reason = (typeof payload.reason === "string" ? payload.reason : null) ?? task.reviewReason;
      break;
    case "completion":
      Object.assign(values, {
        completed_at: formatDateTime(task.completedAt ?? event.createdAt, lang),
        operator_notes: task.operatorNotes,
        file_count: files.length,
        files: files.length
          ? files.map((f) => `  - ${f.filename} (${f.mimeType}, ${formatBytes(f.sizeBytes)})`).join("\n")
          : lang === "fr"
            ? "  (aucun fichier)"
            : "  (no files)",
      });
      attachments = files.map((f) => ({
        proof_file_id: f.id,
        filename: f.filename,
        content_type: f.mimeType,
      }));
      break;
    case "task-failed":
      Object.assign(values, {
        reason: (typeof payload.reason === "string" ? payload.reason : null) ?? task.failureReason,
        operator_notes: task.operatorNotes,
      });
      break;
    case "payment-expired":
      values.expires_at = formatDateTime(task.paymentExpiresAt ?? event.createdAt, lang);
      break;
    case "recourse":
      Object.assign(values, recourseValues(event, task));
      break;
    case "webhook-fallback":
      return null;
  }
  return taskEmailRow(task, template, values, `${template}:${event.id}`, attachments);
}

/**
 * The values of the `recourse` template for a dispute or SLA-credit event (its payload). The
 * dispute's reason and resolution are codes in the payload; the reader gets their words in the
 * task's language (lib/mail/labels.ts), never the code.
 */
function recourseValues(event: TaskEvent, task: Task): TemplateValues {
  const p = event.payload;
  const cadOf = (v: unknown) => (typeof v === "number" ? formatCad(v, task.lang) : null);
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    disputed: event.type === "task.disputed",
    resolved: event.type === "task.dispute_resolved",
    credited: event.type === "task.sla_credited",
    // task.disputed: `reason` is the dispute's reason code; task.dispute_resolved: staff's note.
    reason: event.type === "task.disputed" ? disputeReasonLabel(p.reason, task.lang) : null,
    resolution: disputeResolutionLabel(p.resolution, task.lang),
    note: event.type === "task.dispute_resolved" ? text(p.reason) : null,
    refund_amount_cad: cadOf(p.refund_amount_cad),
    follow_up_task_id: text(p.follow_up_task_id),
    owed: p.refund_status === "pending",
    days_late: typeof p.days_late === "number" ? p.days_late : null,
    percent: typeof p.percent === "number" ? p.percent : null,
    credited_cad: cadOf(p.credited_cad),
  };
}

/**
 * The `emails` row of template `name` rendered in the task's language with `values`, to
 * the requester. `dedupeKey` makes a second queueing of the same message a no-op.
 * @throws Error when the template file is missing or malformed (lib/mail/templates.ts)
 */
export function taskEmailRow(
  task: Pick<Task, "id" | "lang" | "requesterContact">,
  name: TemplateName,
  values: TemplateValues,
  dedupeKey: string,
  attachments: EmailAttachmentRef[] | null = null,
): NewEmail {
  const { subject, text } = renderTemplate(name, task.lang, values);
  return {
    id: prefixedId("email"),
    toAddress: task.requesterContact,
    subject,
    textBody: text,
    template: name,
    lang: task.lang,
    taskId: task.id,
    dedupeKey,
    attachments,
  };
}

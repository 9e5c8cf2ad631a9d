/**
 * The action forms of the console's task page: review, payment record, progress, completion
 * with proof files, failure, refund settlement — each shown only in the statuses that allow it
 * and to the roles holding its permission (./api.js `can`; the server checks again).
 */
import { field, h } from "../../shared/dom.js";
import { can, get, postIdempotent } from "../api.js";
import { messages, render } from "../context.js";
import { formatCad, t } from "../i18n.js";
import { proofPicker } from "../proof.js";

const { announce, errorBox, showError } = messages;

/** A CAD amount input (cents, 0.01 to 1 000 000). */
const CAD_INPUT = { type: "number", inputmode: "decimal", min: "0.01", step: "0.01", max: "1000000" };

/**
 * An action form: validates natively, asks for confirmation when `confirm` is set, POSTs the
 * body from `build(form)` with an Idempotency-Key, announces `done` and reloads the task.
 */
function actionForm({
  title,
  className,
  fields,
  submitLabel,
  submitClass = "primary",
  confirm,
  endpoint,
  build,
  done,
}) {
  const error = errorBox();
  const button = h("button", { type: "submit", class: ["button", submitClass] }, submitLabel);
  const headingId = `act-${className}`;
  const form = h(
    "form",
    {
      class: ["action", className],
      "aria-labelledby": headingId,
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        if (button.disabled) return;
        if (!form.reportValidity()) return;
        if (confirm && !window.confirm(confirm)) return;
        showError(error, null);
        let body;
        try {
          body = await build(form);
        } catch (e) {
          showError(error, e);
          return;
        }
        button.disabled = true;
        button.setAttribute("aria-busy", "true");
        button.textContent = t("action.sending");
        try {
          await postIdempotent(form, endpoint, body);
          announce(t(done));
          await render();
        } catch (e) {
          showError(error, e);
          button.disabled = false;
          button.removeAttribute("aria-busy");
          button.textContent = submitLabel;
        }
      },
    },
    h("h3", { id: headingId }, title),
    fields,
    error,
    button,
  );
  return form;
}

function value(form, name) {
  const v = form.elements.namedItem(name)?.value?.trim() ?? "";
  return v === "" ? undefined : v;
}

function money(form, name) {
  const v = value(form, name);
  return v === undefined ? undefined : Number(v);
}

/** An optional transaction-hash input named `tx_hash` (0x + 64 hex digits). */
function txHashField(label) {
  return field(label, "input", {
    name: "tx_hash",
    pattern: "0x[0-9a-fA-F]{64}",
    title: t("error.invalid_tx"),
    autocapitalize: "off",
    spellcheck: "false",
  });
}

/** One line for the task's `refund`: status, amount, transaction, note. */
export function refundSummary(refund) {
  return [
    t(`refund.${refund.status}`),
    refund.amount_cad === null ? null : formatCad(refund.amount_cad),
    refund.tx_hash,
    refund.note,
  ]
    .filter(Boolean)
    .join(" · ");
}

/** Received: approve (optional price), counter-offer, reject. */
function reviewForms(task) {
  const id = task.task_id;
  const cad = CAD_INPUT;
  return [
    actionForm({
      title: t("action.approve"),
      className: "approve",
      fields: [
        field(t("action.price"), "input", { ...cad, name: "price_cad" }, { hint: t("action.approve_help") }),
        field(t("action.notes"), "textarea", { name: "operator_notes", rows: "2", maxlength: "2000" }),
      ],
      submitLabel: t("action.approve"),
      endpoint: "/api/task-review",
      done: "action.done.approve",
      build: (f) => ({
        task_id: id,
        action: "approve",
        price_cad: money(f, "price_cad"),
        operator_notes: value(f, "operator_notes"),
      }),
    }),
    actionForm({
      title: t("action.counter_offer"),
      className: "counter-offer",
      fields: [
        field(t("action.amount"), "input", { ...cad, name: "counter_offer_amount", required: true }),
        field(t("action.reason_optional"), "textarea", { name: "reason", rows: "2", maxlength: "1000" }),
      ],
      submitLabel: t("action.counter_offer"),
      submitClass: "secondary",
      endpoint: "/api/task-review",
      done: "action.done.counter_offer",
      build: (f) => ({
        task_id: id,
        action: "counter_offer",
        counter_offer_amount: money(f, "counter_offer_amount"),
        reason: value(f, "reason"),
      }),
    }),
    actionForm({
      title: t("action.reject"),
      className: "reject",
      fields: [
        field(t("action.reason"), "textarea", {
          name: "reason",
          rows: "2",
          maxlength: "1000",
          required: true,
        }),
      ],
      submitLabel: t("action.reject"),
      submitClass: "danger",
      confirm: t("action.reject_confirm"),
      endpoint: "/api/task-review",
      done: "action.done.reject",
      build: (f) => ({ task_id: id, action: "reject", reason: value(f, "reason") }),
    }),
  ];
}

/** Waiting for payment: record a payment received out of band. */
function paymentForms(task) {
  const id = task.task_id;
  const networks = (task.payment?.networks ?? []).map((n) => n.network);
  return [
    actionForm({
      title: t("action.payment"),
      className: "payment",
      fields: [
        networks.length
          ? field(
              t("action.payment_network"),
              "select",
              { name: "network" },
              { options: [["", t("app.none")], ...networks.map((n) => [n, n])] },
            )
          : field(t("action.payment_network"), "input", { name: "network", maxlength: "40" }),
        txHashField(t("action.payment_tx")),
        field(t("action.payment_note"), "textarea", { name: "note", rows: "2", maxlength: "1000" }),
      ],
      submitLabel: t("action.payment_submit"),
      endpoint: "/api/task-payment",
      done: "action.done.payment",
      build: (f) => ({
        task_id: id,
        network: value(f, "network"),
        tx_hash: value(f, "tx_hash"),
        note: value(f, "note"),
      }),
    }),
  ];
}

/** Paid or dispatched: the next step (dispatch, then on site). */
function progressForms(task) {
  const id = task.task_id;
  const step = task.status === "paid" ? "dispatch" : "on_site";
  return [
    actionForm({
      title: t("action.progress"),
      className: step.replace("_", "-"),
      fields: [],
      submitLabel: t(`action.${step}`),
      endpoint: "/api/task-complete",
      done: `action.done.${step}`,
      build: () => ({ task_id: id, action: step }),
    }),
  ];
}

/**
 * Paid, dispatched or on site: assign, reassign or unassign (POST /api/task-assign); the people
 * offered come from GET /api/task-assign, filled in once they arrive.
 */
function assignmentForms(task) {
  const id = task.task_id;
  const current = task.assignment?.staff_id ?? "";
  const select = h(
    "select",
    { name: "staff_id", "aria-busy": "true" },
    h("option", { value: "" }, t("action.unassigned")),
  );
  get("/api/task-assign")
    .then(({ staff }) => {
      for (const s of staff) {
        select.append(h("option", { value: s.staff_id, selected: s.staff_id === current }, s.display_name));
      }
      select.removeAttribute("aria-busy");
    })
    .catch(() => select.removeAttribute("aria-busy"));
  return [
    actionForm({
      title: t("action.assign"),
      className: "assign",
      fields: [h("label", { class: "field" }, h("span", {}, t("action.assign_to")), select)],
      submitLabel: t("action.assign_submit"),
      endpoint: "/api/task-assign",
      done: "action.done.assign",
      build: (f) => ({ task_id: id, staff_id: value(f, "staff_id") ?? null }),
    }),
  ];
}

/** Paid, dispatched or on site: complete with proof files, or fail. */
function executionForms(task) {
  const id = task.task_id;
  const picker = proofPicker();
  // A service that requires a site visit, not visited: completing here needs a reason (flagged).
  const needsReason = task.visit_rule?.rule === "required" && !task.site_visit && !task.sandbox;
  return [
    actionForm({
      title: t("action.complete"),
      className: "complete",
      fields: [
        picker.element,
        field(t("action.notes"), "textarea", { name: "operator_notes", rows: "3", maxlength: "5000" }),
        needsReason
          ? field(
              t("action.no_visit_reason"),
              "textarea",
              { name: "no_visit_reason", rows: "2", maxlength: "1000", required: true },
              { hint: t("action.no_visit_hint") },
            )
          : null,
      ],
      submitLabel: t("action.complete_submit"),
      endpoint: "/api/task-complete",
      done: "action.done.complete",
      build: async (f) => {
        const problem = picker.problem();
        if (problem) throw new Error(problem);
        const files = await picker.files();
        return {
          task_id: id,
          action: "complete",
          operator_notes: value(f, "operator_notes"),
          proof_files: files.length ? files : undefined,
          no_visit_reason: needsReason ? value(f, "no_visit_reason") : undefined,
        };
      },
    }),
    actionForm({
      title: t("action.fail"),
      className: "fail",
      fields: [
        field(t("action.reason"), "textarea", {
          name: "reason",
          rows: "2",
          maxlength: "1000",
          required: true,
        }),
      ],
      submitLabel: t("action.fail_submit"),
      submitClass: "danger",
      confirm: t("action.fail_confirm"),
      endpoint: "/api/task-complete",
      done: "action.done.fail",
      build: (f) => ({ task_id: id, action: "fail", reason: value(f, "reason") }),
    }),
  ];
}

/** Refund pending: settle it as refunded (amount, transaction) or denied. */
function refundForms(task) {
  const id = task.task_id;
  const cad = CAD_INPUT;
  // Settle the refund request (POST /api/task-refund): refunded (amount, USDC transaction) or denied.
  const account = task.payment?.method === "account";
  return [
    actionForm({
      title: t("action.refund"),
      className: "refund",
      fields: [
        field(t("action.refund_amount"), "input", {
          ...cad,
          name: "amount_cad",
          required: true,
          max: String(task.payment?.amount_cad ?? 1000000),
          value: String(task.refund?.amount_cad ?? task.payment?.amount_cad ?? ""),
        }),
        account ? h("p", { class: "muted" }, t("action.refund_account")) : txHashField(t("action.refund_tx")),
        field(t("action.refund_note"), "textarea", { name: "note", rows: "2", maxlength: "1000" }),
      ],
      submitLabel: t("action.refund_submit"),
      endpoint: "/api/task-refund",
      done: "action.done.refund",
      build: (f) => ({
        task_id: id,
        outcome: "refunded",
        amount_cad: money(f, "amount_cad"),
        tx_hash: value(f, "tx_hash"),
        note: value(f, "note"),
      }),
    }),
    actionForm({
      title: t("action.deny"),
      className: "deny",
      fields: [
        field(t("action.deny_reason"), "textarea", {
          name: "note",
          rows: "2",
          maxlength: "1000",
          required: true,
        }),
      ],
      submitLabel: t("action.deny_submit"),
      submitClass: "danger",
      confirm: t("action.deny_confirm"),
      endpoint: "/api/task-refund",
      done: "action.done.deny",
      build: (f) => ({ task_id: id, outcome: "denied", note: value(f, "note") }),
    }),
  ];
}

/** The forms allowed in the task's status (lib/tasks/transitions.ts) and the signed-in role. */
export function actionsSection(task) {
  const forms = [];
  let withheld = false;
  const add = (permission, make) => {
    if (can(permission)) forms.push(...make(task));
    else withheld = true;
  };
  if (task.status === "received") add("tasks.review", reviewForms);
  if (task.status === "accepted_pending_payment" || task.status === "counter_offered")
    add("payments.record", paymentForms);
  if (["paid", "dispatched", "on_site"].includes(task.status)) add("tasks.assign", assignmentForms);
  if (task.status === "paid") add("tasks.dispatch", progressForms);
  if (task.status === "dispatched") add("tasks.execute", progressForms);
  if (["paid", "dispatched", "on_site"].includes(task.status)) add("tasks.execute", executionForms);
  if (task.refund_status === "pending") add("refunds.settle", refundForms);
  return h(
    "section",
    { class: "panel actions", "aria-labelledby": "sec-actions" },
    h("h2", { id: "sec-actions" }, t("task.actions")),
    forms.length
      ? forms
      : h("p", { class: "muted" }, t(withheld ? "task.no_actions_role" : "task.no_actions")),
  );
}

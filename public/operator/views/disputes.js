/**
 * The console's disputes queue (#/disputes, issue 27; permission `disputes.read`): the disputes of
 * GET /api/disputes, open first and oldest first. Each shows the requester's side (reason, details,
 * evidence files: images inline, read with `dispute_id`, and each file's SHA-256) beside the work (the task's proof files as its page shows them, its
 * site visit when the status view has one, the signed receipt, an SLA credit), and, to the roles
 * holding `disputes.resolve`, the resolution form (POST /api/dispute-resolve with an
 * Idempotency-Key; the server checks the permission again).
 */
import { definitions, field, h } from "../../shared/dom.js";
import { badge, heading, proofItem } from "../../shared/views.js";
import { can, get, postIdempotent } from "../api.js";
import { messages, refreshButton, render, taskHref } from "../context.js";
import { formatBytes, formatCad, formatDateTime, t } from "../i18n.js";
import { statusBadge } from "../widgets.js";

const { announce, errorBox, showError } = messages;

/** The resolutions of POST /api/dispute-resolve, in the form's order. */
const RESOLUTIONS = ["redo", "partial_refund", "full_refund", "reject"];

/** The disputes shown at most (the endpoint's limit). */
const LIMIT = 200;

/** A dispute's status badge: "open" (warn) or "resolved". */
function disputeBadge(status) {
  return badge(t(`dispute.${status}`), `dispute-${status}`);
}

/** One evidence file: the file as a proof is shown (image inline, else a download), then its size and SHA-256. */
function evidenceItem(file) {
  const item = proofItem(file);
  item.append(
    h("p", { class: "meta" }, `${file.type} · ${formatBytes(file.size)} · `, h("code", {}, file.sha256)),
  );
  return item;
}

/**
 * The requester's side: reason, opened, details, evidence files. `withContent` is the dispute read
 * with its files' content (null when that read failed: the metadata is shown instead).
 */
function requesterSide(dispute, withContent) {
  const files = dispute.evidence_files ?? [];
  const read = withContent?.evidence_files;
  return h(
    "div",
    { class: "dispute-side" },
    h("h3", {}, t("disputes.requester")),
    definitions([
      [t("disputes.reason"), t(`dispute.reason.${dispute.reason}`)],
      [t("disputes.opened"), formatDateTime(dispute.opened_at)],
      [t("disputes.details"), h("span", { class: "prewrap" }, dispute.details)],
    ]),
    h("h4", {}, t("disputes.evidence")),
    read?.length
      ? h("ul", { class: "proof-gallery evidence" }, read.map(evidenceItem))
      : files.length
        ? h(
            "ul",
            { class: "plain evidence" },
            files.map((f) =>
              h(
                "li",
                {},
                h("strong", {}, f.filename),
                ` · ${f.type} · ${formatBytes(f.size)} · `,
                h("code", {}, f.sha256),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("disputes.no_evidence")),
  );
}

/** A site visit's scalar fields, as the status view carries them (`site_visit`), else null. */
function siteVisit(task) {
  const visit = task?.site_visit;
  if (!visit || typeof visit !== "object") return null;
  const pairs = Object.entries(visit)
    .filter(([, v]) => ["string", "number", "boolean"].includes(typeof v))
    .map(([k, v]) => [
      k,
      typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? formatDateTime(v) : String(v),
    ]);
  return [h("h4", {}, t("disputes.site_visit")), definitions(pairs)];
}

/** The work: the task's status, completion, proof files, site visit, receipt and SLA credit. */
function workSide(task) {
  if (!task) {
    return h(
      "div",
      { class: "dispute-side" },
      h("h3", {}, t("disputes.work")),
      h("p", { class: "muted" }, t("disputes.task_unreadable")),
    );
  }
  const proofs = task.proof_files_data ?? [];
  return h(
    "div",
    { class: "dispute-side" },
    h("h3", {}, t("disputes.work")),
    definitions([
      [t("task.status"), statusBadge(task.status)],
      [t("task.completed_at"), task.completed_at ? formatDateTime(task.completed_at) : null],
      [t("task.payment_amount"), task.payment ? formatCad(task.payment.amount_cad) : null],
      [
        t("disputes.receipt"),
        task.receipt
          ? badge(t("disputes.receipt_signed"), "status-completed")
          : badge(t("disputes.receipt_none"), "warn"),
      ],
      [t("disputes.sla_credited"), task.sla?.credited_cad == null ? null : formatCad(task.sla.credited_cad)],
      [
        t("task.operator_notes"),
        task.operator_notes ? h("span", { class: "prewrap" }, task.operator_notes) : null,
      ],
    ]),
    h("h4", {}, t("task.proof")),
    proofs.length
      ? h("ul", { class: "proof-gallery" }, proofs.map(proofItem))
      : h("p", { class: "muted" }, t("disputes.no_proof")),
    siteVisit(task),
  );
}

/** How a resolved dispute ended: resolution, refund, follow-up task, note, when. */
function resolutionFacts(dispute) {
  return definitions([
    [t("disputes.resolution"), t(`dispute.resolution.${dispute.resolution}`)],
    [t("disputes.refund"), dispute.refund_amount_cad == null ? null : formatCad(dispute.refund_amount_cad)],
    [t("disputes.refund_usdc"), dispute.refund_usdc ? `${dispute.refund_usdc} USDC` : null],
    [
      t("disputes.follow_up"),
      dispute.follow_up_task_id
        ? h("a", { href: taskHref(dispute.follow_up_task_id) }, dispute.follow_up_task_id)
        : null,
    ],
    [t("disputes.note"), dispute.resolution_reason ?? null],
    [t("disputes.resolved_at"), dispute.resolved_at ? formatDateTime(dispute.resolved_at) : null],
  ]);
}

/**
 * The resolution form of an open dispute: redo, partial refund (amount), full refund, reject
 * (reason). A 422 on the amount shows the maximum the server names (`max_amount_cad`).
 */
function resolutionForm(dispute, task) {
  const error = errorBox();
  const headingId = `resolve-${dispute.dispute_id}`;
  const submitLabel = t("disputes.resolve_submit");
  const button = h("button", { type: "submit", class: "button primary" }, submitLabel);
  const paid = task?.payment?.amount_cad;
  const form = h(
    "form",
    {
      class: "action resolve-dispute",
      "aria-labelledby": headingId,
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        if (button.disabled || !form.reportValidity()) return;
        const f = form.elements;
        const resolution = f.namedItem("resolution").value;
        const amount = f.namedItem("amount_cad").value.trim();
        const reason = f.namedItem("reason").value.trim();
        showError(error, null);
        if (resolution === "partial_refund" && !amount)
          return showError(error, t("disputes.amount_required"));
        if (resolution === "reject" && !reason) return showError(error, t("disputes.reason_required"));
        if (resolution !== "redo" && !window.confirm(t(`disputes.confirm.${resolution}`))) return;
        const body = {
          dispute_id: dispute.dispute_id,
          resolution,
          amount_cad: resolution === "partial_refund" ? Number(amount) : undefined,
          reason: reason || undefined,
        };
        button.disabled = true;
        button.setAttribute("aria-busy", "true");
        button.textContent = t("action.sending");
        try {
          await postIdempotent(form, "/api/dispute-resolve", body);
          announce(t("disputes.done", { id: dispute.dispute_id }));
          await render({ focus: false });
        } catch (e) {
          showError(error, e);
          const max = e?.body?.max_amount_cad;
          if (typeof max === "number")
            error.append(
              h("span", { class: "error-line" }, t("disputes.max_amount", { amount: formatCad(max) })),
            );
          button.disabled = false;
          button.removeAttribute("aria-busy");
          button.textContent = submitLabel;
        }
      },
    },
    h("h3", { id: headingId }, t("disputes.resolve")),
    field(
      t("disputes.resolution"),
      "select",
      { name: "resolution" },
      { options: RESOLUTIONS.map((r) => [r, t(`disputes.option.${r}`)]) },
    ),
    field(
      t("disputes.amount"),
      "input",
      {
        name: "amount_cad",
        type: "number",
        inputmode: "decimal",
        min: "0.01",
        step: "0.01",
        max: "1000000",
      },
      {
        hint:
          paid == null
            ? t("disputes.amount_hint")
            : t("disputes.amount_hint_paid", { paid: formatCad(paid) }),
      },
    ),
    field(
      t("disputes.reason_field"),
      "textarea",
      { name: "reason", rows: "2", maxlength: "1000" },
      { hint: t("disputes.reason_hint") },
    ),
    error,
    button,
  );
  return form;
}

/**
 * One dispute: head (id, status, task link), the two sides, and its resolution or the form.
 * `evidence`: the dispute read with its evidence files' content, or null.
 */
function disputeCard(dispute, task, evidence) {
  const open = dispute.status === "open";
  return h(
    "li",
    { class: "card dispute", "data-dispute": dispute.dispute_id },
    h(
      "article",
      { class: "card-body", "aria-labelledby": `dsp-${dispute.dispute_id}` },
      h(
        "h2",
        { class: "card-title", id: `dsp-${dispute.dispute_id}` },
        t("disputes.card_title", { id: dispute.dispute_id }),
        " ",
        disputeBadge(dispute.status),
      ),
      h(
        "p",
        {},
        `${t("disputes.task")}: `,
        h("a", { href: taskHref(dispute.task_id) }, dispute.task_id),
        task ? [" · ", task.service_type] : null,
      ),
      h("div", { class: "dispute-sides" }, requesterSide(dispute, evidence), workSide(task)),
      open
        ? can("disputes.resolve")
          ? resolutionForm(dispute, task)
          : h("p", { class: "muted no-resolve" }, t("disputes.no_resolve_role"))
        : [h("h3", {}, t("disputes.outcome")), resolutionFacts(dispute)],
    ),
  );
}

/** #/disputes: the queue, each dispute beside its task's status view (read in parallel). */
export async function disputesView() {
  const { disputes } = await get(`/api/disputes?limit=${LIMIT}`);
  const tasks = await Promise.all(
    disputes.map((d) => get(`/api/submit-task?task_id=${encodeURIComponent(d.task_id)}`).catch(() => null)),
  );
  const evidence = await Promise.all(
    disputes.map((d) =>
      d.evidence_files?.length
        ? get(`/api/disputes?dispute_id=${encodeURIComponent(d.dispute_id)}`)
            .then((r) => r.disputes[0] ?? null)
            .catch(() => null)
        : null,
    ),
  );
  const openCount = disputes.filter((d) => d.status === "open").length;
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("disputes.title")), refreshButton()),
    h("p", { class: "muted" }, t("disputes.intro")),
    h("p", { class: "count" }, t("disputes.count", { n: openCount })),
    disputes.length
      ? h(
          "ul",
          { class: "cards disputes" },
          disputes.map((d, i) => disputeCard(d, tasks[i], evidence[i])),
        )
      : h("p", { class: "empty" }, t("disputes.empty")),
  );
}

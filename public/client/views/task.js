/**
 * One task of the signed-in client (#/task/<id>): the request, the proof files, the recourse
 * section (the dispute window, "Report a problem" with evidence files, the dispute's outcome, the
 * SLA terms and any credit) and the status history.
 */
import { capabilities } from "../../shared/capabilities.js";
import { definitions, field, h } from "../../shared/dom.js";
import { readBase64 } from "../../shared/photos.js";
import { badge, heading, proofItem } from "../../shared/views.js";
import { request } from "../api.js";
import { apiForm, messages, optionalField, render, section, value } from "../context.js";
import { formatCad, formatDateTime, t } from "../i18n.js";
import { paymentLabel } from "./account.js";

/** Largest evidence file the form sends (3 MB, the proof files' limit per file). */
const MAX_EVIDENCE_BYTES = 3 * 1024 * 1024;

/**
 * The end of the task's dispute window (`completed_at` + the terms' `window_hours`), or null when
 * the task is not completed or the terms are unknown.
 */
function disputeWindowEnd(task, recourse) {
  const hours = recourse?.disputes?.window_hours;
  if (task.status !== "completed" || !task.completed_at || typeof hours !== "number") return null;
  return new Date(Date.parse(task.completed_at) + hours * 3600 * 1000);
}

/**
 * "Report a problem" (issue 27): reason, details and an optional evidence file (base64, checked
 * by the server as proof files are), POSTed to /api/task-dispute with the signed-in session.
 */
function reportForm(task, recourse, windowEnd) {
  const reasons = recourse.disputes.reasons ?? [];
  return apiForm({
    // After a resolved dispute the owner may open another (one open at a time).
    title: h("h3", {}, t(task.dispute ? "ctask.report_another" : "ctask.report")),
    intro: t("ctask.report_intro", { at: formatDateTime(windowEnd.toISOString()) }),
    fields: [
      field(
        t("ctask.report_reason"),
        "select",
        { name: "reason", required: true },
        { options: reasons.map((r) => [r, t(`dispute.reason.${r}`)]) },
      ),
      field(t("ctask.report_details"), "textarea", {
        name: "details",
        rows: "4",
        maxlength: "2000",
        required: true,
      }),
      optionalField(
        t("ctask.report_file"),
        "input",
        { name: "evidence", type: "file", accept: "image/*,application/pdf" },
        { hint: t("ctask.report_file_hint") },
      ),
    ],
    submit: t("ctask.report_submit"),
    path: "/api/task-dispute",
    auth: true,
    build: async (form) => {
      const body = { task_id: task.task_id, reason: value(form, "reason"), details: value(form, "details") };
      const file = form.elements.namedItem("evidence")?.files?.[0];
      if (file) {
        if (file.size > MAX_EVIDENCE_BYTES) throw new Error(t("ctask.report_file_too_big"));
        body.evidence_files = [
          {
            filename: file.name,
            type: file.type || "application/octet-stream",
            content: await readBase64(file),
          },
        ];
      }
      return body;
    },
    done: async () => {
      messages.announce(t("ctask.report_done"));
      await render({ focus: false });
    },
  });
}

/**
 * The task's service level (deadlines, the late-credit policy, a credit given) and its dispute, if
 * any (issue 27): what the owner's status view carries as `sla` and `dispute`; on a completed task
 * within the dispute window and without an open dispute, the "Report a problem" form.
 */
function recourseSection(task, recourse) {
  const sla = task.sla;
  const dispute = task.dispute;
  const windowEnd = disputeWindowEnd(task, recourse);
  const canReport = windowEnd !== null && windowEnd.getTime() > Date.now() && dispute?.status !== "open";
  if (!sla && !dispute && !canReport) return null;
  return section(
    "sec-recourse",
    t("ctask.recourse"),
    sla
      ? definitions([
          [t("ctask.review_deadline"), formatDateTime(sla.review_deadline)],
          [t("ctask.execution_deadline"), formatDateTime(sla.execution_deadline)],
          [
            t("ctask.sla_policy"),
            t("ctask.sla_policy_value", { p: sla.credit_percent_per_day, cap: sla.cap_percent }),
          ],
          [t("ctask.sla_credited"), sla.credited_cad == null ? null : formatCad(sla.credited_cad)],
        ])
      : null,
    dispute
      ? [
          h(
            "h3",
            { id: "dispute-heading" },
            t("ctask.dispute"),
            " ",
            badge(t(`dispute.${dispute.status}`), `dispute-${dispute.status}`),
          ),
          definitions([
            [t("ctask.dispute_reason"), t(`dispute.reason.${dispute.reason}`)],
            [t("ctask.dispute_opened"), formatDateTime(dispute.opened_at)],
            [
              t("ctask.dispute_resolution"),
              dispute.resolution ? t(`dispute.resolution.${dispute.resolution}`) : null,
            ],
            [
              t("ctask.dispute_refund"),
              dispute.refund_amount_cad == null ? null : formatCad(dispute.refund_amount_cad),
            ],
            [
              t("ctask.dispute_follow_up"),
              dispute.follow_up_task_id
                ? h(
                    "a",
                    { href: `#/task/${encodeURIComponent(dispute.follow_up_task_id)}` },
                    dispute.follow_up_task_id,
                  )
                : null,
            ],
            [t("ctask.dispute_note"), dispute.resolution_reason ?? null],
            [t("ctask.dispute_resolved"), dispute.resolved_at ? formatDateTime(dispute.resolved_at) : null],
          ]),
        ]
      : null,
    canReport
      ? reportForm(task, recourse, windowEnd)
      : !dispute && task.status === "completed"
        ? h("p", { class: "hint" }, t("ctask.no_dispute"))
        : null,
  );
}

/**
 * #/task/<id>: one task with its status history and proof files. The signed-in client's token is
 * sent: the task's content is its owner's (docs/security.md "Who can read what"); without it only the public
 * part shows.
 */
export async function taskView(id) {
  const [task, caps] = await Promise.all([
    request("GET", `/api/submit-task?task_id=${encodeURIComponent(id)}`, { auth: true }),
    // The dispute window and reasons: without the terms the page still shows the task.
    capabilities().catch(() => ({})),
  ]);
  const proof = task.proof_files_data ?? [];
  return h(
    "section",
    {},
    h("p", {}, h("a", { href: "#/dashboard" }, t("ctask.back"))),
    heading(t("ctask.title", { id: task.task_id })),
    h(
      "p",
      { class: "badges" },
      badge(t(`status.${task.status}`), `status-${task.status}`),
      badge(task.service_type, "service"),
      task.sandbox ? badge(t("sandbox.badge"), "sandbox") : null,
    ),
    section(
      "sec-task",
      t("task.request"),
      definitions([
        [t("task.description"), h("span", { class: "prewrap" }, task.task_description)],
        [t("task.address"), task.location_address],
        [t("task.urgency"), t(`urgency.${task.urgency}`)],
        [t("task.estimate_total"), task.estimate_cad == null ? null : formatCad(task.estimate_cad)],
        [t("col.price"), task.payment ? formatCad(task.payment.amount_cad) : null],
        [t("col.payment"), paymentLabel(task.payment?.method, task.sandbox)],
        [t("task.created"), formatDateTime(task.created_at)],
        [t("task.completed_at"), task.completed_at ? formatDateTime(task.completed_at) : null],
        [t("task.failure_reason"), task.failure_reason],
      ]),
    ),
    section(
      "sec-proof",
      t("ctask.proof"),
      task.operator_notes
        ? h(
            "p",
            {},
            h("strong", {}, `${t("ctask.notes")}: `),
            h("span", { class: "prewrap" }, task.operator_notes),
          )
        : null,
      proof.length
        ? h("ul", { class: "proof-gallery" }, proof.map(proofItem))
        : h("p", { class: "empty" }, t("ctask.no_proof")),
    ),
    recourseSection(task, caps.recourse),
    section(
      "sec-history",
      t("task.history"),
      h(
        "ol",
        { class: "history" },
        (task.history ?? []).map((step) =>
          h(
            "li",
            {},
            h("time", { datetime: step.at }, formatDateTime(step.at)),
            " — ",
            t(`status.${step.status}`),
          ),
        ),
      ),
    ),
  );
}

/**
 * The signed-in views of the client dashboard: the account (#/dashboard: balance, spending
 * level, latest tasks, transactions and invoices) and one task (#/task/<id>). Sandbox tasks are
 * hidden from the task table unless `#/dashboard?sandbox=1` (the "Show sandbox tasks" toggle);
 * shown, they are marked and never read as paid "out of band".
 */
import { capabilities } from "../../shared/capabilities.js";
import { definitions, field, h } from "../../shared/dom.js";
import { badge, heading, proofItem } from "../../shared/views.js";
import { request } from "../api.js";
import {
  apiForm,
  downloadButton,
  go,
  messages,
  optionalField,
  refreshButton,
  render,
  section,
  tableSection,
  value,
} from "../context.js";
import { formatCad, formatDateTime, t } from "../i18n.js";
import { invoicePdfButton } from "./invoice.js";

function signedCad(amount) {
  return amount > 0 ? `+${formatCad(amount)}` : formatCad(amount);
}

function levelBadge(level) {
  const kind = { ok: "status-completed", warning: "warn", alert: "warn", blocked: "status-cancelled" }[level];
  return badge(t(`level.${level}`), kind);
}

/** How a task was paid, in words; a sandbox task is "sandbox (not charged)" whatever its record says. */
function paymentLabel(method, sandbox) {
  if (sandbox) return t("sandbox.not_charged");
  return method ? t(`pay.${method}`) : t("app.none");
}

/** Balance, available amount, spending level, account status and e-mail. */
function summarySection(account) {
  return section(
    "sec-balance",
    t("dash.summary"),
    h(
      "div",
      { class: "balance-figures" },
      h(
        "p",
        { class: "balance-main" },
        h("span", { class: "balance-label" }, t("dash.available")),
        h(
          "span",
          { class: "balance-amount", id: "available-balance" },
          formatCad(account.available_balance_cad),
        ),
      ),
      h(
        "p",
        {},
        h("span", { class: "balance-label" }, `${t("dash.level")} `),
        h("span", { id: "spending-level" }, levelBadge(account.spending_level)),
      ),
    ),
    definitions([
      [t("dash.balance"), formatCad(account.balance_cad)],
      [t("dash.held"), formatCad(account.held_cad)],
      [t("dash.account_status"), t(`account.${account.status}`)],
      [t("dash.discount"), account.discount_percent ? `${account.discount_percent} %` : null],
      [
        t("dash.email"),
        account.email_verified
          ? account.email
          : h(
              "span",
              {},
              `${account.email} (${t("dash.email_unverified")}) `,
              h("a", { href: "#/verify" }, t("dash.verify_link")),
            ),
      ],
      [t("dash.org"), h("code", {}, account.org_id)],
    ]),
    account.status === "pending_deposit" ? h("p", { class: "notice" }, t("dash.pending_deposit")) : null,
  );
}

/** The latest ledger entries: date, kind, signed amount, description with task, invoice. */
function transactionsSection(dashboard) {
  return tableSection(
    "sec-transactions",
    t("dash.transactions"),
    [t("col.date"), t("col.kind"), t("col.amount"), t("col.description"), t("col.invoice")],
    dashboard.transactions.map((e) => [
      formatDateTime(e.created_at),
      t(`kind.${e.kind}`),
      signedCad(e.amount_cad),
      [
        e.description ?? "",
        e.task_id ? [" ", h("a", { href: `#/task/${encodeURIComponent(e.task_id)}` }, e.task_id)] : null,
      ],
      e.invoice_id ? h("a", { href: `#/invoice/${encodeURIComponent(e.invoice_id)}` }, e.invoice_id) : "",
    ]),
    { numeric: [2], empty: t("dash.no_transactions") },
  );
}

/** The latest tasks; sandbox ones only when `showSandbox`, with a toggle and a count of the hidden. */
function tasksSection(dashboard, showSandbox) {
  const sandboxCount = dashboard.tasks.filter((task) => task.sandbox).length;
  const shown = showSandbox ? dashboard.tasks : dashboard.tasks.filter((task) => !task.sandbox);
  const toggle = h("input", {
    type: "checkbox",
    id: "f-show-sandbox",
    checked: showSandbox,
    onchange: (event) => go(event.currentTarget.checked ? "#/dashboard?sandbox=1" : "#/dashboard"),
  });
  const block = tableSection(
    "sec-tasks",
    t("dash.tasks"),
    [t("col.task"), t("col.service"), t("col.status"), t("col.price"), t("col.payment"), t("col.date")],
    shown.map((task) => [
      [
        h("a", { href: `#/task/${encodeURIComponent(task.task_id)}` }, task.task_id),
        task.sandbox ? [" ", badge(t("sandbox.badge"), "sandbox")] : null,
      ],
      task.service_type,
      [
        badge(t(`status.${task.status}`), `status-${task.status}`),
        task.dispute_status
          ? [" ", badge(t(`dispute.${task.dispute_status}`), `dispute-${task.dispute_status}`)]
          : null,
        task.sla_credited_cad
          ? [" ", badge(t("dash.sla_credit", { amount: formatCad(task.sla_credited_cad) }), "sla-credit")]
          : null,
      ],
      task.price_cad === null ? t("app.none") : formatCad(task.price_cad),
      paymentLabel(task.payment_method, task.sandbox),
      formatDateTime(task.created_at),
    ]),
    { numeric: [3], empty: t("dash.no_tasks") },
  );
  if (sandboxCount === 0 && !showSandbox) return block;
  // The toggle and the hidden count go between the heading and the table.
  const controls = [
    h(
      "div",
      { class: "field checkbox sandbox-toggle" },
      toggle,
      h("label", { for: "f-show-sandbox" }, t("dash.show_sandbox")),
    ),
  ];
  if (!showSandbox) controls.push(h("p", { class: "hint" }, t("dash.sandbox_hidden", { n: sandboxCount })));
  block.firstElementChild.after(...controls);
  return block;
}

/** The latest invoices (deposits, task charges, USDC receipts, credit notes), each with its PDF. */
function invoicesSection(dashboard) {
  return tableSection(
    "sec-invoices",
    t("dash.invoices"),
    [t("col.invoice"), t("col.kind"), t("col.total"), t("col.task"), t("col.date"), t("col.pdf")],
    dashboard.invoices.map((i) => [
      h("a", { href: `#/invoice/${encodeURIComponent(i.invoice_id)}` }, i.number ?? i.invoice_id),
      t(`kind.${i.kind}`),
      formatCad(i.total_cad),
      i.task_id ?? "",
      formatDateTime(i.issued_at),
      invoicePdfButton(i),
    ]),
    { numeric: [2], empty: t("dash.no_invoices") },
  );
}

/** #/dashboard[?sandbox=1]: the account summary and its latest tasks, transactions and invoices. */
export async function dashboardView(params) {
  const { account, dashboard } = await request("GET", "/api/client-account?include=dashboard", {
    auth: true,
  });
  return h(
    "section",
    {},
    h(
      "div",
      { class: "view-head" },
      heading(t("dash.title")),
      downloadButton(
        t("dash.download_data"),
        "/api/client-account?action=export",
        `my-data-${new Date().toISOString().slice(0, 10)}.json`,
        { id: "download-data", title: t("dash.download_data_hint") },
      ),
      refreshButton(),
    ),
    h("p", { class: "muted" }, account.name, account.company_name ? ` · ${account.company_name}` : ""),
    summarySection(account),
    h("p", { class: "muted" }, t("dash.latest")),
    tasksSection(dashboard, params.get("sandbox") === "1"),
    transactionsSection(dashboard),
    invoicesSection(dashboard),
  );
}

/** Largest evidence file the form sends (3 MB, the proof files' limit per file). */
const MAX_EVIDENCE_BYTES = 3 * 1024 * 1024;

/** Reads a file as base64 (without the data: prefix). */
function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

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

import { definitions, h } from "../../shared/dom.js";
import { badge, heading } from "../../shared/views.js";
import { request } from "../api.js";
import { downloadButton, go, refreshButton, section, tableSection } from "../context.js";
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
export function paymentLabel(method, sandbox) {
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

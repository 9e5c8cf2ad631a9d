/**
 * The operator console (issue 9): a small hash-routed single page over the admin API.
 *
 *   #/queue             review queue: status=received, sorted by review deadline, SLA countdowns
 *   #/tasks?status=…    every task, filtered by status / service / text, paginated
 *   #/task/<id>         everything the agent sent, estimate breakdown, map link, actions
 *   #/payments          on-chain transfers that paid no task (GET /api/chain-transfers)
 *   #/refunds           cancelled-after-payment tasks with refund_status pending
 *   #/dead-letters      a webhook's dead-letter queue, with replay
 *
 * Authentication: the admin API key pasted once, kept in sessionStorage (api.js). Routes carry
 * task ids and filters only, never the key. All text from the API is inserted as text nodes.
 */

import { definitions, field, h } from "../shared/dom.js";
import { pageMessages } from "../shared/feedback.js";
import { applyStaticStrings, markCurrentNav, showView } from "../shared/shell.js";
import { badge, heading, proofItem } from "../shared/views.js";
import { ApiError, get, getKey, postIdempotent, request, setKey } from "./api.js";
import { formatCad, formatDateTime, formatDuration, formatNumber, t } from "./i18n.js";
import { proofPicker } from "./proof.js";
import { startOperatorShell } from "./session.js";
import { policyBadge, policySection, verifiableSection } from "./verifiable.js";

const STATUSES = [
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
];
const SERVICES = ["SVC-01", "SVC-02", "SVC-03", "SVC-04", "SVC-05"];
const PAGE_SIZE = 50;
/** Remaining time under which an SLA countdown turns to "soon" (2 hours). */
const SOON_MS = 2 * 3600 * 1000;
const ESTIMATE_ITEMS = [
  ["base_fee", "cad"],
  ["site_hours", "number"],
  ["site_cost", "cad"],
  ["distance_km_one_way", "number"],
  ["km_roundtrip", "number"],
  ["km_cost", "cad"],
  ["transport_hours", "number"],
  ["transport_cost", "cad"],
  ["subtotal", "cad"],
  ["urgency_multiplier", "number"],
];

const main = document.getElementById("main");
const statusRegion = document.getElementById("status");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const langSelect = document.getElementById("lang-select");

// ---------------------------------------------------------------- messages

const { announce, errorBox, showError } = pageMessages(statusRegion);

// ---------------------------------------------------------------- small views

function statusBadge(status) {
  return badge(t(`status.${status}`), `status-${status}`);
}

/** A live SLA countdown; `updateCountdowns` refreshes every `.sla` element. */
function slaCountdown(label, deadline) {
  const el = h("span", { class: "sla", "data-deadline": deadline, "data-label": label });
  updateCountdown(el, Date.now());
  return el;
}

function updateCountdown(el, now) {
  const deadline = Date.parse(el.dataset.deadline ?? "");
  if (Number.isNaN(deadline)) return;
  const left = deadline - now;
  const text =
    left >= 0 ? t("sla.left", { t: formatDuration(left) }) : t("sla.overdue", { t: formatDuration(left) });
  el.replaceChildren(
    h("span", { class: "sla-label" }, `${el.dataset.label} `),
    h("time", { datetime: el.dataset.deadline, title: formatDateTime(el.dataset.deadline) }, text),
  );
  el.classList.toggle("sla-overdue", left < 0);
  el.classList.toggle("sla-soon", left >= 0 && left < SOON_MS);
}

function updateCountdowns() {
  const now = Date.now();
  for (const el of document.querySelectorAll(".sla[data-deadline]")) updateCountdown(el, now);
}
setInterval(updateCountdowns, 15_000);

function taskHref(id) {
  return `#/task/${encodeURIComponent(id)}`;
}

/** One task in a list: id link (the whole card is the touch target), badges, SLA, address, excerpt. */
function taskCard(task, { showSla = false } = {}) {
  return h(
    "li",
    { class: "card" },
    h(
      "article",
      { class: "card-body" },
      h(
        "h2",
        { class: "card-title" },
        h("a", { href: taskHref(task.task_id), class: "card-link" }, task.task_id),
      ),
      h(
        "p",
        { class: "badges" },
        statusBadge(task.status),
        badge(task.service_type, "service"),
        task.urgency === "urgent" ? badge(t("urgency.urgent"), "urgent") : null,
        task.needs_counter_offer ? badge(t("card.over_budget"), "warn") : null,
        task.refund_status === "pending" ? badge(t("card.refund_pending"), "warn") : null,
        task.sandbox ? badge(t("task.sandbox"), "muted") : null,
        policyBadge(task),
      ),
      showSla ? h("p", {}, slaCountdown(t("sla.review"), task.review_deadline)) : null,
      h("p", { class: "address" }, task.location_address),
      h("p", { class: "excerpt" }, task.task_description),
      h(
        "p",
        { class: "meta" },
        `${t("card.estimate")}: ${formatCad(task.estimate_cad)} · ${t("task.created")}: ${formatDateTime(task.created_at)}`,
      ),
    ),
  );
}

function refreshButton() {
  return h(
    "button",
    { type: "button", class: "button secondary", onclick: () => render() },
    t("app.refresh"),
  );
}

function yesNo(value) {
  return value ? t("yes") : t("no");
}

// ---------------------------------------------------------------- login

function loginView() {
  const error = errorBox();
  const keyField = field(t("login.key"), "input", {
    type: "password",
    name: "api_key",
    required: true,
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
  });
  const button = h("button", { type: "submit", class: "button primary" }, t("login.submit"));
  const form = h(
    "form",
    {
      class: "panel",
      method: "post",
      novalidate: false,
      onsubmit: async (event) => {
        event.preventDefault();
        const input = form.elements.namedItem("api_key");
        const key = input.value.trim();
        if (!key) return;
        showError(error, null);
        button.disabled = true;
        announce(t("login.checking"));
        try {
          await request("GET", "/api/task-list?limit=1", { key });
          setKey(key);
          input.value = "";
          announce(t("login.ok"));
          if (!location.hash || location.hash === "#/login") location.hash = "#/queue";
          else render();
        } catch (e) {
          if (e instanceof ApiError && e.status === 401) showError(error, new Error(t("login.invalid")));
          else if (e instanceof ApiError && e.status === 403)
            showError(error, new Error(t("login.not_admin")));
          else showError(error, e);
          button.disabled = false;
        }
      },
    },
    heading(t("login.title")),
    h("p", {}, t("login.intro")),
    keyField,
    error,
    button,
  );
  return form;
}

// ---------------------------------------------------------------- queue and lists

async function queueView() {
  const data = await get("/api/task-list?status=received&sort=review_deadline&limit=200");
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("queue.title")), refreshButton()),
    h("p", { class: "muted" }, t("queue.intro")),
    h("p", { class: "count" }, t("queue.count", { n: data.total })),
    data.tasks.length
      ? h(
          "ul",
          { class: "cards" },
          data.tasks.map((task) => taskCard(task, { showSla: true })),
        )
      : h("p", { class: "empty" }, t("queue.empty")),
  );
}

async function tasksView(params) {
  const status = params.get("status") ?? "";
  const service = params.get("service_type") ?? "";
  const q = params.get("q") ?? "";
  const sandbox = params.get("include_sandbox") === "true";
  const offset = Math.max(0, Number.parseInt(params.get("offset") ?? "0", 10) || 0);
  const query = new URLSearchParams({
    sort: "-created_at",
    limit: String(PAGE_SIZE),
    offset: String(offset),
  });
  if (status) query.set("status", status);
  if (service) query.set("service_type", service);
  if (q) query.set("q", q);
  if (sandbox) query.set("include_sandbox", "true");
  const data = await get(`/api/task-list?${query}`);

  const go = (changes) => {
    const next = new URLSearchParams();
    const values = { status, service_type: service, q, include_sandbox: sandbox ? "true" : "", ...changes };
    for (const [k, v] of Object.entries(values)) if (v) next.set(k, v);
    location.hash = `#/tasks?${next}`;
  };
  const form = h(
    "form",
    {
      class: "filters",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        const f = event.currentTarget.elements;
        go({
          status: f.namedItem("status").value,
          service_type: f.namedItem("service_type").value,
          q: f.namedItem("q").value.trim(),
          include_sandbox: f.namedItem("include_sandbox").checked ? "true" : "",
          offset: "",
        });
      },
    },
    field(
      t("tasks.status"),
      "select",
      { name: "status" },
      { options: [["", t("tasks.all")], ...STATUSES.map((s) => [s, t(`status.${s}`)])] },
    ),
    field(
      t("tasks.service"),
      "select",
      { name: "service_type" },
      { options: [["", t("tasks.all")], ...SERVICES.map((s) => [s, s])] },
    ),
    field(t("tasks.search"), "input", { type: "search", name: "q", value: q, maxlength: "200" }),
    h(
      "div",
      { class: "field checkbox" },
      h("input", { type: "checkbox", id: "f-sandbox", name: "include_sandbox", checked: sandbox }),
      h("label", { for: "f-sandbox" }, t("tasks.include_sandbox")),
    ),
    h("button", { type: "submit", class: "button primary" }, t("tasks.filter")),
  );
  form.elements.namedItem("status").value = status;
  form.elements.namedItem("service_type").value = service;

  const to = Math.min(offset + data.tasks.length, data.total);
  const pager = h(
    "nav",
    { class: "pager", "aria-label": t("tasks.title") },
    h(
      "button",
      {
        type: "button",
        class: "button secondary",
        disabled: offset === 0,
        onclick: () => go({ offset: String(Math.max(0, offset - PAGE_SIZE)) }),
      },
      t("tasks.prev"),
    ),
    h("span", {}, data.total ? t("tasks.range", { from: offset + 1, to, total: data.total }) : ""),
    h(
      "button",
      {
        type: "button",
        class: "button secondary",
        disabled: to >= data.total,
        onclick: () => go({ offset: String(offset + PAGE_SIZE) }),
      },
      t("tasks.next"),
    ),
  );
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("tasks.title")), refreshButton()),
    form,
    data.tasks.length
      ? h(
          "ul",
          { class: "cards" },
          data.tasks.map((task) => taskCard(task)),
        )
      : h("p", { class: "empty" }, t("tasks.empty")),
    pager,
  );
}

async function refundsView() {
  const data = await get("/api/task-list?status=cancelled&sort=-updated_at&limit=200");
  const pending = data.tasks.filter((task) => task.refund_status === "pending");
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("refunds.title")), refreshButton()),
    h("p", { class: "muted" }, t("refunds.intro")),
    pending.length
      ? h(
          "ul",
          { class: "cards" },
          pending.map((task) => taskCard(task)),
        )
      : h("p", { class: "empty" }, t("refunds.empty")),
  );
}

async function paymentsView() {
  const head = [h("div", { class: "view-head" }, heading(t("payments.title")), refreshButton())];
  let data;
  try {
    data = await get("/api/chain-transfers?status=unmatched,late&limit=100");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      return h("section", {}, head, h("p", { class: "empty" }, t("payments.unavailable")));
    }
    throw error;
  }
  const transfers = data.transfers ?? [];
  return h(
    "section",
    {},
    head,
    h("p", { class: "muted" }, t("payments.intro")),
    transfers.length
      ? h(
          "ul",
          { class: "cards" },
          transfers.map((tr) =>
            h(
              "li",
              { class: "card" },
              h(
                "article",
                { class: "card-body" },
                h("h2", { class: "card-title" }, `${tr.amount_usdc} USDC · ${tr.network}`),
                h("p", { class: "badges" }, badge(tr.status, tr.status === "late" ? "warn" : "muted")),
                definitions([
                  [t("payments.from"), h("code", {}, tr.from)],
                  [t("payments.tx"), h("code", {}, tr.tx_hash)],
                  [t("payments.block_time"), tr.block_time ? formatDateTime(tr.block_time) : null],
                  [t("payments.reason"), tr.reason],
                  [
                    t("payments.task"),
                    tr.task_id ? h("a", { href: taskHref(tr.task_id) }, tr.task_id) : null,
                  ],
                ]),
              ),
            ),
          ),
        )
      : h("p", { class: "empty" }, t("payments.empty")),
  );
}

async function deadLettersView(params) {
  const webhook = (params.get("webhook") ?? "").trim();
  const form = h(
    "form",
    {
      class: "filters",
      onsubmit: (event) => {
        event.preventDefault();
        const id = event.currentTarget.elements.namedItem("webhook").value.trim();
        if (id) location.hash = `#/dead-letters?webhook=${encodeURIComponent(id)}`;
      },
    },
    field(t("dead.webhook"), "input", {
      name: "webhook",
      required: true,
      value: webhook,
      pattern: "wh_[A-Za-z0-9_\\-]+",
      autocapitalize: "off",
      spellcheck: "false",
    }),
    h("button", { type: "submit", class: "button primary" }, t("dead.show")),
  );
  const section = h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("dead.title")), refreshButton()),
    h("p", { class: "muted" }, t("dead.intro")),
    form,
  );
  if (!webhook) return section;
  const path = `/api/webhooks/${encodeURIComponent(webhook)}/failures`;
  const box = errorBox();
  section.append(box);
  let data;
  try {
    data = await get(`${path}?limit=100`);
  } catch (error) {
    showError(box, error);
    return section;
  }
  const failures = data.failures ?? [];
  section.append(
    failures.length
      ? h(
          "ul",
          { class: "cards" },
          failures.map((f) => {
            const rowError = errorBox();
            const replayButton = h(
              "button",
              {
                type: "button",
                class: "button secondary",
                onclick: async () => {
                  replayButton.disabled = true;
                  showError(rowError, null);
                  try {
                    await postIdempotent(replayButton, path, { event_id: f.event_id });
                    announce(t("action.done.replay"));
                    await render({ focus: false });
                  } catch (error) {
                    showError(rowError, error);
                    replayButton.disabled = false;
                  }
                },
              },
              t("dead.replay", { id: f.event_id }),
            );
            return h(
              "li",
              { class: "card" },
              h(
                "article",
                { class: "card-body" },
                h("h2", { class: "card-title" }, `${f.event} · ${f.event_id}`),
                definitions([
                  [t("payments.task"), f.task_id ? h("a", { href: taskHref(f.task_id) }, f.task_id) : null],
                  [t("dead.attempts"), (f.attempted_at ?? []).map(formatDateTime).join(", ")],
                  [
                    t("dead.last_status"),
                    f.last_http_status === null ? t("app.none") : String(f.last_http_status),
                  ],
                  [t("payments.reason"), f.last_error],
                  [t("dead.expires"), formatDateTime(f.expires_at)],
                ]),
                rowError,
                replayButton,
              ),
            );
          }),
        )
      : h("p", { class: "empty" }, t("dead.empty")),
  );
  return section;
}

// ---------------------------------------------------------------- task page

/** A deadline (date and time), with a live SLA countdown labelled `label` while `live`. */
function deadline(iso, label, live) {
  return live ? h("span", {}, formatDateTime(iso), " ", slaCountdown(label, iso)) : formatDateTime(iso);
}

async function taskView(id) {
  let task;
  try {
    task = await get(`/api/submit-task?task_id=${encodeURIComponent(id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      const box = errorBox();
      showError(box, error);
      return h("section", {}, heading(t("task.title", { id })), h("p", {}, t("task.not_found")), box);
    }
    throw error;
  }
  const mapUrl = `https://www.openstreetmap.org/search?query=${encodeURIComponent(task.location_address)}`;
  const executing = ["paid", "dispatched", "on_site"].includes(task.status);

  const request = h(
    "section",
    { class: "panel", "aria-labelledby": "sec-request" },
    h("h2", { id: "sec-request" }, t("task.request")),
    definitions([
      [t("task.service"), task.service_type],
      [t("task.urgency"), t(`urgency.${task.urgency}`)],
      [t("task.description"), h("span", { class: "prewrap" }, task.task_description)],
      [
        t("task.address"),
        h(
          "span",
          {},
          h("span", { class: "prewrap" }, task.location_address),
          " ",
          h(
            "a",
            { href: mapUrl, target: "_blank", rel: "noopener noreferrer", class: "map-link" },
            t("task.map"),
          ),
        ),
      ],
      [
        t("task.contact"),
        task.requester_contact
          ? h("a", { href: `mailto:${task.requester_contact}` }, task.requester_contact)
          : null,
      ],
      [
        t("task.special"),
        task.special_instructions ? h("span", { class: "prewrap" }, task.special_instructions) : null,
      ],
      [t("task.budget"), task.budget_limit === null ? null : formatCad(task.budget_limit)],
      [t("task.max_cost"), task.max_cost_cad === null ? null : formatCad(task.max_cost_cad)],
      [t("task.preferred_output"), task.preferred_output],
      [t("task.callback"), task.callback_url ? h("code", {}, task.callback_url) : null],
      [t("task.lang"), task.lang],
      [t("task.sandbox"), task.sandbox ? t("yes") : null],
      [t("task.created"), formatDateTime(task.created_at)],
      [t("task.updated"), formatDateTime(task.updated_at)],
      [
        t("task.review_deadline"),
        deadline(task.review_deadline, t("sla.review"), task.status === "received"),
      ],
      [t("task.execution_deadline"), deadline(task.execution_deadline, t("sla.execution"), executing)],
      [t("task.review_reason"), task.review_reason],
      [t("task.refund"), task.refund ? refundSummary(task.refund) : null],
    ]),
  );

  const location = task.location ?? {};
  const locationSection = h(
    "section",
    { class: "panel", "aria-labelledby": "sec-location" },
    h("h2", { id: "sec-location" }, t("task.location")),
    definitions([
      [t("task.location_matched"), typeof location.matched === "string" ? location.matched : null],
      [t("task.location_source"), typeof location.source === "string" ? location.source : null],
      [
        t("task.location_zone"),
        typeof location.in_service_zone === "boolean" ? yesNo(location.in_service_zone) : null,
      ],
    ]),
    h(
      "p",
      {},
      h(
        "a",
        { href: mapUrl, target: "_blank", rel: "noopener noreferrer", class: "button secondary" },
        t("task.map"),
      ),
    ),
  );

  const estimate = task.estimate ?? {};
  const estimateSection = h(
    "section",
    { class: "panel", "aria-labelledby": "sec-estimate" },
    h("h2", { id: "sec-estimate" }, t("task.estimate")),
    h(
      "table",
      { class: "breakdown" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("task.estimate_item")),
          h("th", { scope: "col" }, t("task.estimate_value")),
        ),
      ),
      h(
        "tbody",
        {},
        ESTIMATE_ITEMS.filter(([key]) => typeof estimate[key] === "number").map(([key, kind]) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, t(`est.${key}`)),
            h("td", {}, kind === "cad" ? formatCad(estimate[key]) : formatNumber(estimate[key])),
          ),
        ),
      ),
      h(
        "tfoot",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "row" }, t("task.estimate_total")),
          h("td", {}, formatCad(task.estimate_cad)),
        ),
      ),
    ),
  );

  const payment = task.payment;
  const paymentSection =
    payment || task.counter_offer_amount !== undefined
      ? h(
          "section",
          { class: "panel", "aria-labelledby": "sec-payment" },
          h("h2", { id: "sec-payment" }, t("task.payment")),
          definitions([
            [
              t("task.counter_offer"),
              task.counter_offer_amount === undefined ? null : formatCad(task.counter_offer_amount),
            ],
            [t("task.payment_amount"), payment ? formatCad(payment.amount_cad) : null],
            [t("task.payment_usdc"), payment?.payment_usdc ? h("code", {}, payment.payment_usdc) : null],
            [t("task.payment_method"), payment?.method],
            [t("task.payment_rate"), payment?.exchange_rate ? formatNumber(payment.exchange_rate, 6) : null],
            [
              t("task.payment_expires"),
              payment?.expires_at && !payment.paid_at ? formatDateTime(payment.expires_at) : null,
            ],
            [t("task.payment_paid"), payment?.paid_at ? formatDateTime(payment.paid_at) : null],
            [t("task.payment_network"), payment?.network],
            [t("task.payment_tx"), payment?.tx_hash ? h("code", {}, payment.tx_hash) : null],
            [
              t("task.payment_wallets"),
              payment?.networks?.length
                ? h(
                    "ul",
                    { class: "plain" },
                    payment.networks.map((n) => h("li", {}, `${n.network}: `, h("code", {}, n.wallet))),
                  )
                : null,
            ],
          ]),
        )
      : null;

  const proofs = task.proof_files_data ?? [];
  const resultSection =
    proofs.length || task.operator_notes || task.failure_reason || task.completed_at
      ? h(
          "section",
          { class: "panel", "aria-labelledby": "sec-result" },
          h("h2", { id: "sec-result" }, t("task.result")),
          definitions([
            [t("task.completed_at"), task.completed_at ? formatDateTime(task.completed_at) : null],
            [
              t("task.operator_notes"),
              task.operator_notes ? h("span", { class: "prewrap" }, task.operator_notes) : null,
            ],
            [t("task.failure_reason"), task.failure_reason],
          ]),
          proofs.length ? h("h3", {}, t("task.proof")) : null,
          proofs.length ? h("ul", { class: "proof-gallery" }, proofs.map(proofItem)) : null,
        )
      : null;

  const history = h(
    "section",
    { class: "panel", "aria-labelledby": "sec-history" },
    h("h2", { id: "sec-history" }, t("task.history")),
    h(
      "ol",
      { class: "history" },
      (task.history ?? []).map((entry) =>
        h(
          "li",
          {},
          statusBadge(entry.status),
          " ",
          h("span", { class: "muted" }, `${entry.event} · ${formatDateTime(entry.at)}`),
        ),
      ),
    ),
  );

  return h(
    "div",
    { class: "task-page" },
    h("p", {}, h("a", { href: "#/queue" }, `← ${t("app.back_queue")}`)),
    h("div", { class: "view-head" }, heading(t("task.title", { id: task.task_id })), refreshButton()),
    h(
      "p",
      { class: "badges" },
      statusBadge(task.status),
      badge(task.service_type, "service"),
      task.urgency === "urgent" ? badge(t("urgency.urgent"), "urgent") : null,
      policyBadge(task),
    ),
    request,
    policySection(task),
    estimateSection,
    paymentSection,
    actionsSection(task),
    resultSection,
    verifiableSection(task),
    locationSection,
    history,
  );
}

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
function refundSummary(refund) {
  return [
    t(`refund.${refund.status}`),
    refund.amount_cad === null ? null : formatCad(refund.amount_cad),
    refund.tx_hash,
    refund.note,
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The forms allowed in the task's status (lib/tasks/transitions.ts). */
function actionsSection(task) {
  const id = task.task_id;
  const forms = [];
  const cad = { type: "number", inputmode: "decimal", min: "0.01", step: "0.01", max: "1000000" };
  if (task.status === "received") {
    forms.push(
      actionForm({
        title: t("action.approve"),
        className: "approve",
        fields: [
          field(
            t("action.price"),
            "input",
            { ...cad, name: "price_cad" },
            { hint: t("action.approve_help") },
          ),
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
    );
  }
  if (task.status === "accepted_pending_payment" || task.status === "counter_offered") {
    const networks = (task.payment?.networks ?? []).map((n) => n.network);
    forms.push(
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
    );
  }
  if (task.status === "paid" || task.status === "dispatched") {
    const step = task.status === "paid" ? "dispatch" : "on_site";
    forms.push(
      actionForm({
        title: t("action.progress"),
        className: step.replace("_", "-"),
        fields: [],
        submitLabel: t(`action.${step}`),
        endpoint: "/api/task-complete",
        done: `action.done.${step}`,
        build: () => ({ task_id: id, action: step }),
      }),
    );
  }
  if (["paid", "dispatched", "on_site"].includes(task.status)) {
    const picker = proofPicker();
    forms.push(
      actionForm({
        title: t("action.complete"),
        className: "complete",
        fields: [
          picker.element,
          field(t("action.notes"), "textarea", { name: "operator_notes", rows: "3", maxlength: "5000" }),
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
    );
  }
  if (task.refund_status === "pending") {
    // Settle the refund request (POST /api/task-refund): refunded (amount, USDC transaction) or denied.
    const account = task.payment?.method === "account";
    forms.push(
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
          account
            ? h("p", { class: "muted" }, t("action.refund_account"))
            : txHashField(t("action.refund_tx")),
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
    );
  }
  return h(
    "section",
    { class: "panel actions", "aria-labelledby": "sec-actions" },
    h("h2", { id: "sec-actions" }, t("task.actions")),
    forms.length ? forms : h("p", { class: "muted" }, t("task.no_actions")),
  );
}

// ---------------------------------------------------------------- shell

function parseRoute() {
  const hash = location.hash.replace(/^#/, "") || "/queue";
  const [path = "/queue", qs = ""] = hash.split("?");
  return { path, params: new URLSearchParams(qs) };
}

function markNav(path) {
  markCurrentNav(
    nav.querySelectorAll("a"),
    (target) => path === target || (target === "/queue" && path.startsWith("/task/")),
  );
}

let renderToken = 0;

/** Renders the view of the current route; moves focus to its heading unless `focus` is false. */
async function render({ focus = true } = {}) {
  const token = ++renderToken;
  applyStaticStrings(langSelect);
  const signedIn = Boolean(getKey());
  nav.hidden = !signedIn;
  logoutButton.hidden = !signedIn;
  let view;
  if (!signedIn) {
    view = loginView();
  } else {
    const { path, params } = parseRoute();
    markNav(path);
    main.setAttribute("aria-busy", "true");
    try {
      if (path.startsWith("/task/")) view = await taskView(decodeURIComponent(path.slice("/task/".length)));
      else if (path === "/tasks") view = await tasksView(params);
      else if (path === "/payments") view = await paymentsView();
      else if (path === "/refunds") view = await refundsView();
      else if (path === "/dead-letters") view = await deadLettersView(params);
      else view = await queueView();
    } catch (error) {
      if (token !== renderToken) return;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        setKey(null);
        announce(t("login.expired"));
        return render();
      }
      const box = errorBox();
      showError(box, error);
      view = h("section", {}, heading(t("app.title")), box, refreshButton());
    } finally {
      if (token === renderToken) main.removeAttribute("aria-busy");
    }
  }
  if (token !== renderToken) return;
  showView(main, view, t("app.title"), focus);
}

function init() {
  startOperatorShell({ main, langSelect, logoutButton, render, announce });
}

init();

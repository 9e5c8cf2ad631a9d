/**
 * The console's money and delivery views: on-chain transfers that paid no task (#/payments,
 * GET /api/chain-transfers) and a webhook's dead-letter queue with replay (#/dead-letters).
 */
import { definitions, field, h } from "../../shared/dom.js";
import { badge, heading } from "../../shared/views.js";
import { ApiError, get, postIdempotent } from "../api.js";
import { messages, refreshButton, render, taskHref } from "../context.js";
import { formatDateTime, t } from "../i18n.js";

const { announce, errorBox, showError } = messages;

/** One on-chain transfer that paid no task: amount, network, sender, transaction, reason. */
function transferCard(tr) {
  return h(
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
        [t("payments.task"), tr.task_id ? h("a", { href: taskHref(tr.task_id) }, tr.task_id) : null],
      ]),
    ),
  );
}

/** One dead-lettered delivery of the webhook at `path`, with its replay button. */
function failureCard(f, path) {
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
        [t("dead.last_status"), f.last_http_status === null ? t("app.none") : String(f.last_http_status)],
        [t("payments.reason"), f.last_error],
        [t("dead.expires"), formatDateTime(f.expires_at)],
      ]),
      rowError,
      replayButton,
    ),
  );
}

/** #/payments: on-chain transfers that paid no task (unmatched or late). */
export async function paymentsView() {
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
      ? h("ul", { class: "cards" }, transfers.map(transferCard))
      : h("p", { class: "empty" }, t("payments.empty")),
  );
}

/** #/dead-letters?webhook=wh_…: a webhook's dead-letter queue, each delivery with a replay. */
export async function deadLettersView(params) {
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
          failures.map((f) => failureCard(f, path)),
        )
      : h("p", { class: "empty" }, t("dead.empty")),
  );
  return section;
}

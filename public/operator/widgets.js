/**
 * Small views of the console's task lists and task page: status badges, live SLA countdowns
 * (refreshed every 15 s) and the task card of the lists.
 */
import { h } from "../shared/dom.js";
import { badge } from "../shared/views.js";
import { taskHref } from "./context.js";
import { formatCad, formatDateTime, formatDuration, t } from "./i18n.js";
import { policyBadge } from "./verifiable.js";

/** Remaining time under which an SLA countdown turns to "soon" (2 hours). */
const SOON_MS = 2 * 3600 * 1000;

/** A task status badge, e.g. "paid" in green. */
export function statusBadge(status) {
  return badge(t(`status.${status}`), `status-${status}`);
}

/** A live SLA countdown; `updateCountdowns` refreshes every `.sla` element. */
export function slaCountdown(label, deadline) {
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

/** One task in a list: id link (the whole card is the touch target), badges, SLA, address, excerpt. */
export function taskCard(task, { showSla = false } = {}) {
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
        task.sandbox ? badge(t("sandbox.badge"), "sandbox") : null,
        task.anonymous ? badge(t("card.anonymous"), "warn") : null,
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

/** A deadline (date and time), with a live SLA countdown labelled `label` while `live`. */
export function deadline(iso, label, live) {
  return live ? h("span", {}, formatDateTime(iso), " ", slaCountdown(label, iso)) : formatDateTime(iso);
}

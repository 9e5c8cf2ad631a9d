/**
 * The console's task lists: the review queue (#/queue), every task with filters and pages
 * (#/tasks?status=…&service_type=…&q=…&include_sandbox=true&offset=…) and the pending refunds
 * (#/refunds). Statuses and service ids of the filters come from GET /api/capabilities.
 */
import { capabilities } from "../../shared/capabilities.js";
import { field, h } from "../../shared/dom.js";
import { heading } from "../../shared/views.js";
import { get } from "../api.js";
import { refreshButton } from "../context.js";
import { t } from "../i18n.js";
import { taskCard } from "../widgets.js";

/** Tasks per page of #/tasks. */
const PAGE_SIZE = 50;

/** A list of task cards, or the `empty` text. */
function taskCards(tasks, empty, options) {
  return tasks.length
    ? h(
        "ul",
        { class: "cards" },
        tasks.map((task) => taskCard(task, options)),
      )
    : h("p", { class: "empty" }, empty);
}

/** #/queue: tasks waiting for review (sandbox ones excluded by the API), closest deadline first. */
export async function queueView() {
  const data = await get("/api/task-list?status=received&sort=review_deadline&limit=200");
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("queue.title")), refreshButton()),
    h("p", { class: "muted" }, t("queue.intro")),
    h("p", { class: "count" }, t("queue.count", { n: data.total })),
    taskCards(data.tasks, t("queue.empty"), { showSla: true }),
  );
}

/** The filters of #/tasks read from the route: status, service, text, sandbox toggle, offset. */
function readFilters(params) {
  return {
    status: params.get("status") ?? "",
    service: params.get("service_type") ?? "",
    q: params.get("q") ?? "",
    sandbox: params.get("include_sandbox") === "true",
    offset: Math.max(0, Number.parseInt(params.get("offset") ?? "0", 10) || 0),
  };
}

/** Navigates to #/tasks with `filters` changed by `changes` (route parameter names). */
function goTasks(filters, changes) {
  const next = new URLSearchParams();
  const values = {
    status: filters.status,
    service_type: filters.service,
    q: filters.q,
    include_sandbox: filters.sandbox ? "true" : "",
    ...changes,
  };
  for (const [k, v] of Object.entries(values)) if (v) next.set(k, v);
  location.hash = `#/tasks?${next}`;
}

/** The filter form of #/tasks; sandbox tasks stay out unless the toggle is on. */
function filterForm(filters, caps) {
  const statuses = caps.task_statuses ?? [];
  const services = (caps.services ?? []).map((s) => s.id);
  const form = h(
    "form",
    {
      class: "filters",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        const f = event.currentTarget.elements;
        goTasks(filters, {
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
      { options: [["", t("tasks.all")], ...statuses.map((s) => [s, t(`status.${s}`)])] },
    ),
    field(
      t("tasks.service"),
      "select",
      { name: "service_type" },
      { options: [["", t("tasks.all")], ...services.map((s) => [s, s])] },
    ),
    field(t("tasks.search"), "input", { type: "search", name: "q", value: filters.q, maxlength: "200" }),
    h(
      "div",
      { class: "field checkbox" },
      h("input", { type: "checkbox", id: "f-sandbox", name: "include_sandbox", checked: filters.sandbox }),
      h("label", { for: "f-sandbox" }, t("tasks.include_sandbox")),
    ),
    h("button", { type: "submit", class: "button primary" }, t("tasks.filter")),
  );
  form.elements.namedItem("status").value = filters.status;
  form.elements.namedItem("service_type").value = filters.service;
  return form;
}

/** Previous / next page buttons and the "from–to of total" range. */
function pager(filters, shown, total) {
  const { offset } = filters;
  const to = Math.min(offset + shown, total);
  const pageButton = (label, disabled, nextOffset) =>
    h(
      "button",
      {
        type: "button",
        class: "button secondary",
        disabled,
        onclick: () => goTasks(filters, { offset: String(nextOffset) }),
      },
      label,
    );
  return h(
    "nav",
    { class: "pager", "aria-label": t("tasks.title") },
    pageButton(t("tasks.prev"), offset === 0, Math.max(0, offset - PAGE_SIZE)),
    h("span", {}, total ? t("tasks.range", { from: offset + 1, to, total }) : ""),
    pageButton(t("tasks.next"), to >= total, offset + PAGE_SIZE),
  );
}

/** #/tasks: every task, newest first, filtered and paginated. */
export async function tasksView(params) {
  const filters = readFilters(params);
  const query = new URLSearchParams({
    sort: "-created_at",
    limit: String(PAGE_SIZE),
    offset: String(filters.offset),
  });
  if (filters.status) query.set("status", filters.status);
  if (filters.service) query.set("service_type", filters.service);
  if (filters.q) query.set("q", filters.q);
  if (filters.sandbox) query.set("include_sandbox", "true");
  const [data, caps] = await Promise.all([get(`/api/task-list?${query}`), capabilities()]);
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("tasks.title")), refreshButton()),
    filterForm(filters, caps),
    taskCards(data.tasks, t("tasks.empty")),
    pager(filters, data.tasks.length, data.total),
  );
}

/** #/refunds: tasks cancelled after payment whose refund is still pending. */
export async function refundsView() {
  const data = await get("/api/task-list?status=cancelled&sort=-updated_at&limit=200");
  const pending = data.tasks.filter((task) => task.refund_status === "pending");
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("refunds.title")), refreshButton()),
    h("p", { class: "muted" }, t("refunds.intro")),
    taskCards(pending, t("refunds.empty")),
  );
}

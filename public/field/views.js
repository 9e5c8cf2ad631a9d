/**
 * The field app's views: my tasks (#/tasks, GET /api/field-visit: assigned open tasks, closest
 * execution deadline first, with an at-risk badge) and one task (#/task/<id>: address, map links,
 * instructions, deadline, the site visit, photos, complete with notes or fail with a reason).
 */
import { definitions, field, h } from "../shared/dom.js";
import { badge, heading } from "../shared/views.js";
import { get, postIdempotent } from "./api.js";
import { messages, taskHref } from "./context.js";
import { formatDateTime, t } from "./i18n.js";
import { outboxSection, pendingCounts, pendingItems } from "./offline.js";
import { passkeyBanner } from "./passkey-banner.js";
import { photosSection } from "./photos.js";
import { visitSection } from "./visit.js";

const { announce, errorBox, showError } = messages;

/** A status badge. */
function statusBadge(status) {
  return badge(t(`status.${status}`), `status-${status}`);
}

/** The badges of a task: status, urgency, at risk, checked in. */
function badges(task) {
  return h(
    "p",
    { class: "badges" },
    statusBadge(task.status),
    task.urgency === "urgent" ? badge(t("urgency.urgent"), "urgent") : null,
    task.at_risk ? badge(t("list.at_risk"), "late") : null,
    task.site_visit ? badge(t("list.checked_in"), "service") : null,
  );
}

/** #/tasks: my open tasks. */
export async function listView() {
  const [{ tasks }, waiting, banner] = await Promise.all([
    get("/api/field-visit"),
    pendingCounts(),
    passkeyBanner(),
  ]);
  return h(
    "section",
    {},
    h("div", { class: "view-head" }, heading(t("list.title"))),
    banner,
    h("p", { class: "muted" }, t("list.intro")),
    tasks.length
      ? h(
          "ul",
          { class: "cards" },
          tasks.map((task) =>
            h(
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
                badges(task),
                waiting.get(task.task_id)
                  ? h(
                      "p",
                      { class: "badges" },
                      badge(t("offline.list_badge", { count: waiting.get(task.task_id) }), "warn"),
                    )
                  : null,
                h("p", { class: "address" }, task.location_address),
                h("p", { class: "excerpt" }, task.task_description),
                h(
                  "p",
                  { class: "meta" },
                  `${t("list.deadline")}: ${formatDateTime(task.execution_deadline)}`,
                ),
              ),
            ),
          ),
        )
      : h("p", { class: "empty" }, t("list.empty")),
    // Items kept offline for tasks no longer in the list (reassigned, cancelled): shown until removed.
    [...waiting.keys()]
      .filter((id) => !tasks.some((task) => task.task_id === id))
      .map((id) => outboxSection(id, { title: t("offline.other_task", { id }) })),
  );
}

/**
 * A form that POSTs `build(form)` to task-complete, then goes back to the list. `blocked`: a
 * sentence saying why it cannot be sent yet (the button is disabled and described by it).
 */
function finishForm({ className, fields, label, submitClass, confirm, build, done, blocked }) {
  const error = errorBox();
  const blockedNote = blocked ? h("p", { class: "notice", id: `${className}-blocked` }, blocked) : null;
  const button = h(
    "button",
    {
      type: "submit",
      class: ["button", submitClass],
      disabled: Boolean(blocked),
      "aria-describedby": blocked ? `${className}-blocked` : undefined,
    },
    label,
  );
  const form = h(
    "form",
    {
      class: ["action", className],
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        if (button.disabled || !form.reportValidity()) return;
        if (confirm && !window.confirm(confirm)) return;
        showError(error, null);
        button.disabled = true;
        button.textContent = t("action.sending");
        try {
          await postIdempotent(form, "/api/task-complete", build(form));
          announce(t(done));
          location.hash = "#/tasks";
        } catch (e) {
          showError(error, e);
          button.disabled = false;
          button.textContent = label;
        }
      },
    },
    fields,
    error,
    blockedNote,
    button,
  );
  return form;
}

/** The task page's heading: "Task" and the id, which may wrap only as a whole (one line at 390 px). */
function taskHeading(id) {
  const title = heading("");
  title.classList.add("task-heading");
  title.replaceChildren(`${t("task.title_prefix")} `, h("span", { class: "task-id" }, id));
  return title;
}

/** #/task/<id>. */
export async function taskView(id) {
  const { tasks } = await get("/api/field-visit");
  const task = tasks.find((x) => x.task_id === id);
  if (!task) {
    return h(
      "section",
      {},
      heading(t("task.title", { id })),
      h("p", {}, t("task.not_found")),
      outboxSection(id),
      h("a", { href: "#/tasks", class: "button secondary" }, t("task.back")),
    );
  }
  task.pending = await pendingItems(task.task_id);
  const text = (form, name) => form.elements.namedItem(name).value.trim() || undefined;
  // The service requires a site visit and there is none yet: completion would be refused (409).
  const needsVisit = task.visit_rule?.rule === "required" && !task.site_visit;
  return h(
    "section",
    {},
    taskHeading(task.task_id),
    badges(task),
    h(
      "section",
      { class: "panel", "aria-labelledby": "sec-where" },
      h("h2", { id: "sec-where" }, task.service_name),
      definitions([
        [t("task.address"), task.location_address],
        [t("task.deadline"), formatDateTime(task.execution_deadline)],
        [t("task.description"), task.task_description],
        [t("task.instructions"), task.special_instructions],
      ]),
      task.map_url
        ? h(
            "p",
            { class: "links" },
            h(
              "a",
              { href: task.map_url, target: "_blank", rel: "noopener noreferrer", class: "button secondary" },
              t("task.osm"),
            ),
            " ",
            h("a", { href: task.geo_uri, class: "button secondary" }, t("task.geo")),
          )
        : null,
    ),
    visitSection(task),
    photosSection(task),
    outboxSection(task.task_id),
    h(
      "section",
      { class: "panel", "aria-labelledby": "sec-done" },
      h("h2", { id: "sec-done" }, t("done.title")),
      finishForm({
        className: "complete",
        fields: field(t("done.notes"), "textarea", { name: "operator_notes", maxlength: "5000", rows: "3" }),
        label: t("done.complete"),
        submitClass: "primary",
        blocked: needsVisit ? t("done.needs_visit") : undefined,
        build: (form) => ({
          task_id: task.task_id,
          action: "complete",
          operator_notes: text(form, "operator_notes"),
        }),
        done: "done.completed",
      }),
    ),
    h(
      "section",
      { class: "panel fail-panel", "aria-labelledby": "sec-fail" },
      h("h2", { id: "sec-fail" }, t("fail.title")),
      finishForm({
        className: "fail",
        fields: field(t("fail.reason"), "textarea", {
          name: "reason",
          required: true,
          maxlength: "1000",
          rows: "2",
        }),
        label: t("fail.submit"),
        submitClass: "danger",
        confirm: t("fail.confirm"),
        build: (form) => ({ task_id: task.task_id, action: "fail", reason: text(form, "reason") }),
        done: "fail.done",
      }),
    ),
  );
}

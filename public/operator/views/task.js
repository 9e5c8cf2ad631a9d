/**
 * The console's task page (#/task/<id>): what the agent sent, the estimate breakdown, the
 * payment, the actions the status allows (./actions.js), the result, the location, the
 * history and who did each step (`actors`, from the audit trail). Everything from the API is
 * inserted as text nodes.
 */
import { definitions, h } from "../../shared/dom.js";
import { badge, heading, proofItem } from "../../shared/views.js";
import { ApiError, get } from "../api.js";
import { messages, refreshButton, yesNo } from "../context.js";
import { formatCad, formatDateTime, formatNumber, t } from "../i18n.js";
import { policyBadge, policySection, verifiableSection } from "../verifiable.js";
import { deadline, statusBadge } from "../widgets.js";
import { actionsSection, refundSummary } from "./actions.js";

const { errorBox, showError } = messages;

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

/** "What the agent sent": every field of the request, deadlines with live SLA countdowns. */
function requestSection(task, mapUrl) {
  const executing = ["paid", "dispatched", "on_site"].includes(task.status);
  return h(
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
}

/** Where the gazetteer placed the address, and a map link. */
function locationSection(task, mapUrl) {
  const location = task.location ?? {};
  return h(
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
}

/** The estimate breakdown (base fee, hours, km, urgency) and its total. */
function estimateSection(task) {
  const estimate = task.estimate ?? {};
  return h(
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
}

/** The payment (amount, USDC, method, window, wallets) or counter-offer, when there is one. */
function paymentSection(task) {
  const payment = task.payment;
  return payment || task.counter_offer_amount !== undefined
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
}

/** Proof files, notes and failure reason, once there are any. */
function resultSection(task) {
  const proofs = task.proof_files_data ?? [];
  return proofs.length || task.operator_notes || task.failure_reason || task.completed_at
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
}

/** The assignment, the deadline watch and the site visit (issue 26): who goes, and where they were. */
function fieldSection(task) {
  const visit = task.site_visit;
  const rule = task.visit_rule;
  const flags = rule?.flags ?? [];
  if (!task.assignment && !visit && !task.at_risk_at && !flags.length) return null;
  const metres = (m) => (m === null || m === undefined ? null : `${Math.round(m)} m`);
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sec-field" },
    h("h2", { id: "sec-field" }, t("task.field")),
    task.at_risk_at || flags.length
      ? h(
          "p",
          { class: "badges" },
          task.at_risk_at ? badge(t("task.at_risk"), "urgent") : null,
          flags.map((flag) => badge(t(`task.visit_flag.${flag}`), "urgent")),
        )
      : null,
    definitions([
      [t("task.visit_rule"), rule ? t(`task.visit_rule.${rule.rule}`) : null],
      [
        t("task.assigned_to"),
        task.assignment
          ? `${task.assignment.operator_display_name} · ${formatDateTime(task.assignment.assigned_at)}`
          : t("task.not_assigned"),
      ],
      [t("task.visit_in"), visit?.checked_in_at ? formatDateTime(visit.checked_in_at) : null],
      [t("task.visit_distance"), metres(visit?.check_in_distance_m)],
      [t("task.visit_accuracy"), metres(visit?.accuracy_m)],
      [
        t("task.visit_geofence"),
        visit
          ? visit.within_geofence
            ? t("task.visit_inside")
            : badge(t("task.visit_outside"), "urgent")
          : null,
      ],
      [t("task.visit_reason"), visit?.reason ?? null],
      [t("task.no_visit_reason"), rule?.no_visit_reason ?? null],
      [t("task.visit_out"), visit?.checked_out_at ? formatDateTime(visit.checked_out_at) : null],
    ]),
    visit ? null : h("p", { class: "muted" }, t("task.no_visit")),
  );
}

/** The status history. */
function historySection(task) {
  return h(
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
}

/** Who did a step: "reviewer Ana", "API key key_…", "system (expire-payments)", "requester". */
export function actorLabel(actor) {
  switch (actor.actor_kind) {
    case "staff":
      return t("actor.staff", {
        role: t(`role.${actor.actor_role}`),
        name: actor.actor_display_name ?? "?",
      });
    case "admin_key":
      return t("actor.admin_key", { id: actor.actor_display_name ?? "?" });
    case "system":
      return t("actor.system", { job: actor.actor_display_name ?? "?" });
    default:
      return t("actor.requester");
  }
}

/** Who did each step (the admin view's `actors`), oldest first. */
function actorsSection(task) {
  const actors = task.actors ?? [];
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sec-actors" },
    h("h2", { id: "sec-actors" }, t("task.actors")),
    actors.length
      ? h(
          "ol",
          { class: "history actors" },
          actors.map((a) =>
            h(
              "li",
              {},
              h("code", {}, a.action),
              " · ",
              h("span", { class: "actor" }, actorLabel(a)),
              " ",
              h("span", { class: "muted" }, formatDateTime(a.at)),
            ),
          ),
        )
      : h("p", { class: "muted" }, t("task.no_actors")),
  );
}

/** #/task/<id>: everything about one task and the actions its status allows. */
export async function taskView(id) {
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
      task.sandbox ? badge(t("sandbox.badge"), "sandbox") : null,
      policyBadge(task),
    ),
    requestSection(task, mapUrl),
    policySection(task),
    estimateSection(task),
    paymentSection(task),
    actionsSection(task),
    fieldSection(task),
    resultSection(task),
    verifiableSection(task),
    locationSection(task, mapUrl),
    historySection(task),
    actorsSection(task),
  );
}

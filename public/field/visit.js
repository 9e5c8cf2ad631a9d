/**
 * The site-visit section of a task: Check in with the phone's position
 * (`navigator.geolocation.getCurrentPosition`, high accuracy), the server's refusal when the
 * position is outside the task's geofence (its distance and the fence, with a reason to give),
 * the visit once recorded, and Check out. POST /api/field-visit with an Idempotency-Key per
 * attempt (a double tap replays the first answer).
 */
import { definitions, field, h } from "../shared/dom.js";
import { badge } from "../shared/views.js";
import { ApiError, newIdempotencyKey, request } from "./api.js";
import { messages, render } from "./context.js";
import { formatDateTime, formatDistance, t } from "./i18n.js";
import { isNetworkError, queueCheckIn } from "./offline.js";

const { announce, errorBox, showError } = messages;

/** The phone's position, or an Error with a sentence. */
function position() {
  return new Promise((resolve, reject) => {
    if (!navigator.geolocation) {
      reject(new Error(t("visit.no_geolocation")));
      return;
    }
    navigator.geolocation.getCurrentPosition(
      (p) => resolve(p.coords),
      (e) => reject(new Error(t("visit.geo_denied", { message: e.message || e.code }))),
      { enableHighAccuracy: true, timeout: 20_000, maximumAge: 0 },
    );
  });
}

/** POSTs a visit action at `coords` (with `reason` when given). */
function post(task, action, coords, reason) {
  return request("POST", "/api/field-visit", {
    idempotencyKey: newIdempotencyKey(),
    body: {
      task_id: task.task_id,
      action,
      latitude: coords.latitude,
      longitude: coords.longitude,
      accuracy_m: Math.max(0, coords.accuracy ?? 0),
      ...(reason ? { reason } : {}),
    },
  });
}

/** What the recorded visit says. */
function visitFacts(visit) {
  const metres = (n) => (n === null || n === undefined ? null : formatDistance(n));
  return h(
    "div",
    {},
    h(
      "p",
      { class: "badges" },
      visit.within_geofence
        ? badge(t("visit.fence_ok"), "status-completed")
        : badge(t("visit.fence_flagged"), "warn"),
    ),
    definitions([
      [t("visit.in_at"), formatDateTime(visit.checked_in_at)],
      [
        t("visit.received_at"),
        visit.check_in_offline && visit.check_in_received_at
          ? formatDateTime(visit.check_in_received_at)
          : null,
      ],
      [t("visit.distance"), metres(visit.check_in_distance_m)],
      [t("visit.accuracy"), metres(visit.accuracy_m)],
      [t("visit.reason_given"), visit.reason],
      [t("visit.out_at"), visit.checked_out_at ? formatDateTime(visit.checked_out_at) : null],
    ]),
  );
}

/** The section of `task`. */
export function visitSection(task) {
  const error = errorBox();
  const reasonSlot = h("div", {});
  const busy = (button, on) => {
    button.disabled = on;
    if (on) button.setAttribute("aria-busy", "true");
    else button.removeAttribute("aria-busy");
  };

  /** Runs `action` at the current position; a geofence refusal opens the reason form. */
  async function act(button, action, reason) {
    showError(error, null);
    busy(button, true);
    announce(t("visit.locating"));
    let coords;
    try {
      coords = await position();
      const capturedAt = new Date().toISOString();
      try {
        await post(task, action, coords, reason);
      } catch (e) {
        // No network: kept on the phone with its time and position, sent later (field/offline.js).
        if (!isNetworkError(e) || action !== "check_in") throw e;
        await queueCheckIn(task, coords, capturedAt, reason);
        await render({ focus: false });
        return;
      }
      announce(t(action === "check_in" ? "visit.checked_in" : "visit.checked_out"));
      await render({ focus: false });
    } catch (e) {
      busy(button, false);
      if (e instanceof ApiError && e.code === "VALIDATION_ERROR" && e.field === "reason") {
        showReason(e);
        return;
      }
      announce(t("visit.not_recorded"));
      showError(error, e);
    }
  }

  /** Shows the distance refusal and a reason form. */
  function showReason(refusal) {
    const distance = refusal.error.distance_m;
    const geofence = refusal.error.geofence_m;
    const submit = h("button", { type: "submit", class: "button primary" }, t("visit.reason_submit"));
    const form = h(
      "form",
      {
        class: "action reason",
        method: "post",
        onsubmit: (event) => {
          event.preventDefault();
          if (!form.reportValidity()) return;
          act(submit, "check_in", form.elements.namedItem("reason").value.trim());
        },
      },
      h(
        "p",
        { class: "form-error", role: "alert" },
        distance === null || distance === undefined
          ? t("visit.too_far_unknown")
          : t("visit.too_far", { distance: formatDistance(distance), geofence: formatDistance(geofence) }),
      ),
      field(t("visit.reason"), "textarea", { name: "reason", required: true, maxlength: "500", rows: "3" }),
      submit,
    );
    reasonSlot.replaceChildren(form);
    // The status line said "Getting your position…": say what happened instead.
    announce(t("visit.refused_far"));
    form.querySelector("textarea")?.focus();
  }

  const visit = task.site_visit;
  // A check-in made offline and not sent yet (task.pending: views.js): no second one.
  const waiting = visit ? null : task.pending?.find((i) => i.kind === "check_in");
  const checkIn = h(
    "button",
    { type: "button", class: "button primary", onclick: (e) => act(e.currentTarget, "check_in") },
    t("visit.check_in"),
  );
  const checkOut = h(
    "button",
    { type: "button", class: "button secondary", onclick: (e) => act(e.currentTarget, "check_out") },
    t("visit.check_out"),
  );
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sec-visit" },
    h("h2", { id: "sec-visit" }, t("visit.title")),
    task.visit_rule ? h("p", { class: "muted visit-rule" }, t(`visit.rule.${task.visit_rule.rule}`)) : null,
    visit ? visitFacts(visit) : null,
    error,
    waiting
      ? h(
          "p",
          { class: "notice" },
          t("offline.check_in_waiting", { time: formatDateTime(waiting.captured_at) }),
        )
      : visit
        ? visit.checked_out_at
          ? null
          : checkOut
        : checkIn,
    reasonSlot,
  );
}

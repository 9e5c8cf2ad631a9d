/**
 * #/staff (owners, permission `staff.manage`): the staff accounts (GET /api/staff) and what an owner
 * does with them (POST /api/staff): invite (e-mail, role, display name; the invitation e-mail
 * carries the code), change a role, suspend or reactivate, reinvite someone who never enrolled.
 */
import { field, h } from "../../shared/dom.js";
import { badge, heading, table } from "../../shared/views.js";
import { get, getSession, postIdempotent } from "../api.js";
import { messages, refreshButton, render } from "../context.js";
import { formatDateTime, t } from "../i18n.js";

const { announce, errorBox, showError } = messages;

const ROLES = ["owner", "reviewer", "dispatcher", "field", "finance"];

const roleOptions = () => ROLES.map((r) => [r, t(`role.${r}`)]);

/** A button (or small form) posting `body` to /api/staff, then announcing `done` and re-rendering. */
function staffButton(label, body, done, { kind = "secondary", confirm, box }) {
  const button = h(
    "button",
    {
      type: "button",
      class: ["button", kind, "small"],
      onclick: async () => {
        if (confirm && !window.confirm(confirm)) return;
        button.disabled = true;
        showError(box, null);
        try {
          await postIdempotent(button, "/api/staff", typeof body === "function" ? body() : body);
          announce(t(done));
          await render({ focus: false });
        } catch (error) {
          showError(box, error);
          button.disabled = false;
        }
      },
    },
    label,
  );
  return button;
}

/** The actions of one staff member's row: role, suspend/activate, reinvite. */
function rowActions(member) {
  const box = errorBox();
  const self = getSession()?.staff.staff_id === member.staff_id;
  const select = h(
    "select",
    { name: "role", "aria-label": t("staff.role_of", { name: member.display_name }) },
    roleOptions().map(([value, label]) => h("option", { value, selected: value === member.role }, label)),
  );
  const id = member.staff_id;
  return h(
    "div",
    { class: "staff-actions" },
    select,
    staffButton(
      t("staff.set_role"),
      () => ({ action: "set_role", staff_id: id, role: select.value }),
      "staff.done.set_role",
      { box },
    ),
    member.status === "active" && !self
      ? staffButton(t("staff.suspend"), { action: "suspend", staff_id: id }, "staff.done.suspend", {
          kind: "danger",
          confirm: t("staff.suspend_confirm", { name: member.display_name }),
          box,
        })
      : null,
    member.status === "suspended"
      ? staffButton(t("staff.activate"), { action: "activate", staff_id: id }, "staff.done.activate", { box })
      : null,
    member.status === "invited"
      ? staffButton(t("staff.reinvite"), { action: "reinvite", staff_id: id }, "staff.done.reinvite", { box })
      : null,
    box,
  );
}

/** The invitation form. */
function inviteForm() {
  const error = errorBox();
  const button = h("button", { type: "submit", class: "button primary" }, t("staff.invite"));
  const form = h(
    "form",
    {
      class: "panel invite",
      method: "post",
      "aria-labelledby": "sec-invite",
      onsubmit: async (event) => {
        event.preventDefault();
        if (button.disabled || !form.reportValidity()) return;
        showError(error, null);
        button.disabled = true;
        try {
          const el = form.elements;
          await postIdempotent(form, "/api/staff", {
            action: "invite",
            email: el.namedItem("email").value.trim(),
            role: el.namedItem("role").value,
            display_name: el.namedItem("display_name").value.trim(),
          });
          announce(t("staff.done.invite"));
          await render({ focus: false });
        } catch (e) {
          showError(error, e);
          button.disabled = false;
        }
      },
    },
    h("h2", { id: "sec-invite" }, t("staff.invite_title")),
    h("p", { class: "muted" }, t("staff.invite_intro")),
    field(t("staff.email"), "input", {
      type: "email",
      name: "email",
      required: true,
      autocomplete: "off",
      maxlength: "254",
    }),
    field(t("staff.display_name"), "input", { name: "display_name", required: true, maxlength: "60" }),
    field(t("staff.role"), "select", { name: "role", required: true }, { options: roleOptions() }),
    error,
    button,
  );
  return form;
}

const STATUS_KIND = { active: "ok", invited: "muted", suspended: "warn" };

/** #/staff: the list and the invitation form. */
export async function staffView() {
  const { staff } = await get("/api/staff");
  return h(
    "section",
    { class: "staff-page" },
    h("div", { class: "view-head" }, heading(t("staff.title")), refreshButton()),
    inviteForm(),
    h(
      "section",
      { class: "panel", "aria-labelledby": "sec-staff" },
      h("h2", { id: "sec-staff" }, t("staff.list", { n: staff.length })),
      table(
        t("staff.list", { n: staff.length }),
        [
          t("staff.display_name"),
          t("staff.email"),
          t("staff.role"),
          t("staff.status"),
          t("staff.last_sign_in"),
          t("staff.actions"),
        ],
        staff.map((m) => [
          m.display_name,
          m.email,
          t(`role.${m.role}`),
          badge(t(`staff.status.${m.status}`), STATUS_KIND[m.status]),
          m.last_sign_in_at ? formatDateTime(m.last_sign_in_at) : t("app.none"),
          rowActions(m),
        ]),
      ),
    ),
  );
}

/**
 * The staff enrolment flow shared by the operator console and the field app (issue 44 item 2: a
 * field person's invitation opens /field/, which enrols and signs them in): the invitation page
 * (display name and password → the TOTP secret and otpauth link → a code from the app → signed in)
 * and the form pieces of the staff sign-in (the 6-digit code field, a form with its error box).
 * Each page passes its own `request` (its api.js, CSRF and all) and what it keeps of the session.
 */

import { ApiError } from "./api.js";
import { field, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { heading } from "./views.js";

/** The 6-digit code input (autocomplete one-time-code, numeric keypad). */
export function totpField() {
  return field(
    t("login.totp"),
    "input",
    {
      name: "totp_code",
      required: true,
      inputmode: "numeric",
      autocomplete: "one-time-code",
      pattern: "[0-9]{6}",
      maxlength: "6",
      minlength: "6",
      title: t("login.totp_title"),
    },
    { hint: t("login.totp_hint") },
  );
}

/** A form that runs `submit(form)` with its button disabled and shows a failure in its alert box. */
export function authForm(messages, { title, intro, fields, submitLabel, submit, refuse }) {
  const { errorBox, showError } = messages;
  const error = errorBox();
  const button = h("button", { type: "submit", class: "button primary" }, submitLabel);
  const form = h(
    "form",
    {
      class: "panel auth-form",
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        if (button.disabled || !form.reportValidity()) return;
        showError(error, null);
        button.disabled = true;
        try {
          await submit(form);
        } catch (e) {
          showError(error, (e instanceof ApiError && refuse?.(e)) || e);
          button.disabled = false;
        }
      },
    },
    title ? heading(title) : null,
    intro ? h("p", {}, intro) : null,
    fields,
    error,
    button,
  );
  return form;
}

/** The trimmed value of the control `name` of `form` ("" when absent). */
export function value(form, name) {
  return form.elements.namedItem(name)?.value.trim() ?? "";
}

/**
 * The invitation page (#/accept?code=…): display name and password, then the TOTP secret to add
 * to an authenticator app, then one of its codes; signed in at the end (the session cookie is set
 * by the answer; `keep(answer)` lets the page remember it).
 * @param {string} code the invitation code from the link
 * @param {{ messages: object, signedIn: () => void, request: Function, keep: (answer: object) => unknown,
 *   title: string }} options `request(method, path, { body })` of the page's api.js
 * @returns {HTMLElement}
 */
export function acceptView(code, { messages, signedIn, request, keep, title }) {
  const root = h("section", { class: "accept" });
  const codeField = code
    ? null
    : field(t("accept.code"), "input", {
        name: "code",
        required: true,
        autocomplete: "off",
        autocapitalize: "off",
        spellcheck: "false",
      });
  const first = authForm(messages, {
    title,
    intro: t("accept.intro"),
    fields: [
      codeField,
      field(t("accept.display_name"), "input", {
        name: "display_name",
        required: true,
        maxlength: "60",
        autocomplete: "name",
      }),
      field(
        t("accept.password"),
        "input",
        { type: "password", name: "password", required: true, minlength: "8", autocomplete: "new-password" },
        { hint: t("accept.password_hint") },
      ),
    ],
    submitLabel: t("accept.submit"),
    refuse: (e) => (e.status === 401 ? t("accept.invalid") : null),
    submit: async (form) => {
      const invitation = code || value(form, "code");
      const answer = await request("POST", "/api/staff-auth?action=accept-invite", {
        body: {
          code: invitation,
          password: form.elements.namedItem("password").value,
          display_name: value(form, "display_name"),
        },
      });
      replace(root, enrolView(invitation, answer, { messages, signedIn, request, keep }));
      root.querySelector("h1")?.focus();
    },
  });
  root.append(first);
  return root;
}

/** A read-only value (selected on focus) with a copy button. */
function copyable(label, text, name) {
  const wrapper = field(label, "input", { readonly: true, value: text, name, spellcheck: "false" });
  const control = wrapper.querySelector("input");
  control.classList.add("copyable");
  control.addEventListener("focus", () => control.select());
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      control.focus();
    }
  };
  wrapper.append(
    h(
      "button",
      { type: "button", class: "button secondary small", onclick: copy },
      t("accept.copy", { what: label }),
    ),
  );
  return wrapper;
}

/** Second step: the secret and URI, then a code from the app. */
function enrolView(code, answer, { messages, signedIn, request, keep }) {
  return authForm(messages, {
    title: t("accept.enrol_title"),
    intro: t("accept.enrol_intro"),
    fields: [
      copyable(t("accept.secret"), answer.totp_secret, "totp_secret"),
      copyable(t("accept.uri"), answer.otpauth_uri, "otpauth_uri"),
      h("p", { class: "muted" }, t("accept.once")),
      totpField(),
    ],
    submitLabel: t("accept.confirm"),
    refuse: (e) => (e.status === 401 ? t("accept.wrong_code") : null),
    submit: async (form) => {
      const signed = await request("POST", "/api/staff-auth?action=confirm-totp", {
        body: { code, totp_code: value(form, "totp_code") },
      });
      await keep(signed);
      messages.announce(t("accept.done"));
      signedIn();
    },
  });
}

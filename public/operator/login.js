/**
 * Staff sign-in of the operator pages (console and analytics), issue 26 item 1:
 *
 * - `loadSession()`: GET /api/staff-auth decides signed in or not on load (401 → the form);
 * - `signInView`: e-mail, password and the authenticator's 6-digit code → POST /api/staff-auth;
 * - `acceptView` (#/accept?code=…, the invitation e-mail's link): display name and password →
 *   the TOTP secret and otpauth URI to add to an authenticator app → one of its codes → signed in;
 * - `signOut()`: POST /api/staff-auth?action=sign-out.
 *
 * The session token rides in the HttpOnly cookie the server sets; the page keeps only the CSRF
 * token, the staff member and the role's permissions, in memory (./api.js).
 */
import { capabilities } from "../shared/capabilities.js";
import { field, h, replace } from "../shared/dom.js";
import { heading } from "../shared/views.js";
import { ApiError, getSession, request, setSession } from "./api.js";
import { t } from "./i18n.js";

/** The permissions of `role` from /api/capabilities (`authentication.roles.role_permissions`). */
async function permissionsOf(role) {
  try {
    const manifest = await capabilities();
    return manifest.authentication?.roles?.role_permissions?.[role] ?? [];
  } catch {
    return [];
  }
}

/** Keeps the session of a sign-in or session answer `{ staff, csrf_token }`. */
async function keep(answer) {
  setSession({
    staff: answer.staff,
    csrfToken: answer.csrf_token,
    permissions: await permissionsOf(answer.staff.role),
  });
  return getSession();
}

/**
 * Reads the current session (GET /api/staff-auth) into memory.
 * @returns {Promise<object | null>} the session, or null when there is none (401)
 * @throws {ApiError} any other failure
 */
export async function loadSession() {
  try {
    return await keep(await request("GET", "/api/staff-auth"));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setSession(null);
      return null;
    }
    throw error;
  }
}

/** Ends the session on the server (the cookie is cleared) and forgets it here. */
export async function signOut() {
  try {
    await request("POST", "/api/staff-auth?action=sign-out", { body: {} });
  } finally {
    setSession(null);
  }
}

/** The 6-digit code input (autocomplete one-time-code, numeric keypad). */
function totpField() {
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
function authForm(messages, { title, intro, fields, submitLabel, submit, refuse }) {
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

function value(form, name) {
  return form.elements.namedItem(name)?.value.trim() ?? "";
}

/**
 * The sign-in form.
 * @param {{ messages: { announce: Function, errorBox: Function, showError: Function },
 *   signedIn: () => void }} options `signedIn` runs once the session is kept
 * @returns {HTMLFormElement}
 */
export function signInView({ messages, signedIn }) {
  return authForm(messages, {
    title: t("login.title"),
    intro: t("login.intro"),
    fields: [
      field(t("login.email"), "input", {
        type: "email",
        name: "email",
        required: true,
        autocomplete: "username",
        autocapitalize: "off",
        spellcheck: "false",
      }),
      field(t("login.password"), "input", {
        type: "password",
        name: "password",
        required: true,
        autocomplete: "current-password",
      }),
      totpField(),
    ],
    submitLabel: t("login.submit"),
    refuse: (e) =>
      e.status === 401
        ? t("login.invalid")
        : e.status === 403 && e.code === "FORBIDDEN" && !e.permission
          ? t("login.suspended")
          : null,
    submit: async (form) => {
      const answer = await request("POST", "/api/staff-auth?action=sign-in", {
        body: {
          email: value(form, "email"),
          password: form.elements.namedItem("password").value,
          totp_code: value(form, "totp_code"),
        },
      });
      form.reset();
      await keep(answer);
      messages.announce(t("login.ok"));
      signedIn();
    },
  });
}

/**
 * The invitation page (#/accept?code=…): display name and password, then the TOTP secret to add
 * to an authenticator app, then one of its codes; signed in at the end.
 * @param {string} code the invitation code from the link
 * @returns {HTMLElement}
 */
export function acceptView(code, { messages, signedIn }) {
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
    title: t("accept.title"),
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
      replace(root, enrolView(invitation, answer, { messages, signedIn }));
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
function enrolView(code, answer, { messages, signedIn }) {
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

/**
 * Staff sign-in of the operator pages (console and analytics), issue 26 item 1:
 *
 * - `loadSession()`: GET /api/staff-auth decides signed in or not on load (401 → the form);
 * - `signInView`: a passkey first (issue 44 item 3, shared/passkeys.js), else e-mail, password and
 *   the authenticator's 6-digit code or a recovery code → POST /api/staff-auth;
 * - `acceptView` (#/accept?code=…, the invitation e-mail's link): display name and password →
 *   the TOTP secret and otpauth URI to add to an authenticator app → one of its codes → signed in;
 * - `signOut()`: POST /api/staff-auth?action=sign-out.
 *
 * The session token rides in the HttpOnly cookie the server sets; the page keeps only the CSRF
 * token, the staff member and the role's permissions, in memory (./api.js).
 */
import { capabilities } from "../shared/capabilities.js";
import { field, h } from "../shared/dom.js";
import { passkeySignInPanel } from "../shared/passkeys.js";
import {
  authForm,
  codeBody,
  codeFields,
  acceptView as staffAcceptView,
  value,
} from "../shared/staff-enrol.js";
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

/**
 * The sign-in page: the passkey button (when the browser has passkeys), then the password form.
 * @param {{ messages: { announce: Function, errorBox: Function, showError: Function },
 *   signedIn: () => void }} options `signedIn` runs once the session is kept
 * @returns {HTMLElement}
 */
export function signInView({ messages, signedIn }) {
  const passkey = passkeySignInPanel({
    messages,
    request,
    onSignedIn: async (answer) => {
      await keep(answer);
      messages.announce(t("login.ok"));
      signedIn();
    },
  });
  const form = passwordForm({ messages, signedIn, fallback: Boolean(passkey) });
  return passkey ? h("div", { class: "sign-in" }, heading(t("login.title")), passkey, form) : form;
}

/** The password sign-in form (the fallback when a passkey is offered above it). */
function passwordForm({ messages, signedIn, fallback }) {
  return authForm(messages, {
    title: fallback ? null : t("login.title"),
    intro: fallback ? t("passkey.password_intro") : t("login.intro"),
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
      ...codeFields(),
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
          ...codeBody(form),
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
 * The invitation page (#/accept?code=…): shared with the field app (shared/staff-enrol.js).
 * @param {string} code the invitation code from the link
 * @returns {HTMLElement}
 */
export function acceptView(code, { messages, signedIn }) {
  return staffAcceptView(code, { messages, signedIn, request, keep, title: t("accept.title") });
}

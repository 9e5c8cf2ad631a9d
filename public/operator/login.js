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
import { field } from "../shared/dom.js";
import { authForm, acceptView as staffAcceptView, totpField, value } from "../shared/staff-enrol.js";
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
 * The invitation page (#/accept?code=…): shared with the field app (shared/staff-enrol.js).
 * @param {string} code the invitation code from the link
 * @returns {HTMLElement}
 */
export function acceptView(code, { messages, signedIn }) {
  return staffAcceptView(code, { messages, signedIn, request, keep, title: t("accept.title") });
}

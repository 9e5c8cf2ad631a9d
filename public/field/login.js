/**
 * The staff sign-in of the field app: a passkey first (issue 44 item 3; the phone's fingerprint or
 * screen lock, shared/passkeys.js), else e-mail, password and the authenticator's code or a
 * recovery code (POST /api/staff-auth). The session is the HttpOnly cookie the answer sets; the
 * page keeps only the session's CSRF token, in memory (api.js).
 */
import { field, h } from "../shared/dom.js";
import { passkeySignInPanel } from "../shared/passkeys.js";
import { codeBody, codeFields } from "../shared/staff-enrol.js";
import { heading } from "../shared/views.js";
import { ApiError, loadSession, request, signIn } from "./api.js";
import { t } from "./i18n.js";

/**
 * The sign-in page: the passkey button (when the browser has passkeys), then the password form.
 * @param {{ messages: { announce: Function, errorBox: Function, showError: Function }, signedIn: () => void }} options
 * @returns {HTMLElement}
 */
export function loginView({ messages, signedIn }) {
  const passkey = passkeySignInPanel({
    messages,
    request,
    onSignedIn: async () => {
      await loadSession();
      messages.announce(t("login.ok"));
      signedIn();
    },
  });
  const form = passwordForm({ messages, signedIn, fallback: Boolean(passkey) });
  return passkey ? h("div", { class: "sign-in" }, heading(t("login.title")), passkey, form) : form;
}

/** The password sign-in form (the fallback when a passkey is offered above it). */
function passwordForm({ messages, signedIn, fallback }) {
  const { announce, errorBox, showError } = messages;
  const error = errorBox();
  const button = h(
    "button",
    { type: "submit", class: fallback ? "button secondary" : "button primary" },
    t("login.submit"),
  );
  const form = h(
    "form",
    {
      class: "panel",
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        if (!form.reportValidity()) return;
        const value = (name) => form.elements.namedItem(name).value.trim();
        showError(error, null);
        button.disabled = true;
        announce(t("login.checking"));
        try {
          await signIn({
            email: value("email"),
            password: form.elements.namedItem("password").value,
            ...codeBody(form),
          });
          form.reset();
          announce(t("login.ok"));
          signedIn();
        } catch (e) {
          showError(error, e instanceof ApiError && e.status === 401 ? new Error(t("login.refused")) : e);
          button.disabled = false;
        }
      },
    },
    fallback ? null : heading(t("login.title")),
    h("p", {}, fallback ? t("passkey.password_intro") : t("login.intro")),
    field(t("login.email"), "input", {
      type: "email",
      name: "email",
      required: true,
      autocomplete: "username",
    }),
    field(t("login.password"), "input", {
      type: "password",
      name: "password",
      required: true,
      autocomplete: "current-password",
    }),
    ...codeFields(),
    error,
    button,
  );
  return form;
}

/**
 * The staff sign-in form of the field app: e-mail, password and the authenticator's code
 * (POST /api/staff-auth). The session is the HttpOnly cookie the answer sets; the page keeps only
 * the session's CSRF token, in memory (api.js).
 */
import { field, h } from "../shared/dom.js";
import { heading } from "../shared/views.js";
import { ApiError, signIn } from "./api.js";
import { t } from "./i18n.js";

/**
 * The sign-in form.
 * @param {{ messages: { announce: Function, errorBox: Function, showError: Function }, signedIn: () => void }} options
 * @returns {HTMLFormElement}
 */
export function loginView({ messages, signedIn }) {
  const { announce, errorBox, showError } = messages;
  const error = errorBox();
  const button = h("button", { type: "submit", class: "button primary" }, t("login.submit"));
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
            totpCode: value("totp"),
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
    heading(t("login.title")),
    h("p", {}, t("login.intro")),
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
    field(t("login.totp"), "input", {
      type: "text",
      name: "totp",
      required: true,
      inputmode: "numeric",
      pattern: "[0-9]{6}",
      maxlength: "6",
      autocomplete: "one-time-code",
    }),
    error,
    button,
  );
  return form;
}

/**
 * The admin-key sign-in form of the operator pages (console and analytics): the pasted key is
 * checked with one GET before it is kept (sessionStorage, api.js); 401 and 403 get a sentence.
 */
import { field, h } from "../shared/dom.js";
import { heading } from "../shared/views.js";
import { ApiError, request, setKey } from "./api.js";
import { t } from "./i18n.js";

/**
 * The sign-in form.
 * @param {{ probe: string, messages: { announce: Function, errorBox: Function, showError: Function },
 *   signedIn: () => void }} options `probe`: a GET path the key must be allowed to read;
 *   `signedIn` runs once the key is stored
 * @returns {HTMLFormElement}
 */
export function adminLoginView({ probe, messages, signedIn }) {
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
        const input = form.elements.namedItem("api_key");
        const key = input.value.trim();
        if (!key) return;
        showError(error, null);
        button.disabled = true;
        announce(t("login.checking"));
        try {
          await request("GET", probe, { key });
          setKey(key);
          input.value = "";
          announce(t("login.ok"));
          signedIn();
        } catch (e) {
          if (e instanceof ApiError && e.status === 401) showError(error, new Error(t("login.invalid")));
          else if (e instanceof ApiError && e.status === 403)
            showError(error, new Error(t("login.not_admin")));
          else showError(error, e);
          button.disabled = false;
        }
      },
    },
    heading(t("login.title")),
    h("p", {}, t("login.intro")),
    field(t("login.key"), "input", {
      type: "password",
      name: "api_key",
      required: true,
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
    }),
    error,
    button,
  );
  return form;
}

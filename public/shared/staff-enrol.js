/**
 * The staff enrolment flow shared by the operator console and the field app (issue 44 item 2: a
 * field person's invitation opens /field/, which enrols and signs them in): the invitation page
 * (display name and password → the TOTP QR code, tappable otpauth link and secret → a code from the
 * app → the recovery codes, shown once → a passkey of this device, offered → signed in; issue 44
 * item 3) and the form pieces of the staff sign-in (the 6-digit code field with its recovery-code
 * alternative, a form with its error box).
 * Each page passes its own `request` (its api.js, CSRF and all) and what it keeps of the session.
 */

import { ApiError } from "./api.js";
import { field, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { addPasskeyButton } from "./passkeys.js";
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

/**
 * The code fields of the password sign-in: the authenticator's code, and a folded "use a recovery
 * code" field that, once filled, replaces it (the code field is then not required).
 * @returns {HTMLElement[]}
 */
export function codeFields() {
  const totp = totpField();
  const recovery = field(t("login.recovery_code"), "input", {
    name: "recovery_code",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    maxlength: "40",
  });
  const totpInput = totp.querySelector("input");
  recovery.querySelector("input").addEventListener("input", (event) => {
    totpInput.required = event.target.value.trim() === "";
  });
  return [
    totp,
    h(
      "details",
      { class: "recovery" },
      h("summary", {}, t("login.use_recovery")),
      h("p", { class: "muted" }, t("login.recovery_hint")),
      recovery,
    ),
  ];
}

/** The code members of a sign-in body from `form`: `recovery_code` when filled, else `totp_code`. */
export function codeBody(form) {
  const recovery = value(form, "recovery_code");
  return recovery ? { recovery_code: recovery } : { totp_code: value(form, "totp_code") };
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

/**
 * The TOTP QR code (an image the server drew from the otpauth URI) and the same URI as a link a
 * phone opens in its authenticator app.
 */
function totpQr(answer) {
  return h(
    "div",
    { class: "totp-qr" },
    answer.otpauth_qr
      ? h("img", {
          src: answer.otpauth_qr,
          alt: t("accept.qr_alt"),
          width: "220",
          height: "220",
          class: "qr",
          "data-testid": "totp-qr",
        })
      : null,
    h("p", {}, h("a", { href: answer.otpauth_uri, class: "button secondary" }, t("accept.open_app"))),
  );
}

/** Second step: the QR code, link and secret, then a code from the app. */
function enrolView(code, answer, { messages, signedIn, request, keep }) {
  const root = h("section", { class: "enrol" });
  const form = authForm(messages, {
    title: t("accept.enrol_title"),
    intro: t("accept.enrol_intro"),
    fields: [
      totpQr(answer),
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
      replace(root, recoveryView(signed.recovery_codes ?? [], { messages, signedIn, request }));
      root.querySelector("h1")?.focus();
    },
  });
  root.append(form);
  return root;
}

/**
 * Third step, signed in: the recovery codes (shown once; each replaces the authenticator's code
 * once), then a passkey of this device (the quicker sign-in), or continue without one.
 */
function recoveryView(codes, { messages, signedIn, request }) {
  const text = codes.join("\n");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      messages.announce(t("recovery.copied"));
    } catch {
      // the list stays on screen to write down
    }
  };
  return h(
    "section",
    { class: "panel recovery-codes" },
    heading(t("recovery.title")),
    h("p", {}, t("recovery.intro")),
    h(
      "ol",
      { class: "codes", "data-testid": "recovery-codes" },
      ...codes.map((c) => h("li", {}, h("code", {}, c))),
    ),
    h(
      "p",
      {},
      h("button", { type: "button", class: "button secondary small", onclick: copy }, t("recovery.copy")),
    ),
    h("h2", {}, t("passkey.title")),
    h("p", {}, t("passkey.offer")),
    addPasskeyButton({ messages, request, done: signedIn }),
    h(
      "p",
      {},
      h(
        "button",
        { type: "button", class: "button secondary", onclick: () => signedIn() },
        t("recovery.continue"),
      ),
    ),
  );
}

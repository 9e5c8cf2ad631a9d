/**
 * Web registration (#/register, POST /api/client-account): the account form, the terms and
 * privacy links (/legal/terms, /legal/privacy, in the page's language), and the Turnstile
 * check whose settings come from GET /api/capabilities (`features.web_registration`).
 */
import { capabilities } from "../../shared/capabilities.js";
import { field, h } from "../../shared/dom.js";
import { heading } from "../../shared/views.js";
import { apiForm, go, messages, optional, optionalField, value } from "../context.js";
import { getLang, t } from "../i18n.js";
import { setupTurnstile } from "../turnstile.js";

const { announce } = messages;

const PROVINCES = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"];

/** The CAPTCHA field and its check (`token()`, `reset()`), set up from the registration settings. */
function captchaField(config) {
  const captchaBox = h("div", { class: "captcha-widget" });
  const captchaNote = h("p", { class: "hint", id: "captcha-note", "aria-live": "polite" });
  const captcha = h(
    "div",
    { class: "field", role: "group", "aria-labelledby": "captcha-label", "aria-describedby": "captcha-note" },
    h("span", { class: "label-like", id: "captcha-label" }, t("register.captcha")),
    captchaBox,
    captchaNote,
  );
  const check = setupTurnstile(captchaBox, {
    siteKey: config.turnstile_site_key ?? null,
    checked: config.captcha_checked !== false,
    lang: getLang(),
    onState: (state) => {
      const notes = {
        loading: t("register.captcha_loading"),
        dev: t("register.captcha_dev"),
        unavailable: t("register.captcha_unavailable"),
      };
      captchaNote.textContent = notes[state] ?? "";
      captchaNote.classList.toggle("warn-text", state === "unavailable");
    },
  });
  return { element: captcha, check };
}

/** The account fields: contact, company, e-mail, password, phone, address, language. */
function accountFields() {
  return [
    field(t("register.contact_name"), "input", {
      name: "contact_name",
      required: true,
      minlength: "2",
      maxlength: "100",
      autocomplete: "name",
    }),
    optionalField(t("register.company_name"), "input", {
      name: "company_name",
      maxlength: "200",
      autocomplete: "organization",
    }),
    field(t("register.email"), "input", {
      type: "email",
      name: "email",
      required: true,
      maxlength: "254",
      autocomplete: "email",
    }),
    field(
      t("register.password"),
      "input",
      {
        type: "password",
        name: "password",
        required: true,
        minlength: "8",
        autocomplete: "new-password",
      },
      { hint: t("register.password_hint") },
    ),
    field(t("register.phone"), "input", {
      type: "tel",
      name: "phone",
      required: true,
      maxlength: "25",
      autocomplete: "tel",
    }),
    field(t("register.address_line1"), "input", {
      name: "address_line1",
      required: true,
      maxlength: "200",
      autocomplete: "address-line1",
    }),
    optionalField(t("register.address_line2"), "input", {
      name: "address_line2",
      maxlength: "200",
      autocomplete: "address-line2",
    }),
    field(t("register.city"), "input", {
      name: "city",
      required: true,
      maxlength: "100",
      autocomplete: "address-level2",
    }),
    field(
      t("register.province"),
      "select",
      { name: "province", autocomplete: "address-level1" },
      { options: PROVINCES.map((p) => [p, p]) },
    ),
    field(
      t("register.postal_code"),
      "input",
      {
        name: "postal_code",
        required: true,
        maxlength: "7",
        autocomplete: "postal-code",
        pattern: "[A-Za-z][0-9][A-Za-z][ \\-]?[0-9][A-Za-z][0-9]",
      },
      { hint: t("register.postal_hint") },
    ),
    field(
      t("register.lang"),
      "select",
      { name: "lang" },
      {
        options: [
          ["en", "English"],
          ["fr", "Français"],
        ],
      },
    ),
  ];
}

/** The terms checkbox, with links to the terms and the privacy policy in the page's language. */
function termsField() {
  const tosId = "f-tos";
  const lang = getLang();
  return [
    h(
      "div",
      { class: "field checkbox" },
      h("input", { type: "checkbox", id: tosId, name: "tos_accepted", required: true }),
      h("label", { for: tosId }, t("register.tos")),
    ),
    h(
      "p",
      { class: "hint legal-links" },
      `${t("register.tos_read")} `,
      h("a", { href: `/legal/terms#${lang}`, target: "_blank", rel: "noopener" }, t("legal.terms")),
      " · ",
      h("a", { href: `/legal/privacy#${lang}`, target: "_blank", rel: "noopener" }, t("legal.privacy")),
    ),
  ];
}

/** #/register: the registration form (province QC and the page's language preselected). */
export async function registerView() {
  const caps = await capabilities();
  const config = caps?.features?.web_registration ?? {};
  const { element: captcha, check } = captchaField(config);
  const view = h(
    "section",
    {},
    apiForm({
      title: heading(t("register.title")),
      intro: t("register.intro"),
      fields: [...accountFields(), ...termsField(), captcha],
      submit: t("register.submit"),
      path: "/api/client-account",
      build: (form) => {
        const token = check.token();
        if (!token) throw new Error(t("register.captcha_needed"));
        const body = {
          contact_name: value(form, "contact_name"),
          email: value(form, "email"),
          password: form.elements.namedItem("password").value,
          phone: value(form, "phone"),
          address_line1: value(form, "address_line1"),
          city: value(form, "city"),
          province: value(form, "province"),
          postal_code: value(form, "postal_code"),
          lang: value(form, "lang"),
          tos_accepted: form.elements.namedItem("tos_accepted").checked,
          cf_turnstile_token: token,
        };
        optional(body, form, "company_name");
        optional(body, form, "address_line2");
        return body;
      },
      done: (answer) => {
        announce(t("register.done", { email: answer.account.email }));
        go(`#/verify?email=${encodeURIComponent(answer.account.email)}`);
      },
      explain: () => {
        // A Turnstile token is single-use: a refused or spent one needs a fresh check. An address
        // that already has an account gets the same answer as a new one (its owner is e-mailed).
        check.reset();
        return null;
      },
    }),
  );
  view.querySelector("select[name=lang]").value = getLang();
  view.querySelector("select[name=province]").value = "QC";
  return view;
}

/**
 * The signed-out views of the client dashboard: sign in (#/login), e-mail verification
 * (#/verify) and password reset (#/reset). Registration is in ./register.js.
 */
import { field, h } from "../../shared/dom.js";
import { heading } from "../../shared/views.js";
import { ApiError, getSession, setSession } from "../api.js";
import { apiForm, go, messages, value } from "../context.js";
import { t } from "../i18n.js";

const { announce } = messages;

/** #/login: e-mail and password; the JWT is kept for this tab (api.js). */
export function loginView(params) {
  const email = params.get("email") ?? "";
  return h(
    "section",
    {},
    apiForm({
      title: heading(t("login.title.client")),
      intro: t("login.session"),
      fields: [
        field(t("login.email"), "input", {
          type: "email",
          name: "email",
          required: true,
          autocomplete: "email",
          value: email,
          maxlength: "254",
        }),
        field(t("login.password"), "input", {
          type: "password",
          name: "password",
          required: true,
          autocomplete: "current-password",
          maxlength: "1000",
        }),
      ],
      submit: t("login.submit.client"),
      path: "/api/client-auth?action=login",
      build: (form) => ({
        email: value(form, "email"),
        password: form.elements.namedItem("password").value,
      }),
      done: (answer, form) => {
        form.elements.namedItem("password").value = "";
        setSession({ token: answer.token, expiresAt: answer.expires_at });
        announce(t("login.ok"));
        go("#/dashboard");
      },
      explain: (e) => {
        if (e instanceof ApiError && e.status === 401) return t("login.bad");
        if (e instanceof ApiError && e.status === 429) return t("login.limited");
        return null;
      },
    }),
    h(
      "p",
      {},
      `${t("login.no_account")} `,
      h("a", { href: "#/register" }, t("client.nav.register")),
      " · ",
      h("a", { href: "#/reset" }, t("login.forgot")),
    ),
  );
}

/** #/verify?email=…&token=…: redeem the e-mailed vfy_… code (prefilled from the link). */
export function verifyView(params) {
  const email = params.get("email");
  return h(
    "section",
    {},
    apiForm({
      title: heading(t("verify.title")),
      intro: email ? `${t("register.done", { email })} ${t("verify.intro")}` : t("verify.intro"),
      fields: [
        field(t("verify.token"), "input", {
          name: "token",
          required: true,
          maxlength: "200",
          autocomplete: "one-time-code",
          autocapitalize: "off",
          spellcheck: "false",
          value: params.get("token") ?? "",
        }),
      ],
      submit: t("verify.submit"),
      path: "/api/client-auth?action=verify-email",
      build: (form) => ({ token: value(form, "token") }),
      done: () => {
        announce(t("verify.done"));
        go(getSession() ? "#/dashboard" : `#/login${email ? `?email=${encodeURIComponent(email)}` : ""}`);
      },
      explain: (e) => (e instanceof ApiError && e.status === 401 ? t("verify.bad") : null),
    }),
  );
}

/** #/reset: ask for a code by e-mail, then set a new password with it (prefilled from the link). */
export function resetView(params) {
  const confirmForm = apiForm({
    title: h("h2", {}, t("reset.confirm_title")),
    fields: [
      field(t("reset.token"), "input", {
        name: "token",
        required: true,
        maxlength: "200",
        autocomplete: "one-time-code",
        autocapitalize: "off",
        spellcheck: "false",
        value: params.get("token") ?? "",
      }),
      field(
        t("reset.new_password"),
        "input",
        { type: "password", name: "password", required: true, minlength: "8", autocomplete: "new-password" },
        { hint: t("register.password_hint") },
      ),
    ],
    submit: t("reset.confirm_submit"),
    path: "/api/client-auth?action=reset-confirm",
    build: (form) => ({ token: value(form, "token"), password: form.elements.namedItem("password").value }),
    done: (_answer, form) => {
      form.elements.namedItem("password").value = "";
      announce(t("reset.done"));
      const email = params.get("email");
      go(email ? `#/login?email=${encodeURIComponent(email)}` : "#/login");
    },
    explain: (e) => (e instanceof ApiError && e.status === 401 ? t("verify.bad") : null),
  });
  const requestForm = apiForm({
    title: h("h2", {}, t("reset.request_title")),
    intro: t("reset.request_intro"),
    fields: [
      field(t("login.email"), "input", {
        type: "email",
        name: "email",
        required: true,
        maxlength: "254",
        autocomplete: "email",
      }),
    ],
    submit: t("reset.request_submit"),
    path: "/api/client-auth?action=reset-request",
    build: (form) => ({ email: value(form, "email") }),
    done: () => {
      announce(t("reset.requested"));
      confirmForm.querySelector("input[name=token]")?.focus();
    },
  });
  return h("section", {}, heading(t("reset.title")), requestForm, confirmForm);
}

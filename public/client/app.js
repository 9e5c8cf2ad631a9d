/**
 * The client dashboard (issue 9): a small hash-routed single page over the client API.
 *
 *   #/login                 POST /api/client-auth?action=login → JWT kept in sessionStorage
 *   #/register              POST /api/client-account (web registration, Turnstile)
 *   #/verify                POST /api/client-auth?action=verify-email (the e-mailed vfy_… code)
 *   #/reset                 reset-request, then reset-confirm (the e-mailed rst_… code)
 *   #/dashboard             GET /api/client-account?include=dashboard: balance, spending level,
 *                           transactions, tasks, invoices
 *   #/task/<id>             GET /api/submit-task?task_id= (status, history, proof images)
 *   #/invoice/<id>          GET /api/client-account?invoice_id= as a readable invoice
 *   #/keys                  GET/POST /api/account-keys: the API keys linked to the account (they bill
 *                           it and read it): create one (shown once), link an existing one by pasting
 *                           it in full, unlink
 *
 * The JWT is sent as `Authorization: Bearer`, never in a URL. Everything from the API is
 * inserted as text nodes (dom.js), never as markup.
 */
import { definitions, field, h } from "../shared/dom.js";
import { pageMessages } from "../shared/feedback.js";
import { applyStaticStrings, markCurrentNav, showView, startShell } from "../shared/shell.js";
import { badge, heading, proofItem, table } from "../shared/views.js";
import { ApiError, getSession, request, setSession } from "./api.js";
import { formatCad, formatDateTime, getLang, t } from "./i18n.js";
import { setupTurnstile } from "./turnstile.js";

const PROVINCES = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"];

const main = document.getElementById("main");
const statusRegion = document.getElementById("status");
const navIn = document.getElementById("nav-signed-in");
const navOut = document.getElementById("nav-signed-out");
const logoutButton = document.getElementById("logout");
const langSelect = document.getElementById("lang-select");

// ---------------------------------------------------------------- messages

const { announce, errorBox, showError } = pageMessages(statusRegion);

/** A field whose label says "(optional)". */
function optionalField(label, control, attrs, extra) {
  return field(t("client.optional", { label }), control, attrs, extra);
}

/**
 * A form that POSTs `build(form)` to `path`, disables its button while the request runs and
 * shows API errors (translated by `explain` when it returns a string) in its alert box.
 */
function apiForm({ title, intro, fields, submit, path, build, done, explain, auth = false }) {
  const error = errorBox();
  const button = h("button", { type: "submit", class: "button primary" }, submit);
  const form = h(
    "form",
    {
      class: "panel",
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        showError(error, null);
        let body;
        try {
          body = build(form);
        } catch (e) {
          showError(error, e.message);
          return;
        }
        button.disabled = true;
        try {
          const answer = await request("POST", path, { body, auth });
          await done(answer, form);
        } catch (e) {
          showError(error, explain?.(e) || e);
        } finally {
          button.disabled = false;
        }
      },
    },
    title,
    intro ? h("p", {}, intro) : null,
    fields,
    error,
    button,
  );
  return form;
}

function value(form, name) {
  const el = form.elements.namedItem(name);
  return typeof el?.value === "string" ? el.value.trim() : "";
}

/** Sets `body[name]` to the trimmed value of the field when it is not empty. */
function optional(body, form, name) {
  const v = value(form, name);
  if (v) body[name] = v;
}

// ---------------------------------------------------------------- signed-out views

function loginView(params) {
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

let capabilitiesPromise = null;
/** `features.web_registration` of GET /api/capabilities (cached for the page's life). */
function registrationConfig() {
  capabilitiesPromise ??= request("GET", "/api/capabilities").then(
    (caps) => caps?.features?.web_registration ?? {},
    (error) => {
      capabilitiesPromise = null;
      throw error;
    },
  );
  return capabilitiesPromise;
}

async function registerView() {
  const config = await registrationConfig();
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
  const tosId = "f-tos";
  return h(
    "section",
    {},
    apiForm({
      title: heading(t("register.title")),
      intro: t("register.intro"),
      fields: [
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
        h(
          "div",
          { class: "field checkbox" },
          h("input", { type: "checkbox", id: tosId, name: "tos_accepted", required: true }),
          h("label", { for: tosId }, t("register.tos")),
        ),
        captcha,
      ],
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
      explain: (e) => {
        // A Turnstile token is single-use: a refused or spent one needs a fresh check.
        check.reset();
        if (e instanceof ApiError && e.code === "CONFLICT") return t("register.exists");
        return null;
      },
    }),
  );
}

function prefilledLangSelect(view) {
  const select = view.querySelector("select[name=lang]");
  if (select) select.value = getLang();
  const province = view.querySelector("select[name=province]");
  if (province) province.value = "QC";
  return view;
}

function verifyView(params) {
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

function resetView(params) {
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

// ---------------------------------------------------------------- signed-in views

function signedCad(amount) {
  return amount > 0 ? `+${formatCad(amount)}` : formatCad(amount);
}

function levelBadge(level) {
  const kind = { ok: "status-completed", warning: "warn", alert: "warn", blocked: "status-cancelled" }[level];
  return badge(t(`level.${level}`), kind);
}

/** A section with a table of `rows` (captioned `title`), or the `empty` text when there is none. */
function tableSection(id, title, columns, rows, { numeric, empty }) {
  return section(
    id,
    title,
    rows.length ? table(title, columns, rows, { numeric }) : h("p", { class: "empty" }, empty),
  );
}

function section(id, title, ...children) {
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

async function dashboardView() {
  const { account, dashboard } = await request("GET", "/api/client-account?include=dashboard", {
    auth: true,
  });
  const summary = section(
    "sec-balance",
    t("dash.summary"),
    h(
      "div",
      { class: "balance-figures" },
      h(
        "p",
        { class: "balance-main" },
        h("span", { class: "balance-label" }, t("dash.available")),
        h(
          "span",
          { class: "balance-amount", id: "available-balance" },
          formatCad(account.available_balance_cad),
        ),
      ),
      h(
        "p",
        {},
        h("span", { class: "balance-label" }, `${t("dash.level")} `),
        h("span", { id: "spending-level" }, levelBadge(account.spending_level)),
      ),
    ),
    definitions([
      [t("dash.balance"), formatCad(account.balance_cad)],
      [t("dash.held"), formatCad(account.held_cad)],
      [t("dash.account_status"), t(`account.${account.status}`)],
      [t("dash.discount"), account.discount_percent ? `${account.discount_percent} %` : null],
      [
        t("dash.email"),
        account.email_verified
          ? account.email
          : h(
              "span",
              {},
              `${account.email} (${t("dash.email_unverified")}) `,
              h("a", { href: "#/verify" }, t("dash.verify_link")),
            ),
      ],
      [t("dash.org"), h("code", {}, account.org_id)],
    ]),
    account.status === "pending_deposit" ? h("p", { class: "notice" }, t("dash.pending_deposit")) : null,
  );

  const transactions = tableSection(
    "sec-transactions",
    t("dash.transactions"),
    [t("col.date"), t("col.kind"), t("col.amount"), t("col.description"), t("col.invoice")],
    dashboard.transactions.map((e) => [
      formatDateTime(e.created_at),
      t(`kind.${e.kind}`),
      signedCad(e.amount_cad),
      [
        e.description ?? "",
        e.task_id ? [" ", h("a", { href: `#/task/${encodeURIComponent(e.task_id)}` }, e.task_id)] : null,
      ],
      e.invoice_id ? h("a", { href: `#/invoice/${encodeURIComponent(e.invoice_id)}` }, e.invoice_id) : "",
    ]),
    { numeric: [2], empty: t("dash.no_transactions") },
  );

  const tasks = tableSection(
    "sec-tasks",
    t("dash.tasks"),
    [t("col.task"), t("col.service"), t("col.status"), t("col.price"), t("col.payment"), t("col.date")],
    dashboard.tasks.map((task) => [
      h("a", { href: `#/task/${encodeURIComponent(task.task_id)}` }, task.task_id),
      task.service_type,
      badge(t(`status.${task.status}`), `status-${task.status}`),
      task.price_cad === null ? t("app.none") : formatCad(task.price_cad),
      task.payment_method ? t(`pay.${task.payment_method}`) : t("app.none"),
      formatDateTime(task.created_at),
    ]),
    { numeric: [3], empty: t("dash.no_tasks") },
  );

  const invoices = tableSection(
    "sec-invoices",
    t("dash.invoices"),
    [t("col.invoice"), t("col.kind"), t("col.total"), t("col.task"), t("col.date")],
    dashboard.invoices.map((i) => [
      h("a", { href: `#/invoice/${encodeURIComponent(i.invoice_id)}` }, i.invoice_id),
      t(`kind.${i.kind}`),
      formatCad(i.total_cad),
      i.task_id ?? "",
      formatDateTime(i.issued_at),
    ]),
    { numeric: [2], empty: t("dash.no_invoices") },
  );

  return h(
    "section",
    {},
    h(
      "div",
      { class: "view-head" },
      heading(t("dash.title")),
      h("button", { type: "button", class: "button secondary", onclick: () => render() }, t("app.refresh")),
    ),
    h("p", { class: "muted" }, account.name, account.company_name ? ` · ${account.company_name}` : ""),
    summary,
    h("p", { class: "muted" }, t("dash.latest")),
    tasks,
    transactions,
    invoices,
  );
}

async function taskView(id) {
  // Reading a task needs only its id (GET /api/submit-task is open); no credential is sent.
  const task = await request("GET", `/api/submit-task?task_id=${encodeURIComponent(id)}`);
  const proof = task.proof_files_data ?? [];
  return h(
    "section",
    {},
    h("p", {}, h("a", { href: "#/dashboard" }, t("ctask.back"))),
    heading(t("ctask.title", { id: task.task_id })),
    h(
      "p",
      { class: "badges" },
      badge(t(`status.${task.status}`), `status-${task.status}`),
      badge(task.service_type, "service"),
    ),
    section(
      "sec-task",
      t("task.request"),
      definitions([
        [t("task.description"), h("span", { class: "prewrap" }, task.task_description)],
        [t("task.address"), task.location_address],
        [t("task.urgency"), t(`urgency.${task.urgency}`)],
        [t("task.estimate_total"), task.estimate_cad === null ? null : formatCad(task.estimate_cad)],
        [t("col.price"), task.payment ? formatCad(task.payment.amount_cad) : null],
        [t("col.payment"), task.payment?.method ? t(`pay.${task.payment.method}`) : null],
        [t("task.created"), formatDateTime(task.created_at)],
        [t("task.completed_at"), task.completed_at ? formatDateTime(task.completed_at) : null],
        [t("task.failure_reason"), task.failure_reason],
      ]),
    ),
    section(
      "sec-proof",
      t("ctask.proof"),
      task.operator_notes
        ? h(
            "p",
            {},
            h("strong", {}, `${t("ctask.notes")}: `),
            h("span", { class: "prewrap" }, task.operator_notes),
          )
        : null,
      proof.length
        ? h("ul", { class: "proof-gallery" }, proof.map(proofItem))
        : h("p", { class: "empty" }, t("ctask.no_proof")),
    ),
    section(
      "sec-history",
      t("task.history"),
      h(
        "ol",
        { class: "history" },
        (task.history ?? []).map((step) =>
          h(
            "li",
            {},
            h("time", { datetime: step.at }, formatDateTime(step.at)),
            " — ",
            t(`status.${step.status}`),
          ),
        ),
      ),
    ),
  );
}

function addressLines(address) {
  return [
    address.line1,
    address.line2,
    [address.city, address.province, address.postal_code].filter(Boolean).join(" "),
  ].filter(Boolean);
}

async function invoiceView(id) {
  const { invoice } = await request("GET", `/api/client-account?invoice_id=${encodeURIComponent(id)}`, {
    auth: true,
  });
  const lines = invoice.lines ?? [];
  return h(
    "section",
    { class: "invoice" },
    h("p", { class: "no-print" }, h("a", { href: "#/dashboard" }, t("ctask.back"))),
    h(
      "div",
      { class: "view-head" },
      heading(t("invoice.title", { id: invoice.invoice_id })),
      h(
        "button",
        { type: "button", class: "button secondary no-print", onclick: () => window.print() },
        t("invoice.print"),
      ),
    ),
    definitions([
      [t("invoice.issued"), formatDateTime(invoice.issued_at)],
      [t("invoice.kind"), t(`kind.${invoice.kind}`)],
      [
        t("invoice.task"),
        invoice.task_id
          ? h("a", { href: `#/task/${encodeURIComponent(invoice.task_id)}` }, invoice.task_id)
          : null,
      ],
    ]),
    h(
      "div",
      { class: "invoice-parties" },
      h(
        "address",
        { class: "panel" },
        h("h2", {}, t("invoice.from")),
        h("p", {}, invoice.issuer.name),
        h("p", {}, invoice.issuer.contact),
        h("p", {}, invoice.issuer.website),
      ),
      h(
        "address",
        { class: "panel" },
        h("h2", {}, t("invoice.bill_to")),
        h("p", {}, invoice.bill_to.name),
        invoice.bill_to.company_name ? h("p", {}, invoice.bill_to.company_name) : null,
        addressLines(invoice.bill_to.address).map((line) => h("p", {}, line)),
        h("p", {}, invoice.bill_to.email),
      ),
    ),
    h(
      "table",
      { class: "breakdown invoice-lines" },
      h("caption", { class: "visually-hidden" }, t("invoice.lines")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("col.description")),
          h("th", { scope: "col", class: "num" }, t("invoice.quantity")),
          h("th", { scope: "col", class: "num" }, t("invoice.unit")),
          h("th", { scope: "col", class: "num" }, t("col.amount")),
        ),
      ),
      h(
        "tbody",
        {},
        lines.map((line) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, line.description),
            h("td", {}, line.quantity ?? ""),
            h("td", {}, line.unit_cad === undefined ? "" : formatCad(line.unit_cad)),
            h("td", {}, formatCad(line.amount_cad)),
          ),
        ),
      ),
      h(
        "tfoot",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "row", colspan: "3" }, `${t("invoice.total")} (${invoice.currency})`),
          h("td", { id: "invoice-total" }, formatCad(invoice.total_cad)),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- API keys of the account

/** The full key created a moment ago, shown once above the list (never stored anywhere). */
let freshKey = null;

async function keysView() {
  const { keys } = await request("GET", "/api/account-keys", { auth: true });
  const shown = freshKey;
  freshKey = null;
  const created = shown
    ? section(
        "sec-new-key",
        t("keys.created_title", { name: shown.name }),
        h("p", { class: "notice" }, t("keys.created_once")),
        h("p", {}, h("code", { id: "new-key", class: "secret" }, shown.api_key)),
      )
    : null;

  const unlink = (key) => async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      await request("POST", "/api/account-keys", {
        auth: true,
        body: { action: "unlink", key_id: key.key_id },
      });
      announce(t("keys.unlinked", { name: key.name }));
      render({ focus: false });
    } catch (e) {
      button.disabled = false;
      showError(listError, e);
    }
  };
  const listError = errorBox();
  const list = section(
    "sec-keys",
    t("keys.linked"),
    h("p", {}, t("keys.linked_intro")),
    listError,
    keys.length
      ? table(
          t("keys.linked"),
          [
            t("keys.col.name"),
            t("keys.col.key"),
            t("keys.col.scopes"),
            t("keys.col.created"),
            t("keys.col.last_used"),
            "",
          ],
          keys.map((key) => [
            key.name,
            h("code", { class: "key-hint" }, `…${key.key_hint}`),
            key.scopes.join(", "),
            formatDateTime(key.created_at),
            key.last_used_at ? formatDateTime(key.last_used_at) : t("app.none"),
            h(
              "button",
              {
                type: "button",
                class: "button secondary small key-action",
                "aria-label": t("keys.unlink_named", { name: key.name }),
                onclick: unlink(key),
              },
              t("keys.unlink"),
            ),
          ]),
        )
      : h("p", { class: "empty" }, t("keys.none")),
  );

  const createForm = apiForm({
    title: h("h2", {}, t("keys.create_title")),
    intro: t("keys.create_intro"),
    fields: [
      field(t("keys.name"), "input", { name: "name", required: true, maxlength: "100", autocomplete: "off" }),
    ],
    submit: t("keys.create_submit"),
    path: "/api/account-keys",
    auth: true,
    build: (form) => ({ action: "create", name: value(form, "name") }),
    done: (answer) => {
      freshKey = { name: answer.name, api_key: answer.api_key };
      announce(t("keys.created_title", { name: answer.name }));
      render();
    },
  });

  const linkForm = apiForm({
    title: h("h2", {}, t("keys.link_title")),
    intro: t("keys.link_intro"),
    fields: [
      field(t("keys.paste"), "input", {
        name: "api_key",
        type: "password",
        required: true,
        maxlength: "200",
        autocomplete: "off",
        autocapitalize: "off",
        spellcheck: "false",
      }),
    ],
    submit: t("keys.link_submit"),
    path: "/api/account-keys",
    auth: true,
    build: (form) => ({ action: "link", api_key: value(form, "api_key") }),
    done: (answer, form) => {
      form.elements.namedItem("api_key").value = "";
      announce(t("keys.linked_done", { name: answer.key.name }));
      render({ focus: false });
    },
    explain: (e) => {
      if (e instanceof ApiError && e.status === 404) return t("keys.link_unknown");
      if (e instanceof ApiError && e.status === 409) return t("keys.link_elsewhere");
      return null;
    },
  });

  return h("section", {}, heading(t("keys.title")), created, list, createForm, linkForm);
}

// ---------------------------------------------------------------- shell

function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

function parseRoute() {
  const hash = location.hash.replace(/^#/, "");
  const [path = "", qs = ""] = hash.split("?");
  return { path, params: new URLSearchParams(qs) };
}

function markNav(path) {
  markCurrentNav(
    document.querySelectorAll("#nav a"),
    (target) =>
      path === target ||
      (target === "/dashboard" && (path.startsWith("/task/") || path.startsWith("/invoice/"))),
  );
}

let renderToken = 0;

/** Renders the view of the current route; moves focus to its heading unless `focus` is false. */
async function render({ focus = true } = {}) {
  const token = ++renderToken;
  applyStaticStrings(langSelect);
  const signedIn = Boolean(getSession());
  navIn.hidden = !signedIn;
  navOut.hidden = signedIn;
  logoutButton.hidden = !signedIn;
  let { path, params } = parseRoute();
  const open = ["/login", "/register", "/verify", "/reset"];
  if (!signedIn && !open.includes(path) && !path.startsWith("/task/")) path = "/login";
  if (signedIn && (path === "" || path === "/login" || path === "/register")) path = "/dashboard";
  markNav(path);
  let view;
  main.setAttribute("aria-busy", "true");
  try {
    if (path === "/login") view = loginView(params);
    else if (path === "/register") view = prefilledLangSelect(await registerView());
    else if (path === "/verify") view = verifyView(params);
    else if (path === "/reset") view = resetView(params);
    else if (path.startsWith("/task/"))
      view = await taskView(decodeURIComponent(path.slice("/task/".length)));
    else if (path.startsWith("/invoice/"))
      view = await invoiceView(decodeURIComponent(path.slice("/invoice/".length)));
    else if (path === "/keys") view = await keysView();
    else view = await dashboardView();
  } catch (error) {
    if (token !== renderToken) return;
    if (error instanceof ApiError && error.status === 401 && signedIn) {
      setSession(null);
      announce(t("login.session_over"));
      return render();
    }
    const box = errorBox();
    showError(box, error);
    view = h(
      "section",
      {},
      heading(t("client.title")),
      box,
      h("button", { type: "button", class: "button secondary", onclick: () => render() }, t("app.refresh")),
    );
  } finally {
    if (token === renderToken) main.removeAttribute("aria-busy");
  }
  if (token !== renderToken) return;
  showView(main, view, t("client.title"), focus);
}

function init() {
  startShell({
    main,
    langSelect,
    logoutButton,
    render,
    logout: async () => {
      // Ends the session on the server too (the token stops working everywhere), then forgets it.
      if (getSession()) {
        try {
          await request("POST", "/api/client-auth?action=logout", { auth: true, body: {} });
        } catch {
          // already ended or offline: forgetting it here is all that is left to do
        }
      }
      setSession(null);
      announce(t("login.signed_out"));
      go("#/login");
    },
  });
}

init();

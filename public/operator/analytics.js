/**
 * The admin analytics page (issue 9), `/operator/analytics`: GET /api/analytics?action=dashboard
 * drawn with Chart.js (the UMD build vendored as /vendor/chart.umd.min.js, a same-origin script:
 * no CDN, no eval, no inline style — the console's strict CSP holds).
 *
 * - revenue by service and ISO week (stacked bars), with the same numbers as a table;
 * - top clients (table);
 * - completion rate (the figure, and a doughnut of completed / failed / cancelled with a table);
 * - tasks created in the period by status (table).
 *
 * Authentication: the console's staff session (the HttpOnly cookie, read with GET
 * /api/staff-auth; ./login.js); the sign-in form is shown when there is none. Permission
 * `analytics.read` (owner); another role is sent to the page it can use (the console, or the field
 * app for field staff; issue 44 item 2). Every chart has a text alternative (aria-label on the
 * canvas) and a table of its data. Everything from the API is inserted as text nodes.
 */

import { field, h } from "../shared/dom.js";
import { pageMessages } from "../shared/feedback.js";
import { applyStaticStrings, showView } from "../shared/shell.js";
import { heading, table } from "../shared/views.js";
import { EN, FR } from "./analytics-messages.js";
import { ApiError, can, get, getSession, setSession } from "./api.js";
import { addMessages, formatCad, formatDateTime, formatNumber, t } from "./i18n.js";
import { loadSession, signInView } from "./login.js";
import { showSignedIn, startOperatorShell } from "./session.js";

addMessages({ en: EN, fr: FR });

/** Okabe–Ito colours: distinguishable with the common colour-vision deficiencies. */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"];
const OUTCOME_COLOURS = { completed: "#009E73", failed: "#D55E00", cancelled: "#8A8F98" };

const main = document.getElementById("main");
const statusRegion = document.getElementById("status");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const whoami = document.getElementById("whoami");
const langSelect = document.getElementById("lang-select");

let charts = [];

// The analytics page shows no `details` of an error envelope.
const messages = pageMessages(statusRegion, { details: false });
const { announce, errorBox, showError } = messages;

/** Fills `box` (role=alert) with the lines of `error`, or hides it when `error` is null. */
function fillError(box, error) {
  showError(box, error);
  return box;
}

function alertBox(error) {
  return fillError(errorBox(), error);
}

function section(id, title, ...children) {
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

/** Colours of the current scheme, for chart text and grid lines. */
function themeColours() {
  const css = getComputedStyle(document.documentElement);
  return {
    fg: css.getPropertyValue("--fg").trim() || "#1a1c1e",
    grid: css.getPropertyValue("--border").trim() || "#c4c8ce",
    surface: css.getPropertyValue("--surface").trim() || "#f6f7f9",
  };
}

/** A canvas in a sized box, described by `alt` (role img); null when Chart.js is missing. */
function chartCanvas(alt, { small = false } = {}) {
  const canvas = h("canvas", { role: "img", "aria-label": alt }, alt);
  return { canvas, box: h("div", { class: ["chart-box", small && "small"] }, canvas) };
}

function revenueSection(data) {
  const rows = data.revenue_by_service_week;
  const weeks = [...new Set(rows.map((r) => r.iso_week))].sort();
  const services = [...new Set(rows.map((r) => r.service_type))].sort();
  const amount = (week, service) =>
    rows.find((r) => r.iso_week === week && r.service_type === service)?.revenue_cad ?? 0;
  const weekTotal = (week) => services.reduce((sum, s) => sum + amount(week, s), 0);
  const serviceTotal = (service) => weeks.reduce((sum, w) => sum + amount(w, service), 0);
  const total = h(
    "p",
    {},
    h("span", { class: "balance-label" }, `${t("an.revenue_total")} `),
    h("span", { class: "figure-value", id: "revenue-total" }, formatCad(data.revenue_total_cad)),
  );
  if (!weeks.length)
    return section("sec-revenue", t("an.revenue"), total, h("p", { class: "empty" }, t("an.revenue_empty")));
  const summary = weeks.map((w) => `${w}: ${formatCad(weekTotal(w))}`).join("; ");
  const { canvas, box } = chartCanvas(t("an.revenue_alt", { summary }));
  const draw = (Chart, colours) =>
    new Chart(canvas, {
      type: "bar",
      data: {
        labels: weeks,
        datasets: services.map((service, i) => ({
          label: service,
          data: weeks.map((w) => amount(w, service)),
          backgroundColor: PALETTE[i % PALETTE.length],
          borderColor: colours.surface,
          borderWidth: 1,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { stacked: true, ticks: { color: colours.fg }, grid: { color: colours.grid } },
          y: {
            stacked: true,
            beginAtZero: true,
            ticks: { color: colours.fg, callback: (v) => formatCad(v) },
            grid: { color: colours.grid },
          },
        },
        plugins: {
          legend: { labels: { color: colours.fg } },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${formatCad(c.parsed.y)}` } },
        },
      },
    });
  const el = section(
    "sec-revenue",
    t("an.revenue"),
    total,
    box,
    table(
      t("an.revenue"),
      [t("an.week"), ...services, t("an.total")],
      weeks.map((w) => [w, ...services.map((s) => formatCad(amount(w, s))), formatCad(weekTotal(w))]),
      {
        numeric: services.map((_, i) => i + 1).concat(services.length + 1),
        foot: [
          t("an.total"),
          ...services.map((s) => formatCad(serviceTotal(s))),
          formatCad(data.revenue_total_cad),
        ],
      },
    ),
  );
  return { el, draw };
}

function completionSection(rate) {
  const figure = h(
    "p",
    {},
    h(
      "span",
      { class: "figure-value", id: "completion-rate" },
      rate.rate === null ? t("app.none") : `${formatNumber(rate.rate * 100, 1)} %`,
    ),
  );
  const outcomes = ["completed", "failed", "cancelled"];
  const ended = outcomes.reduce((sum, o) => sum + rate[o], 0);
  const data = table(
    t("an.completion"),
    [t("an.outcome"), t("an.count")],
    outcomes.map((o) => [t(`status.${o}`), String(rate[o])]),
    { numeric: [1] },
  );
  if (!ended)
    return section(
      "sec-completion",
      t("an.completion"),
      figure,
      h("p", { class: "hint" }, t("an.completion_help")),
      h("p", { class: "empty" }, t("an.completion_none")),
    );
  const { canvas, box } = chartCanvas(t("an.completion_alt", rate), { small: true });
  const draw = (Chart, colours) =>
    new Chart(canvas, {
      type: "doughnut",
      data: {
        labels: outcomes.map((o) => t(`status.${o}`)),
        datasets: [
          {
            data: outcomes.map((o) => rate[o]),
            backgroundColor: outcomes.map((o) => OUTCOME_COLOURS[o]),
            borderColor: colours.surface,
          },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { position: "bottom", labels: { color: colours.fg } } },
      },
    });
  const el = section(
    "sec-completion",
    t("an.completion"),
    figure,
    h("p", { class: "hint" }, t("an.completion_help")),
    box,
    data,
  );
  return { el, draw };
}

function topClientsSection(clients) {
  return section(
    "sec-clients",
    t("an.top_clients"),
    clients.length
      ? table(
          t("an.top_clients"),
          [t("an.client"), t("an.account"), t("an.tasks"), t("an.revenue_col")],
          clients.map((c) => [
            c.client ?? t("app.none"),
            c.account_id ?? t("app.none"),
            String(c.tasks),
            formatCad(c.revenue_cad),
          ]),
          { numeric: [2, 3] },
        )
      : h("p", { class: "empty" }, t("an.no_clients")),
  );
}

function createdSection(byStatus) {
  const entries = Object.entries(byStatus ?? {}).sort((a, b) => b[1] - a[1]);
  return section(
    "sec-created",
    t("an.created"),
    entries.length
      ? table(
          t("an.created"),
          [t("an.status"), t("an.count")],
          entries.map(([status, n]) => [t(`status.${status}`), String(n)]),
          { numeric: [1] },
        )
      : h("p", { class: "empty" }, t("an.no_created")),
  );
}

function periodForm(params) {
  const error = alertBox(null);
  const form = h(
    "form",
    {
      class: "filters",
      onsubmit: (event) => {
        event.preventDefault();
        const from = form.elements.namedItem("date_from").value;
        const to = form.elements.namedItem("date_to").value;
        if (from && to && from > to) {
          fillError(error, new Error(t("an.bad_dates")));
          return;
        }
        const next = new URLSearchParams();
        if (from) next.set("date_from", from);
        if (to) next.set("date_to", to);
        location.hash = `#/?${next}`;
      },
    },
    field(t("an.from"), "input", { type: "date", name: "date_from", value: params.get("date_from") ?? "" }),
    field(t("an.to"), "input", { type: "date", name: "date_to", value: params.get("date_to") ?? "" }),
    h("button", { type: "submit", class: "button primary" }, t("an.apply")),
  );
  return h(
    "section",
    { "aria-label": t("an.period") },
    form,
    error,
    h("p", { class: "hint" }, t("an.default_period")),
  );
}

async function dashboardView(params) {
  const query = new URLSearchParams({ action: "dashboard" });
  for (const name of ["date_from", "date_to"]) {
    const v = params.get(name);
    if (v && /^\d{4}-\d{2}-\d{2}$/.test(v)) query.set(name, v);
  }
  const data = await get(`/api/analytics?${query}`);
  const revenue = revenueSection(data);
  const completion = completionSection(data.completion_rate);
  const drawers = [revenue, completion].filter((s) => s.draw);
  const view = h(
    "section",
    {},
    heading(t("an.title")),
    h("p", { class: "muted" }, t("an.intro")),
    h(
      "p",
      { class: "meta" },
      t("an.range", { from: formatDateTime(data.from), to: formatDateTime(data.to) }),
    ),
    periodForm(params),
    globalThis.Chart ? null : h("p", { class: "notice" }, t("an.chart_unavailable")),
    revenue.el ?? revenue,
    h(
      "div",
      { class: "analytics-grid" },
      completion.el ?? completion,
      createdSection(data.tasks_created_by_status),
    ),
    topClientsSection(data.top_clients),
  );
  return { view, drawers };
}

let renderToken = 0;
let sessionChecked = false;

async function render({ focus = true } = {}) {
  const token = ++renderToken;
  applyStaticStrings(langSelect);
  let view;
  let drawers = [];
  if (!sessionChecked) {
    try {
      await loadSession();
      sessionChecked = true;
    } catch (error) {
      if (token !== renderToken) return;
      showView(main, h("section", {}, heading(t("an.title")), alertBox(error)), t("app.title"), focus);
      return;
    }
    if (token !== renderToken) return;
  }
  const signedIn = Boolean(getSession());
  nav.hidden = !signedIn;
  logoutButton.hidden = !signedIn;
  showSignedIn(whoami, nav);
  if (!signedIn) {
    view = signInView({ messages, signedIn: () => render() });
  } else if (!can("analytics.read")) {
    // Not an error page: the console for a role that reads tasks, the field app for field staff.
    location.replace(can("tasks.read") ? "/operator/" : "/field/");
    return;
  } else {
    const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
    main.setAttribute("aria-busy", "true");
    try {
      ({ view, drawers } = await dashboardView(params));
    } catch (error) {
      if (token !== renderToken) return;
      if (error instanceof ApiError && error.status === 401) {
        setSession(null);
        announce(t("login.expired"));
        return render();
      }
      view = h("section", {}, heading(t("an.title")), alertBox(error));
    } finally {
      if (token === renderToken) main.removeAttribute("aria-busy");
    }
  }
  if (token !== renderToken) return;
  for (const chart of charts) chart.destroy();
  charts = [];
  showView(main, view, t("app.title"), focus, () => {
    const Chart = globalThis.Chart;
    if (Chart) {
      const colours = themeColours();
      charts = drawers.map((d) => d.draw(Chart, colours));
    }
  });
}

function init() {
  startOperatorShell({ main, langSelect, logoutButton, render, announce });
}

init();

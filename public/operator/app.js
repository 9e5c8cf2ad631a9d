/**
 * The operator console (issue 9): a small hash-routed single page over the admin API.
 *
 *   #/queue             review queue: status=received, sorted by review deadline, SLA countdowns
 *   #/tasks?status=…    every task, filtered by status / service / text, paginated
 *   #/task/<id>         everything the agent sent, estimate breakdown, map link, actions
 *   #/payments          on-chain transfers that paid no task (GET /api/chain-transfers)
 *   #/refunds           cancelled-after-payment tasks with refund_status pending
 *   #/dead-letters      a webhook's dead-letter queue, with replay
 *
 * Authentication: the admin API key pasted once, kept in sessionStorage (api.js). Routes carry
 * task ids and filters only, never the key. All text from the API is inserted as text nodes.
 * The views live in ./views/ (lists, payments, task page, actions); this file routes.
 */
import { h } from "../shared/dom.js";
import { applyStaticStrings, markCurrentNav, showView } from "../shared/shell.js";
import { heading } from "../shared/views.js";
import { ApiError, getKey, setKey } from "./api.js";
import { messages, refreshButton, setRenderer } from "./context.js";
import { t } from "./i18n.js";
import { adminLoginView } from "./login.js";
import { startOperatorShell } from "./session.js";
import { queueView, refundsView, tasksView } from "./views/lists.js";
import { deadLettersView, paymentsView } from "./views/payments.js";
import { taskView } from "./views/task.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const langSelect = document.getElementById("lang-select");
const { announce, errorBox, showError } = messages;

function parseRoute() {
  const hash = location.hash.replace(/^#/, "") || "/queue";
  const [path = "/queue", qs = ""] = hash.split("?");
  return { path, params: new URLSearchParams(qs) };
}

function markNav(path) {
  markCurrentNav(
    nav.querySelectorAll("a"),
    (target) => path === target || (target === "/queue" && path.startsWith("/task/")),
  );
}

let renderToken = 0;

/** Renders the view of the current route; moves focus to its heading unless `focus` is false. */
async function render({ focus = true } = {}) {
  const token = ++renderToken;
  applyStaticStrings(langSelect);
  const signedIn = Boolean(getKey());
  nav.hidden = !signedIn;
  logoutButton.hidden = !signedIn;
  let view;
  if (!signedIn) {
    view = adminLoginView({
      probe: "/api/task-list?limit=1",
      messages,
      signedIn: () => {
        if (!location.hash || location.hash === "#/login") location.hash = "#/queue";
        else render();
      },
    });
  } else {
    const { path, params } = parseRoute();
    markNav(path);
    main.setAttribute("aria-busy", "true");
    try {
      if (path.startsWith("/task/")) view = await taskView(decodeURIComponent(path.slice("/task/".length)));
      else if (path === "/tasks") view = await tasksView(params);
      else if (path === "/payments") view = await paymentsView();
      else if (path === "/refunds") view = await refundsView();
      else if (path === "/dead-letters") view = await deadLettersView(params);
      else view = await queueView();
    } catch (error) {
      if (token !== renderToken) return;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        setKey(null);
        announce(t("login.expired"));
        return render();
      }
      const box = errorBox();
      showError(box, error);
      view = h("section", {}, heading(t("app.title")), box, refreshButton());
    } finally {
      if (token === renderToken) main.removeAttribute("aria-busy");
    }
  }
  if (token !== renderToken) return;
  showView(main, view, t("app.title"), focus);
}

function init() {
  setRenderer(render);
  startOperatorShell({ main, langSelect, logoutButton, render, announce });
}

init();

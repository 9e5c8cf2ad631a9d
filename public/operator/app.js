/**
 * The operator console (issue 9): a small hash-routed single page over the admin API.
 *
 *   #/queue             review queue: status=received, sorted by review deadline, SLA countdowns
 *   #/tasks?status=…    every task, filtered by status / service / text, paginated
 *   #/task/<id>         everything the agent sent, estimate breakdown, map link, actions
 *   #/payments          on-chain transfers that paid no task (GET /api/chain-transfers)
 *   #/refunds           cancelled-after-payment tasks with refund_status pending
 *   #/disputes          requesters' disputes, open and oldest first, with the resolution form
 *   #/dead-letters      a webhook's dead-letter queue, with replay (owner)
 *   #/staff             staff accounts: invite, role, suspension, reinvitation (owner)
 *   #/accept?code=…     the invitation page: password, authenticator app, signed in
 *
 * Authentication: a staff account (e-mail, password, TOTP code; ./login.js). The session rides in
 * the HttpOnly cookie; the page keeps its CSRF token in memory (./api.js), nothing in storage.
 * Navigation and actions the role lacks are hidden (the server still checks each request); a 403
 * shows the permission it names. All text from the API is inserted as text nodes. The views live
 * in ./views/ (lists, payments, disputes, task page, actions, staff); this file routes.
 */
import { h } from "../shared/dom.js";
import { applyStaticStrings, markCurrentNav, showView } from "../shared/shell.js";
import { heading } from "../shared/views.js";
import { ApiError, getSession, setSession } from "./api.js";
import { messages, refreshButton, setRenderer } from "./context.js";
import { t } from "./i18n.js";
import { acceptView, loadSession, signInView } from "./login.js";
import { showSignedIn, startOperatorShell } from "./session.js";
import { disputesView } from "./views/disputes.js";
import { queueView, refundsView, tasksView } from "./views/lists.js";
import { deadLettersView, paymentsView } from "./views/payments.js";
import { staffView } from "./views/staff.js";
import { taskView } from "./views/task.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const whoami = document.getElementById("whoami");
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
/** Whether GET /api/staff-auth was asked once (a reload signs in again from the cookie). */
let sessionChecked = false;

/** After a sign-in: the queue when coming from the form or the invitation, else the same route. */
function afterSignIn() {
  const { path } = parseRoute();
  if (path === "/login" || path === "/accept") location.hash = "#/queue";
  else render();
}

/** Renders the view of the current route; moves focus to its heading unless `focus` is false. */
async function render({ focus = true } = {}) {
  const token = ++renderToken;
  applyStaticStrings(langSelect);
  const route = parseRoute();
  if (!sessionChecked && route.path !== "/accept") {
    try {
      await loadSession();
      sessionChecked = true;
    } catch (error) {
      if (token !== renderToken) return;
      const box = errorBox();
      showError(box, error);
      showView(main, h("section", {}, heading(t("app.title")), box, refreshButton()), t("app.title"), focus);
      return;
    }
    if (token !== renderToken) return;
  }
  const signedIn = Boolean(getSession());
  nav.hidden = !signedIn;
  logoutButton.hidden = !signedIn;
  showSignedIn(whoami, nav);
  let view;
  if (route.path === "/accept" && !signedIn) {
    view = acceptView(route.params.get("code") ?? "", { messages, signedIn: afterSignIn });
  } else if (!signedIn) {
    view = signInView({ messages, signedIn: afterSignIn });
  } else {
    const { path, params } = route;
    markNav(path);
    main.setAttribute("aria-busy", "true");
    try {
      if (path.startsWith("/task/")) view = await taskView(decodeURIComponent(path.slice("/task/".length)));
      else if (path === "/tasks") view = await tasksView(params);
      else if (path === "/payments") view = await paymentsView();
      else if (path === "/refunds") view = await refundsView();
      else if (path === "/disputes") view = await disputesView();
      else if (path === "/dead-letters") view = await deadLettersView(params);
      else if (path === "/staff") view = await staffView();
      else view = await queueView();
    } catch (error) {
      if (token !== renderToken) return;
      if (error instanceof ApiError && error.status === 401) {
        setSession(null);
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

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
 * shows the permission it names. A route the role cannot use sends it to one it can: the first
 * section it may read, or the field app for field staff (issue 44 item 2). All text from the API is inserted as text nodes. The views live
 * in ./views/ (lists, payments, disputes, task page, actions, staff); this file routes.
 */
import { h } from "../shared/dom.js";
import { syncPushButton } from "../shared/push.js";
import { applyStaticStrings, markCurrentNav, showView } from "../shared/shell.js";
import { heading } from "../shared/views.js";
import { ApiError, can, getSession, request, setSession } from "./api.js";
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

/**
 * The permission each console route needs (the same as its navigation link's `data-permission`;
 * `owner` for owner-only sections). A task page (`/task/…`) needs `tasks.read`.
 */
const ROUTE_PERMISSIONS = {
  "/queue": "tasks.read",
  "/tasks": "tasks.read",
  "/task/": "tasks.read",
  "/payments": "payments.read",
  "/refunds": "tasks.read",
  "/disputes": "disputes.read",
  "/dead-letters": "owner",
  "/staff": "staff.manage",
};

/** Whether the signed-in role may use `path` (routes not listed: yes). */
function mayUse(path) {
  const needed = Object.entries(ROUTE_PERMISSIONS).find(
    ([p]) => path === p || (p.endsWith("/") && path.startsWith(p)),
  )?.[1];
  if (!needed) return true;
  return needed === "owner" ? getSession()?.staff.role === "owner" : can(needed);
}

/**
 * Where a signed-in staff member who landed on a route their role cannot use is sent (issue 44
 * item 2): a role without any console section (`field`) to the field app, any other to the first
 * section it may use. Null when the route is theirs.
 */
function redirectFor(path) {
  if (mayUse(path)) return null;
  const first = [...nav.querySelectorAll("a[data-permission]")]
    .map((a) => a.getAttribute("href"))
    .find((href) => href.startsWith("#/") && mayUse(href.slice(1)));
  return first ?? "/field/";
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
  // A reviewer's push notifications of tasks waiting for review (issue 44 item 6; shared/push.js).
  const pushOptions = { scope: "/operator/", workerUrl: "/operator/push-sw.js", request, announce };
  syncPushButton({ container: logoutButton.parentElement, before: logoutButton, signedIn, ...pushOptions });
  let view;
  if (route.path === "/accept" && !signedIn) {
    view = acceptView(route.params.get("code") ?? "", { messages, signedIn: afterSignIn });
  } else if (!signedIn) {
    view = signInView({ messages, signedIn: afterSignIn });
  } else {
    const { path, params } = route;
    const target = redirectFor(path);
    if (target) {
      // Not an error page: the section this role works in (the field app for field staff).
      if (target.startsWith("#")) location.replace(target);
      else location.assign(target);
      return;
    }
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

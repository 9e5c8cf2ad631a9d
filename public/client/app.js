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
 *
 * The views live in ./views/ (signed-out, register, account, invoice, keys); this file routes.
 */
import { h } from "../shared/dom.js";
import { applyStaticStrings, markCurrentNav, showView, startShell } from "../shared/shell.js";
import { heading } from "../shared/views.js";
import { ApiError, getSession, request, setSession } from "./api.js";
import { go, messages, refreshButton, setRenderer } from "./context.js";
import { t } from "./i18n.js";
import { dashboardView } from "./views/account.js";
import { invoiceView } from "./views/invoice.js";
import { keysView } from "./views/keys.js";
import { registerView } from "./views/register.js";
import { loginView, resetView, verifyView } from "./views/signed-out.js";
import { taskView } from "./views/task.js";

const main = document.getElementById("main");
const navIn = document.getElementById("nav-signed-in");
const navOut = document.getElementById("nav-signed-out");
const logoutButton = document.getElementById("logout");
const langSelect = document.getElementById("lang-select");
const { announce, errorBox, showError } = messages;

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
    else if (path === "/register") view = await registerView();
    else if (path === "/verify") view = verifyView(params);
    else if (path === "/reset") view = resetView(params);
    else if (path.startsWith("/task/"))
      view = await taskView(decodeURIComponent(path.slice("/task/".length)));
    else if (path.startsWith("/invoice/"))
      view = await invoiceView(decodeURIComponent(path.slice("/invoice/".length)));
    else if (path === "/keys") view = await keysView();
    else view = await dashboardView(params);
  } catch (error) {
    if (token !== renderToken) return;
    if (error instanceof ApiError && error.status === 401 && signedIn) {
      setSession(null);
      announce(t("login.session_over"));
      return render();
    }
    const box = errorBox();
    showError(box, error);
    view = h("section", {}, heading(t("client.title")), box, refreshButton());
  } finally {
    if (token === renderToken) main.removeAttribute("aria-busy");
  }
  if (token !== renderToken) return;
  showView(main, view, t("client.title"), focus);
}

function init() {
  setRenderer(render);
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

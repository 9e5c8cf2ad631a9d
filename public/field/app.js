/**
 * The field app (issue 26 item 5; docs/staff-and-audit.md "Field app"): a phone-first,
 * hash-routed page for the field staff, over GET/POST /api/field-visit, POST /api/field-proof and
 * POST /api/task-complete.
 *
 *   #/tasks        my assigned open tasks, closest deadline first, at-risk badge
 *   #/task/<id>    address, map links, instructions, deadline, check-in/out, photos, complete or fail
 *   #/accept?code= the invitation of a field person: password, authenticator app, signed in
 *
 * Authentication: the staff sign-in (e-mail, password, TOTP) sets an HttpOnly cookie; the page keeps
 * only the session's CSRF token in memory (api.js) and stores no key or token anywhere.
 */
import { h } from "../shared/dom.js";
import { syncPushButton } from "../shared/push.js";
import { applyStaticStrings, markCurrentNav, showView, startShell } from "../shared/shell.js";
import { acceptView as staffAcceptView } from "../shared/staff-enrol.js";
import { heading } from "../shared/views.js";
import { ApiError, currentSession, forgetSession, loadSession, request, signOut } from "./api.js";
import { messages, setRenderer } from "./context.js";
import { t } from "./i18n.js";
import { loginView } from "./login.js";
import { forgetOfflineData, startOffline } from "./offline.js";
import { listView, taskView } from "./views.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const langSelect = document.getElementById("lang-select");
const { announce, errorBox, showError } = messages;

let renderToken = 0;
let sessionChecked = false;

/** Renders the view of the current route; moves focus to its heading unless `focus` is false. */
async function render({ focus = true } = {}) {
  const token = ++renderToken;
  applyStaticStrings(langSelect);
  if (!sessionChecked) {
    sessionChecked = true;
    try {
      await loadSession();
    } catch {
      forgetSession();
    }
  }
  const signedIn = Boolean(currentSession());
  nav.hidden = !signedIn;
  logoutButton.hidden = !signedIn;
  // Push notifications of assignments and tasks at risk (issue 44 item 6; shared/push.js).
  // The offline worker (field/sw.js) imports the push handlers: one worker for the scope.
  const pushOptions = { scope: "/field/", workerUrl: "/field/sw.js", request, announce };
  syncPushButton({ container: logoutButton.parentElement, before: logoutButton, signedIn, ...pushOptions });
  let view;
  const hash = location.hash.replace(/^#/, "");
  if (!signedIn && hash.startsWith("/accept")) {
    // The invitation e-mail of a field person links here (issue 44 item 2): enrol, then signed in.
    const code = new URLSearchParams(hash.split("?")[1] ?? "").get("code") ?? "";
    view = staffAcceptView(code, {
      messages,
      request,
      keep: () => loadSession(),
      title: t("accept.title_field"),
      signedIn: () => {
        location.hash = "#/tasks";
        render();
      },
    });
  } else if (!signedIn) {
    view = loginView({ messages, signedIn: () => render() });
  } else {
    const route = hash.startsWith("/task/") ? hash : "/tasks";
    markCurrentNav(nav.querySelectorAll("a"), (target) => target === "/tasks");
    main.setAttribute("aria-busy", "true");
    try {
      view = route.startsWith("/task/")
        ? await taskView(decodeURIComponent(route.slice("/task/".length)))
        : await listView();
    } catch (error) {
      if (token !== renderToken) return;
      if (error instanceof ApiError && error.status === 401) {
        forgetSession();
        announce(t("login.expired"));
        return render();
      }
      const box = errorBox();
      showError(box, error);
      view = h("section", {}, heading(t("app.title")), box);
    } finally {
      if (token === renderToken) main.removeAttribute("aria-busy");
    }
  }
  if (token !== renderToken) return;
  showView(main, view, t("app.title"), focus);
}

setRenderer(render);
startOffline(main);
startShell({
  main,
  langSelect,
  logoutButton,
  render,
  logout: async () => {
    try {
      await signOut();
    } catch {
      // the cookie expires by itself; the page forgets the session either way
    }
    await forgetOfflineData();
    announce(t("login.logged_out"));
    render();
  },
});

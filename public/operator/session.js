/**
 * The shell of the operator pages (console and analytics): language switch, navigation, the
 * signed-in staff member in the header, and a sign-out that ends the session on the server.
 */
import { replace } from "../shared/dom.js";
import { startShell } from "../shared/shell.js";
import { can, getSession } from "./api.js";
import { t } from "./i18n.js";
import { signOut } from "./login.js";

/** Starts the shared shell; `announce` shows the "signed out" message. */
export function startOperatorShell({ main, langSelect, logoutButton, render, announce }) {
  startShell({
    main,
    langSelect,
    logoutButton,
    render,
    logout: async () => {
      try {
        await signOut();
      } catch {
        // the session is forgotten here anyway; the server's ends at its expiry
      }
      announce(t("login.logged_out"));
      render();
    },
  });
}

/**
 * Shows who is signed in ("display name · role") in `whoEl`, or nothing when signed out, and hides
 * the navigation links whose `data-permission` the role lacks (`owner` for owner-only sections).
 */
export function showSignedIn(whoEl, nav) {
  const session = getSession();
  if (whoEl) {
    whoEl.hidden = !session;
    replace(
      whoEl,
      session
        ? t("who.signed_in", { name: session.staff.display_name, role: t(`role.${session.staff.role}`) })
        : "",
    );
  }
  for (const link of nav?.querySelectorAll("[data-permission]") ?? []) {
    const needed = link.dataset.permission;
    const allowed = needed === "owner" ? session?.staff.role === "owner" : can(needed);
    link.closest("li").hidden = !allowed;
  }
}

/**
 * The shell of the operator pages (console and analytics): language switch, navigation,
 * and a log-out that forgets the admin key kept in this tab's sessionStorage.
 */
import { startShell } from "../shared/shell.js";
import { setKey } from "./api.js";
import { t } from "./i18n.js";

/** Starts the shared shell; `announce` shows the "logged out" message. */
export function startOperatorShell({ main, langSelect, logoutButton, render, announce }) {
  startShell({
    main,
    langSelect,
    logoutButton,
    render,
    logout: () => {
      setKey(null);
      announce(t("login.logged_out"));
      render();
    },
  });
}

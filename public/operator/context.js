/**
 * What the console's views share with its router (operator/app.js): the page's messages (toast
 * and error boxes), a way to re-render the current route without importing the router (which
 * imports the views), and small helpers every view uses.
 */
import { h } from "../shared/dom.js";
import { pageMessages } from "../shared/feedback.js";
import { renderHook } from "../shared/render-hook.js";
import { t } from "./i18n.js";

/** `announce`, `errorBox`, `showError` of the console page (shared/feedback.js). */
export const messages = pageMessages(document.getElementById("status"));

/**
 * `render(options)` re-renders the current route (`focus: false` keeps the focus where it is);
 * `setRenderer(render)` is called once by operator/app.js.
 */
export const { setRenderer, render } = renderHook();

/** The console's hash route of a task. */
export function taskHref(id) {
  return `#/task/${encodeURIComponent(id)}`;
}

/** A button that re-renders the current view. */
export function refreshButton() {
  return h(
    "button",
    { type: "button", class: "button secondary", onclick: () => render() },
    t("app.refresh"),
  );
}

/** "yes" / "no" in the current language. */
export function yesNo(value) {
  return value ? t("yes") : t("no");
}

/**
 * What the console's views share with its router (operator/app.js): the page's messages (toast
 * and error boxes), a way to re-render the current route without importing the router (which
 * imports the views), and small helpers every view uses.
 */
import { h } from "../shared/dom.js";
import { pageMessages } from "../shared/feedback.js";
import { t } from "./i18n.js";

/** `announce`, `errorBox`, `showError` of the console page (shared/feedback.js). */
export const messages = pageMessages(document.getElementById("status"));

let renderer = async () => {};

/** Registers the router's render function (called once by operator/app.js). */
export function setRenderer(render) {
  renderer = render;
}

/** Re-renders the current route; `focus: false` keeps the focus where it is. */
export function render(options) {
  return renderer(options);
}

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

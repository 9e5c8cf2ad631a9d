/**
 * What the field app's views share with its router (field/app.js): the page's messages (toast and
 * error boxes) and a way to re-render the current route without importing the router.
 */
import { pageMessages } from "../shared/feedback.js";
import { renderHook } from "../shared/render-hook.js";

/** `announce`, `errorBox`, `showError` of the page (shared/feedback.js). */
export const messages = pageMessages(document.getElementById("status"));

/** `render(options)` re-renders the current route; `setRenderer(render)` is called once by app.js. */
export const { setRenderer, render } = renderHook();

/** The hash route of a task. */
export function taskHref(id) {
  return `#/task/${encodeURIComponent(id)}`;
}

/**
 * Messages of the console, analytics and client pages: the status toast and error boxes that
 * show the service's error envelope ("Error CODE: message", field, request id). Texts come
 * from the common dictionary (shared/i18n.js).
 */

import { ApiError } from "./api.js";
import { h, replace } from "./dom.js";
import { t } from "./i18n.js";

/** How long a toast stays before it hides by itself (ms). */
const AUTO_HIDE_MS = 6000;

/**
 * The messages of one page. The toast is `#status` (role=status) inside a `.toast` box that
 * also holds a `.toast-dismiss` button (see the pages' HTML); Escape dismisses it too.
 * @param {HTMLElement} statusRegion the polite live region shown as a toast (#status)
 * @param {{ details?: boolean }} options `details: false` leaves the envelope's `details` out
 * @returns {{ announce(message: string, options?: { persist?: boolean }): void, errorLines(error: unknown): string[],
 *   errorBox(): HTMLElement, showError(box: HTMLElement, error: unknown): void }}
 */
export function pageMessages(statusRegion, { details = true } = {}) {
  let statusTimer;
  const dismissButton = statusRegion.parentElement?.querySelector(".toast-dismiss");
  /** Hides the toast (its text stays in the live region until the next message). */
  function dismiss() {
    clearTimeout(statusTimer);
    statusRegion.classList.remove("visible");
    if (dismissButton) dismissButton.hidden = true;
  }
  if (dismissButton) dismissButton.hidden = true;
  dismissButton?.addEventListener("click", dismiss);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && statusRegion.classList.contains("visible")) dismiss();
  });

  /**
   * Announces a message in the polite live region, also shown as a toast with a dismiss button.
   * It hides by itself after 6 s unless `persist` is set (then it stays until dismissed).
   */
  function announce(message, { persist = false } = {}) {
    statusRegion.textContent = message;
    statusRegion.classList.add("visible");
    if (dismissButton) dismissButton.hidden = false;
    clearTimeout(statusTimer);
    if (!persist) statusTimer = setTimeout(dismiss, AUTO_HIDE_MS);
  }

  /** The envelope of an ApiError as readable lines: "Error CODE: message", field, request id. */
  function errorLines(error) {
    if (!(error instanceof ApiError)) return [String(error?.message ?? error)];
    if (error.code === "NETWORK") return [t("error.network")];
    const lines = [t("error.generic", { code: error.code, message: error.message })];
    if (error.permission)
      lines.push(t("error.permission", { permission: error.permission, role: error.role ?? "?" }));
    const extra = [];
    if (error.field) extra.push(t("error.field", { field: error.field }));
    if (details) {
      for (const d of error.details) {
        if (d && typeof d === "object" && d.field && d.field !== error.field)
          extra.push(`${d.field}: ${d.message}`);
      }
    }
    if (error.requestId) extra.push(t("error.request", { id: error.requestId }));
    if (extra.length) lines.push(extra.join(" · "));
    return lines;
  }

  /** An empty, hidden error box (role=alert). */
  function errorBox() {
    return h("div", { class: "form-error", role: "alert", hidden: true });
  }

  /** Fills an error box with an error or a plain message, or empties and hides it. */
  function showError(box, error) {
    if (!error) {
      box.replaceChildren();
      box.hidden = true;
      return;
    }
    const lines = typeof error === "string" ? [error] : errorLines(error);
    replace(
      box,
      lines.map((line, i) => h(i === 0 ? "strong" : "span", { class: "error-line" }, line)),
    );
    box.hidden = false;
  }

  return { announce, errorLines, errorBox, showError };
}

/**
 * Messages of the console, analytics and client pages: the status toast and error boxes that
 * show the service's error envelope ("Error CODE: message", field, request id). Texts come
 * from the common dictionary (public/operator/i18n.js, which the client's i18n.js extends).
 */
import { t } from "../operator/i18n.js";
import { ApiError } from "./api.js";
import { h, replace } from "./dom.js";

/**
 * The messages of one page.
 * @param {HTMLElement} statusRegion the polite live region shown as a toast (#status)
 * @param {{ details?: boolean }} options `details: false` leaves the envelope's `details` out
 * @returns {{ announce(message: string): void, errorLines(error: unknown): string[],
 *   errorBox(): HTMLElement, showError(box: HTMLElement, error: unknown): void }}
 */
export function pageMessages(statusRegion, { details = true } = {}) {
  let statusTimer;
  /** Announces a message (polite live region, also shown as a toast for 6 s). */
  function announce(message) {
    statusRegion.textContent = message;
    statusRegion.classList.add("visible");
    clearTimeout(statusTimer);
    statusTimer = setTimeout(() => statusRegion.classList.remove("visible"), 6000);
  }

  /** The envelope of an ApiError as readable lines: "Error CODE: message", field, request id. */
  function errorLines(error) {
    if (!(error instanceof ApiError)) return [String(error?.message ?? error)];
    if (error.code === "NETWORK") return [t("error.network")];
    const lines = [t("error.generic", { code: error.code, message: error.message })];
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

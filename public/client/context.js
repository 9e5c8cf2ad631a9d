/**
 * What the client dashboard's views share with its router (client/app.js): the page's messages
 * (toast and error boxes), re-rendering and navigation without importing the router, the form
 * that POSTs to the API, section and table helpers, and the download button (PDFs, data export).
 */
import { field, h } from "../shared/dom.js";
import { pageMessages } from "../shared/feedback.js";
import { renderHook } from "../shared/render-hook.js";
import { table } from "../shared/views.js";
import { download, request } from "./api.js";
import { t } from "./i18n.js";

/** `announce`, `errorBox`, `showError` of the dashboard page (shared/feedback.js). */
export const messages = pageMessages(document.getElementById("status"));
const { errorBox, showError } = messages;

/**
 * `render(options)` re-renders the current route (`focus: false` keeps the focus where it is);
 * `setRenderer(render)` is called once by client/app.js.
 */
export const { setRenderer, render } = renderHook();

/** Goes to `hash`, or re-renders when it is already the current one. */
export function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

/** A button that re-renders the current view. */
export function refreshButton() {
  return h(
    "button",
    { type: "button", class: "button secondary", onclick: () => render() },
    t("app.refresh"),
  );
}

/** A field whose label says "(optional)". */
export function optionalField(label, control, attrs, extra) {
  return field(t("client.optional", { label }), control, attrs, extra);
}

/**
 * A form that POSTs `build(form)` (or what it resolves to) to `path`, disables its button while the request runs and
 * shows API errors (translated by `explain` when it returns a string) in its alert box.
 */
export function apiForm({ title, intro, fields, submit, path, build, done, explain, auth = false }) {
  const error = errorBox();
  const button = h("button", { type: "submit", class: "button primary" }, submit);
  const form = h(
    "form",
    {
      class: "panel",
      method: "post",
      onsubmit: async (event) => {
        event.preventDefault();
        showError(error, null);
        let body;
        try {
          body = await build(form);
        } catch (e) {
          showError(error, e.message);
          return;
        }
        button.disabled = true;
        try {
          const answer = await request("POST", path, { body, auth });
          await done(answer, form);
        } catch (e) {
          showError(error, explain?.(e) || e);
        } finally {
          button.disabled = false;
        }
      },
    },
    title,
    intro ? h("p", {}, intro) : null,
    fields,
    error,
    button,
  );
  return form;
}

/** The trimmed value of the form field `name` ("" when absent). */
export function value(form, name) {
  const el = form.elements.namedItem(name);
  return typeof el?.value === "string" ? el.value.trim() : "";
}

/** Sets `body[name]` to the trimmed value of the field when it is not empty. */
export function optional(body, form, name) {
  const v = value(form, name);
  if (v) body[name] = v;
}

/** A section with a table of `rows` (captioned `title`), or the `empty` text when there is none. */
export function tableSection(id, title, columns, rows, { numeric, empty }) {
  return section(
    id,
    title,
    rows.length ? table(title, columns, rows, { numeric }) : h("p", { class: "empty" }, empty),
  );
}

/** A panel section titled by an h2 with id `id`. */
export function section(id, title, ...children) {
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

/**
 * A button that downloads `path` with the client JWT as `filename` (api.js `download`): the
 * invoice PDFs and the data export, which a plain link cannot fetch (they need the Authorization
 * header). A failure is announced with the error envelope.
 */
export function downloadButton(label, path, filename, attrs = {}) {
  const button = h("button", { type: "button", class: "button secondary", ...attrs }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await download(path, filename);
    } catch (error) {
      messages.announce(messages.errorLines(error).join(" "), { persist: true });
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/**
 * Small views shared by the console, analytics and client pages, built with dom.js (text
 * nodes only, never markup).
 */
import { h } from "./dom.js";

const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

/** The view's focusable `<h1>`. */
export function heading(text) {
  return h("h1", { tabindex: "-1" }, text);
}

/** A `badge badge-<kind>` span. */
export function badge(text, kind) {
  return h("span", { class: ["badge", kind && `badge-${kind}`] }, text);
}

/**
 * A data table in a scrollable region: hidden caption, column headers, rows whose first cell
 * is the row header, an optional footer row; `numeric` column indexes get class `num`. Each
 * cell carries its column's name in `data-label`, so that below 600 px (css/tables.css) every
 * row is shown as a card of "label: value" lines instead of a table wider than the screen.
 */
export function table(caption, columns, rows, { numeric = [], foot } = {}) {
  const cell = (value, i) => {
    const attrs = { class: numeric.includes(i) ? "num" : null, "data-label": columns[i] || null };
    return i === 0 ? h("th", { ...attrs, scope: "row" }, value) : h("td", attrs, value);
  };
  const row = (cells) =>
    h(
      "tr",
      {},
      cells.map((v, i) => cell(v, i)),
    );
  return h(
    "div",
    { class: "table-scroll", role: "region", "aria-label": caption, tabindex: "0" },
    h(
      "table",
      { class: "data-table" },
      h("caption", { class: "visually-hidden" }, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c, i) => h("th", { scope: "col", class: numeric.includes(i) ? "num" : null }, c)),
        ),
      ),
      h("tbody", {}, rows.map(row)),
      foot ? h("tfoot", {}, row(foot)) : null,
    ),
  );
}

/** A proof file `{ filename, type, content (base64) }`: an inline image for image types, else a download link (blob URL). */
export function proofItem(file) {
  if (INLINE_IMAGE_TYPES.has(file.type)) {
    const src = `data:${file.type};base64,${file.content}`;
    return h(
      "li",
      {},
      h(
        "figure",
        {},
        h("img", { src, alt: file.filename, class: "proof-image" }),
        h("figcaption", {}, file.filename),
      ),
    );
  }
  const bytes = Uint8Array.from(atob(file.content), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: file.type }));
  return h("li", {}, h("a", { href: url, download: file.filename }, `${file.filename} (${file.type})`));
}

/**
 * A tiny element builder. Every string child becomes a text node, so text that came from
 * agents (descriptions, addresses, notes) can never become markup: the console never uses
 * innerHTML.
 */

/**
 * Creates an element. `attrs`: `class`, `text`, `on<event>` handlers, boolean attributes
 * (true sets, false/null/undefined omits) and plain attributes. Children: nodes, strings,
 * numbers, arrays, or null/false (skipped).
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "class") {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (name === "text") {
      el.textContent = String(value);
    } else if (value === true) {
      el.setAttribute(name, "");
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

/** Appends children (see `h`). */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces all children of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

let idCounter = 0;
/** A unique element id for label/aria wiring. */
export function uid(prefix = "f") {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/**
 * A labelled form field: `<div class="field"><label for>…</label><input|textarea|select …></div>`.
 * `control` is the tag name; `attrs` go on the control; `hint` becomes aria-describedby text.
 */
export function field(labelText, control, attrs = {}, { hint, options } = {}) {
  const id = attrs.id ?? uid(attrs.name ?? "f");
  const hintId = hint ? `${id}-hint` : null;
  const input = h(control, { ...attrs, id, "aria-describedby": hintId });
  if (options) for (const [value, label] of options) input.append(h("option", { value }, label));
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, labelText),
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    input,
  );
}

/** A definition list from [term, value] pairs, skipping null/undefined/"" values. */
export function definitions(pairs, className = "facts") {
  const dl = h("dl", { class: className });
  for (const [term, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    dl.append(h("div", {}, h("dt", {}, term), h("dd", {}, value)));
  }
  return dl;
}

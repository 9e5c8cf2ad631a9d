/**
 * The page shell shared by the console, analytics and client pages: static texts
 * (`data-i18n`, `data-i18n-label`), the language select, the log-out button, hash routing,
 * the skip link, and showing a rendered view (document title, focus on its heading).
 */

import { replace } from "./dom.js";
import { getLang, setLang, t } from "./i18n.js";

/** Texts of the static shell (elements with data-i18n / data-i18n-label) and the language select. */
export function applyStaticStrings(langSelect) {
  document.documentElement.lang = getLang();
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-label]"))
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  langSelect.value = getLang();
}

/** Marks (aria-current=page) the links whose `#target` is `current(target)`, unmarks the others. */
export function markCurrentNav(links, current) {
  for (const link of links) {
    const target = link.getAttribute("href").replace(/^#/, "");
    if (current(target)) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/**
 * Puts `view` in `main`, runs `shown` (e.g. drawing charts into it), titles the document
 * "<h1> · appTitle" and focuses the h1 unless `focus` is false.
 */
export function showView(main, view, appTitle, focus, shown) {
  replace(main, view);
  shown?.();
  const title = main.querySelector("h1");
  document.title = `${title?.textContent ?? ""} · ${appTitle}`;
  if (focus) title?.focus({ preventScroll: false });
}

/**
 * Wires the shell and renders once (without moving focus): the language select re-renders,
 * `logout` runs on the log-out button, a hash change re-renders, the skip link focuses the h1.
 */
export function startShell({ main, langSelect, logoutButton, render, logout }) {
  langSelect.addEventListener("change", () => {
    setLang(langSelect.value);
    render({ focus: false });
  });
  logoutButton.addEventListener("click", logout);
  window.addEventListener("hashchange", () => render());
  document.getElementById("skip-link")?.addEventListener("click", (event) => {
    event.preventDefault();
    main.querySelector("h1")?.focus();
  });
  render({ focus: false });
}

/**
 * The language of the pages and the helpers every page shares: the current language (stored
 * choice, else the browser's when it is French, else English), `t` over one dictionary made of
 * the common texts (./messages.js) plus what each app adds with `addMessages`, and number and
 * date formatting. Times are shown in America/Toronto, the service's timezone.
 */
import { EN, FR } from "./messages.js";

export const LANGS = ["en", "fr"];
const STORAGE_KEY = "ui.lang";
export const TIME_ZONE = "America/Toronto";

/** @type {Record<string, Record<string, string>>} the dictionary of each language */
const MESSAGES = { en: { ...EN }, fr: { ...FR } };

/**
 * Adds an app's texts to the dictionary (a key already there is replaced).
 * @param {{ en: Record<string, string>, fr: Record<string, string> }} messages
 */
export function addMessages({ en, fr }) {
  Object.assign(MESSAGES.en, en);
  Object.assign(MESSAGES.fr, fr);
}

let current = initialLang();

/** The stored choice, else the browser's language when it is French, else English. */
function initialLang() {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && LANGS.includes(stored)) return stored;
  } catch {
    // storage unavailable (private mode): fall through
  }
  const nav = (globalThis.navigator?.languages?.[0] ?? globalThis.navigator?.language ?? "en").toLowerCase();
  return nav.startsWith("fr") ? "fr" : "en";
}

/** The current language, `en` or `fr`. */
export function getLang() {
  return current;
}

/** Switches the language, remembers it (not a secret: localStorage) and sets <html lang>. */
export function setLang(lang) {
  if (!LANGS.includes(lang)) return;
  current = lang;
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // ignore
  }
  document.documentElement.lang = lang;
}

/** The string `key` in the current language with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = MESSAGES[current]?.[key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function locale() {
  return current === "fr" ? "fr-CA" : "en-CA";
}

/** A CAD amount, e.g. "$1,234.50" / "1 234,50 $". */
export function formatCad(value) {
  if (value === null || value === undefined) return t("app.none");
  return new Intl.NumberFormat(locale(), { style: "currency", currency: "CAD" }).format(value);
}

/** A plain number with up to `digits` decimals. */
export function formatNumber(value, digits = 4) {
  if (value === null || value === undefined) return t("app.none");
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(value);
}

/** A date-time in America/Toronto. */
export function formatDateTime(iso) {
  if (!iso) return t("app.none");
  return new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: TIME_ZONE,
  }).format(new Date(iso));
}

/** A duration in milliseconds as "2 d 3 h", "3 h 05 min" or "12 min". */
export function formatDuration(ms) {
  const minutes = Math.max(0, Math.floor(Math.abs(ms) / 60000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return `${days} ${current === "fr" ? "j" : "d"} ${hours} h`;
  if (hours > 0) return `${hours} h ${String(mins).padStart(2, "0")} min`;
  return `${mins} min`;
}

/**
 * A distance in metres as people say it, localized: "850 m", "1.2 km", "40 km" (fr-CA "1,2 km").
 * Under 1 km to the metre; 1-10 km with one decimal; beyond, whole kilometres.
 */
export function formatDistance(metres) {
  if (metres === null || metres === undefined) return t("app.none");
  const unit = (value, u, digits) =>
    new Intl.NumberFormat(locale(), { style: "unit", unit: u, maximumFractionDigits: digits }).format(value);
  if (metres < 1000) return unit(Math.round(metres), "meter", 0);
  return unit(metres / 1000, "kilometer", metres < 10_000 ? 1 : 0);
}

/** A byte count as "1.2 MB". */
export function formatBytes(bytes) {
  const unit = current === "fr" ? ["o", "Ko", "Mo"] : ["B", "KB", "MB"];
  if (bytes < 1000) return `${bytes} ${unit[0]}`;
  if (bytes < 1_000_000) return `${formatNumber(bytes / 1000, 0)} ${unit[1]}`;
  return `${formatNumber(bytes / 1_000_000, 1)} ${unit[2]}`;
}

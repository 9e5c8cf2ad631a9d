/** Formatting of amounts and times in client-facing e-mail, per language (fr-CA, en-CA; Montreal time). */
import type { Lang } from "../db/schema/enums.js";
import { roundCad } from "../money.js";

/** Time zone of the service (Terrebonne, QC). */
export const SERVICE_TIME_ZONE = "America/Toronto";

/** Intl formatters are costly to build and immutable: one per language and kind. */
const cadFormats = new Map<Lang, Intl.NumberFormat>();
const dateTimeFormats = new Map<Lang, Intl.DateTimeFormat>();

/**
 * A CAD amount, e.g. `379,67 $` (fr) or `$379.67` (en), always with cents, rounded to the cent
 * by the service's rule (lib/money.ts: half away from zero on the decimal value).
 */
export function formatCad(amount: number | null | undefined, lang: Lang): string {
  if (amount === null || amount === undefined) return "—";
  let format = cadFormats.get(lang);
  if (!format) {
    format = new Intl.NumberFormat(lang === "fr" ? "fr-CA" : "en-CA", {
      style: "currency",
      currency: "CAD",
      minimumFractionDigits: 2,
    });
    cadFormats.set(lang, format);
  }
  return `${format.format(roundCad(amount))} CAD`;
}

/** A date-time in Montreal time, e.g. `15 mars 2026, 14 h 30 (heure de Montréal)`. */
export function formatDateTime(date: Date | null | undefined, lang: Lang): string {
  if (!date) return "—";
  let format = dateTimeFormats.get(lang);
  if (!format) {
    format = new Intl.DateTimeFormat(lang === "fr" ? "fr-CA" : "en-CA", {
      dateStyle: "long",
      timeStyle: "short",
      timeZone: SERVICE_TIME_ZONE,
    });
    dateTimeFormats.set(lang, format);
  }
  const text = format.format(date);
  return `${text} (${lang === "fr" ? "heure de Montréal" : "Montreal time"})`;
}

/** A byte size, e.g. `12.3 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * E-mail templates: readable text files `lib/mail/templates/<template>.<lang>.txt`, one per
 * message and language (`fr`, `en`; docs/api-conventions.md "What the service does" 7).
 *
 * File format: the first line is `Subject: …`, then a blank line, then the body, both in
 * Mustache syntax, rendered by the `mustache` package (docs/decisions.md entry 30): `{{name}}`
 * inserts a value (missing or null → empty); `{{#name}}…{{/name}}` keeps its content when the
 * value is truthy (non-empty string, true, non-zero), `{{^name}}…{{/name}}` when it is falsy, at
 * any depth of nesting. A tag alone on its line takes its line break with it. Values are inserted
 * once, never re-read as template text.
 *
 * Escaping is decided by the kind of body (`BodyKind`), never by the template: a plain-text body
 * (`.txt`, every template today) and the subject insert values as they are (no HTML entities in a
 * text message); an HTML body (`html`) inserts every `{{name}}` HTML-escaped by Mustache's own
 * escaping (`&`, `<`, `>`, quotes…), `{{{name}}}` only for markup the service wrote itself.
 *
 * Each file is referenced by a literal `new URL(…, import.meta.url)` so that Vercel's file
 * tracer bundles it with the functions that send mail.
 */
import { readFileSync } from "node:fs";
import Mustache from "mustache";
import type { Lang } from "../db/schema/enums.js";

/** Template names. */
export const TEMPLATE_NAMES = [
  "task-received",
  "payment-instructions",
  "counter-offer",
  "rejection",
  "completion",
  "payment-expired",
  "task-failed",
  "webhook-fallback",
  "refund-settled",
  "task-notice",
  "recourse",
  "export-ready",
  "export-failed",
] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

const FILES: Record<TemplateName, Record<Lang, URL>> = {
  "task-received": {
    fr: new URL("./templates/task-received.fr.txt", import.meta.url),
    en: new URL("./templates/task-received.en.txt", import.meta.url),
  },
  "payment-instructions": {
    fr: new URL("./templates/payment-instructions.fr.txt", import.meta.url),
    en: new URL("./templates/payment-instructions.en.txt", import.meta.url),
  },
  "counter-offer": {
    fr: new URL("./templates/counter-offer.fr.txt", import.meta.url),
    en: new URL("./templates/counter-offer.en.txt", import.meta.url),
  },
  rejection: {
    fr: new URL("./templates/rejection.fr.txt", import.meta.url),
    en: new URL("./templates/rejection.en.txt", import.meta.url),
  },
  completion: {
    fr: new URL("./templates/completion.fr.txt", import.meta.url),
    en: new URL("./templates/completion.en.txt", import.meta.url),
  },
  "payment-expired": {
    fr: new URL("./templates/payment-expired.fr.txt", import.meta.url),
    en: new URL("./templates/payment-expired.en.txt", import.meta.url),
  },
  "task-failed": {
    fr: new URL("./templates/task-failed.fr.txt", import.meta.url),
    en: new URL("./templates/task-failed.en.txt", import.meta.url),
  },
  "webhook-fallback": {
    fr: new URL("./templates/webhook-fallback.fr.txt", import.meta.url),
    en: new URL("./templates/webhook-fallback.en.txt", import.meta.url),
  },
  "refund-settled": {
    fr: new URL("./templates/refund-settled.fr.txt", import.meta.url),
    en: new URL("./templates/refund-settled.en.txt", import.meta.url),
  },
  "task-notice": {
    fr: new URL("./templates/task-notice.fr.txt", import.meta.url),
    en: new URL("./templates/task-notice.en.txt", import.meta.url),
  },
  recourse: {
    fr: new URL("./templates/recourse.fr.txt", import.meta.url),
    en: new URL("./templates/recourse.en.txt", import.meta.url),
  },
  "export-ready": {
    fr: new URL("./templates/export-ready.fr.txt", import.meta.url),
    en: new URL("./templates/export-ready.en.txt", import.meta.url),
  },
  "export-failed": {
    fr: new URL("./templates/export-failed.fr.txt", import.meta.url),
    en: new URL("./templates/export-failed.en.txt", import.meta.url),
  },
};

/** Values of a template: strings, numbers and booleans (sections test truthiness). */
export type TemplateValues = Record<string, string | number | boolean | null | undefined>;

const cache = new Map<string, { subject: string; body: string }>();

function load(name: TemplateName, lang: Lang): { subject: string; body: string } {
  const key = `${name}.${lang}`;
  let parsed = cache.get(key);
  if (!parsed) {
    const text = readFileSync(FILES[name][lang], "utf8").replace(/\r\n/g, "\n");
    const match = /^Subject: (.*)\n\n([\s\S]*)$/.exec(text);
    if (!match)
      throw new Error(`Template ${key}: the first line must be "Subject: …" followed by a blank line`);
    parsed = { subject: match[1]!, body: match[2]! };
    cache.set(key, parsed);
  }
  return parsed;
}

/** How a body is written: plain text (values as they are) or HTML (values HTML-escaped). */
export type BodyKind = "text" | "html";

/** Plain text inserts a value as its string: no entity ever appears in a text message. */
const asText = (value: unknown): string => String(value);

/**
 * Renders Mustache `source` with `values`, escaping by `kind`.
 * @param source template text (Mustache syntax, default `{{ }}` tags)
 * @param values the view; looked up as own properties only (no `constructor` or other inherited name)
 * @param kind `text`: values inserted unchanged; `html`: `{{name}}` HTML-escaped by Mustache
 * @returns the rendered text, whitespace untouched
 * @throws Error when `source` is not valid Mustache (an unclosed or mismatched section)
 */
export function renderMustache(source: string, values: TemplateValues, kind: BodyKind): string {
  const view = Object.assign(Object.create(null) as TemplateValues, values);
  return Mustache.render(source, view, undefined, kind === "text" ? { escape: asText } : {});
}

/**
 * Renders template `name` in `lang` with `values` (Mustache, plain text: no escaping).
 * @returns the subject (one line, runs of white space made one space) and the plain-text body
 *   (at most one blank line in a row, one final line break).
 * @throws Error when the file is missing or malformed (a deployment defect).
 */
export function renderTemplate(
  name: TemplateName,
  lang: Lang,
  values: TemplateValues,
): { subject: string; text: string } {
  const t = load(name, lang);
  return {
    subject: renderMustache(t.subject, values, "text").replace(/\s+/g, " ").trim(),
    text: `${renderMustache(t.body, values, "text")
      .replace(/\n{3,}/g, "\n\n")
      .trimEnd()}\n`,
  };
}

/**
 * A literal prefilter for the policy screen's regular expressions. The rules file expands to
 * several hundred expressions (about 265 KB of source once the vocabularies are substituted);
 * V8 compiles an expression the first time it runs and again when it tiers up, which made the
 * first screens of a process take seconds. The screen therefore runs an expression only when the
 * text contains one of the words any match of it must start with (lib/policy/screen.ts), so
 * most expressions are never compiled for a given text.
 *
 * The analysis is deliberately small and conservative: it reads the leading element of each
 * top-level alternative (a literal run, or a group whose own alternatives it reads the same way)
 * and gives up (returns undefined: always run the expression) on anything else — a leading
 * character class, dot, lookaround, or an optional first element.
 */

/** Splits `source` at the `|` that are outside groups and character classes. */
function splitTopLevel(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

/** Index of the `)` closing the group that opens at `open`, or -1. */
function closingParen(source: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

const LITERAL = /[a-z0-9' -]/;

/** The literal words one of which starts any match of `branch`, or undefined if unknown. */
function leadingLiterals(branch: string): string[] | undefined {
  let s = branch;
  while (s.startsWith("\\b")) s = s.slice(2);
  if (s.startsWith("(")) {
    const close = closingParen(s, 0);
    if (close < 0) return undefined;
    let inner = s.slice(1, close);
    if (inner.startsWith("?:")) inner = inner.slice(2);
    else if (inner.startsWith("?")) return undefined; // lookaround or named group
    const after = s.slice(close + 1);
    if (after.startsWith("?") || after.startsWith("*") || after.startsWith("{0")) return undefined;
    const out: string[] = [];
    for (const alternative of splitTopLevel(inner)) {
      const words = leadingLiterals(alternative);
      if (!words) return undefined;
      out.push(...words);
    }
    return out;
  }
  let run = "";
  let i = 0;
  while (i < s.length && LITERAL.test(s[i]!)) run += s[i++];
  const next = s[i];
  // a quantifier makes the last character optional ("guns?" needs only "gun")
  if (next === "?" || next === "*" || next === "{") run = run.slice(0, -1);
  return run.trim().length >= 2 ? [run] : undefined;
}

/**
 * Words of which a match of the expression `source` must start with one (so a text containing
 * none of them cannot match), or undefined when the expression is not simple enough to tell.
 * @param source a regular expression source as used by the policy rules (vocabularies expanded)
 * @returns the distinct words (lower case, as in the normalised text), or undefined
 */
export function requiredPrefixes(source: string): string[] | undefined {
  const out: string[] = [];
  for (const branch of splitTopLevel(source)) {
    const words = leadingLiterals(branch);
    if (!words) return undefined;
    out.push(...words);
  }
  return [...new Set(out)];
}

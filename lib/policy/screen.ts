/**
 * The policy screen of task submissions: a rules-based check that every submission (HTTP and
 * MCP, sandbox included) passes before an operator sees it. It answers one of three outcomes:
 *
 * - `allow`: nothing matched; the task goes to review as usual;
 * - `review`: a `review` rule matched; the task is stored and reaches the operator with the
 *   reason codes and the matched rules highlighted (an operator may approve it anyway, which is
 *   recorded as an override);
 * - `refuse`: a `refuse` rule matched; the submission is refused (422 POLICY_VIOLATION with the
 *   reason codes) and nothing of it is stored beyond a counter (lib/policy/counters.ts).
 *
 * The rules are data (`rules.json`, versioned by its `version` member): regular expressions over
 * the normalised text (lower case, accents and case folded, punctuation other than apostrophes
 * turned into spaces), in French and English, each with a reason code and allow-list exceptions
 * (`unless`: a match overlapping an exception does not count, so "inspect the security camera
 * installation" passes while "install a hidden camera" does not). The classes follow the abuse
 * classes reported for agent-to-human marketplaces: surveillance of a person, harassment,
 * trespass, impersonation and fraud, illegal goods, dangerous acts, privacy intrusion, plus
 * weapons and in-person medical or legal advice. An expression runs only when the text contains
 * one of the words its matches must start with (lib/policy/triggers.ts), so a text compiles few of
 * the several hundred expressions. Measured by `npm run bench -- policy`; rules and measurement
 * in docs/policy.md.
 */
import rulesFile from "./rules.json" with { type: "json" };
import { requiredPrefixes } from "./triggers.js";

/** Outcome of the screen. */
export type PolicyOutcome = "allow" | "review" | "refuse";

/** One rule of `rules.json`. */
interface RuleData {
  id: string;
  code: string;
  outcome: "review" | "refuse";
  patterns: string[];
  unless?: string[];
}

/** An expression with the words one of which a text must contain for it to match (see triggers.ts). */
interface Pattern {
  re: RegExp;
  /** Undefined: always run the expression. */
  needs: string[] | undefined;
}

/** A compiled rule. */
interface Rule {
  id: string;
  code: string;
  outcome: "review" | "refuse";
  patterns: Pattern[];
  unless: Pattern[];
}

/** One matched rule, as shown to the operator and stored with the task. */
export interface PolicyMatch {
  rule_id: string;
  reason_code: string;
  outcome: "review" | "refuse";
  /** The normalised words that matched (at most 80 characters). */
  matched_text: string;
}

/** Result of {@link screenSubmission}. */
export interface PolicyScreen {
  /** Version of the rules file that decided. */
  version: string;
  outcome: PolicyOutcome;
  /** Distinct reason codes of the matches, refusing rules first, in rule order. */
  reason_codes: string[];
  matches: PolicyMatch[];
}

/** Version of the rules in force (`rules.json` `version`). */
export const POLICY_VERSION: string = rulesFile.version;

function expand(pattern: string, vocabulary: Record<string, string>): string {
  return pattern.replace(/\{([A-Z_]+)\}/g, (whole, name: string) => vocabulary[name] ?? whole);
}

function compile(pattern: string): Pattern {
  const source = expand(pattern, rulesFile.vocabulary);
  return { re: new RegExp(source, "g"), needs: requiredPrefixes(source) };
}

const RULE_DATA = rulesFile.rules as RuleData[];

let compiled: Rule[] | undefined;

/**
 * The rules, compiled on the first screen rather than at import: some 600 expressions whose
 * analysis would otherwise weigh on the cold start of every function that only names the policy
 * (capabilities, /llms.txt, OpenAPI).
 */
function rules(): Rule[] {
  compiled ??= RULE_DATA.map((r) => ({
    id: r.id,
    code: r.code,
    outcome: r.outcome,
    patterns: r.patterns.map(compile),
    unless: (r.unless ?? []).map(compile),
  }));
  return compiled;
}

/** Every reason code the rules can give, in rule order, without repeats. */
export const POLICY_REASON_CODES: string[] = [...new Set(RULE_DATA.map((r) => r.code))];

/** The reason codes that refuse (some of their rules refuse), for /llms.txt and capabilities. */
export const REFUSING_REASON_CODES: string[] = [
  ...new Set(RULE_DATA.filter((r) => r.outcome === "refuse").map((r) => r.code)),
];

/**
 * The text the rules read: NFD with combining marks dropped (so "é" reads "e"), ligatures
 * spelled out, lower case, typographic apostrophes made ASCII, every character other than
 * a-z, 0-9 and the apostrophe turned into a space, spaces collapsed.
 */
export function normalizePolicyText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/œ/g, "oe")
    .replace(/æ/g, "ae")
    .replace(/ß/g, "ss")
    .replace(/[’‘`´]/g, "'")
    .replace(/[^a-z0-9']+/g, " ")
    .trim();
}

/** Where `pattern` matches in `text` (none without compiling it when a needed word is absent). */
function spans(pattern: Pattern, text: string): [number, number][] {
  if (pattern.needs && !pattern.needs.some((word) => text.includes(word))) return [];
  const out: [number, number][] = [];
  pattern.re.lastIndex = 0;
  for (const m of text.matchAll(pattern.re)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** The first match of `rule` in `text` that overlaps none of its exceptions, or undefined. */
function firstMatch(rule: Rule, text: string): string | undefined {
  let exceptions: [number, number][] | undefined;
  for (const pattern of rule.patterns) {
    for (const [start, end] of spans(pattern, text)) {
      exceptions ??= rule.unless.flatMap((u) => spans(u, text));
      if (exceptions.some(([s, e]) => s < end && start < e)) continue;
      return text.slice(start, end).slice(0, 80);
    }
  }
  return undefined;
}

/**
 * Screens the free-text fields of a submission (task description, special instructions…).
 * @param texts the fields to read; undefined and null are skipped (each field is read on its
 *   own, so a match never spans two fields)
 * @returns the outcome (`refuse` if a refusing rule matched, else `review` if any rule matched,
 *   else `allow`), the reason codes and the matches. Pure: reads no clock and no storage.
 */
export function screenSubmission(texts: readonly (string | null | undefined)[]): PolicyScreen {
  const normalized = texts.filter((t): t is string => typeof t === "string").map(normalizePolicyText);
  const matches: PolicyMatch[] = [];
  for (const rule of rules()) {
    for (const text of normalized) {
      const matched = firstMatch(rule, text);
      if (matched !== undefined) {
        matches.push({
          rule_id: rule.id,
          reason_code: rule.code,
          outcome: rule.outcome,
          matched_text: matched,
        });
        break;
      }
    }
  }
  const refusing = matches.filter((m) => m.outcome === "refuse");
  const outcome: PolicyOutcome = refusing.length ? "refuse" : matches.length ? "review" : "allow";
  const ordered = [...refusing, ...matches.filter((m) => m.outcome === "review")];
  return {
    version: POLICY_VERSION,
    outcome,
    reason_codes: [...new Set(ordered.map((m) => m.reason_code))],
    matches,
  };
}

/**
 * A literal prefilter for the policy screen's regular expressions. The rules file expands to
 * several hundred expressions (about 265 KB of source once the vocabularies are substituted);
 * V8 compiles an expression the first time it runs and again when it tiers up, which made the
 * first screens of a process take seconds. The screen therefore runs an expression only when the
 * text contains one of the words any match of it must start with (lib/policy/screen.ts), so
 * most expressions are never compiled for a given text.
 *
 * The expression is parsed with `regexp-tree` (a maintained ECMAScript regular-expression parser)
 * and the analysis of its tree is deliberately small and conservative: it reads the leading
 * element of each alternative (a run of literal characters, or a group — repeated at least once —
 * whose own alternatives it reads the same way) and gives up (returns undefined: always run the
 * expression) on anything else — a leading character class, dot, lookaround, backreference or an
 * optional first element.
 */

import { createRequire } from "node:module";
import type { parse } from "regexp-tree";

type RegexpTree = { parse: typeof parse };
type AstRegExp = ReturnType<typeof parse>;
/** A node of regexp-tree's expression tree. */
type Expression = NonNullable<AstRegExp["body"]>;
type Alternative = Extract<Expression, { type: "Alternative" }>;

const requireCjs = createRequire(import.meta.url);
let parser: RegexpTree | undefined;

/** regexp-tree, required on first use (the rules are compiled on the first screen). */
function parseRegExp(source: string): AstRegExp {
  parser ??= requireCjs("regexp-tree") as RegexpTree;
  return parser.parse(`/${source}/`);
}

/** Characters of the normalised text a literal run may hold (lib/policy/screen.ts). */
const LITERAL = /^[a-z0-9' -]$/;

/**
 * The words one of which starts any match of the sequence `expressions` (leading `\b` and `^`
 * skipped), or undefined when unknown.
 */
function leadingOfSequence(expressions: readonly Expression[]): string[] | undefined {
  let i = 0;
  while (i < expressions.length) {
    const e = expressions[i]!;
    if (e.type !== "Assertion" || (e.kind !== "\\b" && e.kind !== "^")) break;
    i++;
  }
  const first = expressions[i];
  if (!first) return undefined;
  if (first.type === "Group") return first.expression ? leading(first.expression) : undefined;
  if (first.type === "Repetition") {
    const q = first.quantifier;
    const atLeastOnce = q.kind === "+" || (q.kind === "Range" && q.from >= 1);
    return atLeastOnce ? leading(first.expression) : undefined;
  }
  let run = "";
  for (; i < expressions.length; i++) {
    const e = expressions[i]!;
    if (e.type !== "Char" || e.kind !== "simple" || !LITERAL.test(e.value)) break;
    run += e.value;
  }
  return run.trim().length >= 2 ? [run] : undefined;
}

/** The literal words one of which starts any match of `node`, or undefined if unknown. */
function leading(node: Expression): string[] | undefined {
  switch (node.type) {
    case "Disjunction": {
      if (!node.left || !node.right) return undefined;
      const left = leading(node.left);
      const right = left && leading(node.right);
      return right ? [...left!, ...right] : undefined;
    }
    case "Alternative":
      return leadingOfSequence((node as Alternative).expressions);
    default:
      return leadingOfSequence([node]);
  }
}

/**
 * Words of which a match of the expression `source` must start with one (so a text containing
 * none of them cannot match), or undefined when the expression is not simple enough to tell.
 * @param source a regular expression source as used by the policy rules (vocabularies expanded)
 * @returns the distinct words (lower case, as in the normalised text), or undefined
 * @throws SyntaxError when `source` is not a valid regular expression
 */
export function requiredPrefixes(source: string): string[] | undefined {
  const words = leading(parseRegExp(source).body as Expression);
  return words ? [...new Set(words)] : undefined;
}

/**
 * The literal prefilter of the policy screen (lib/policy/triggers.ts): what it reads from an
 * expression, and that it never hides a match of the real rules on the labelled set.
 */
import { describe, expect, it } from "vitest";
import type { LabelledItem } from "../../lib/policy/evaluate.js";
import rules from "../../lib/policy/rules.json" with { type: "json" };
import { normalizePolicyText } from "../../lib/policy/screen.js";
import { requiredPrefixes } from "../../lib/policy/triggers.js";
import labelled from "./labelled-set.json" with { type: "json" };

describe("requiredPrefixes", () => {
  it.each([
    ["\\b(follow|tail) (him|her)\\b", ["follow", "tail"]],
    ["\\bguns?\\b", ["gun"]],
    ["\\b(photo\\w*|film\\w*) of\\b|\\bwho visits\\b", ["photo", "film", "who visits"]],
    ["\\b((?:suivre|suivez)|filer) (mon|ma)\\b", ["suivre", "suivez", "filer"]],
    ["\\b(a |an )?roof\\b", undefined], // optional first element
    ["\\b.{0,20}roof", undefined], // starts with a dot
    ["\\b[a-z]+'s car", undefined], // starts with a character class
    ["\\b(?!up)follow", undefined], // starts with a lookahead
    ["\\b(x|roof)\\b", undefined], // a one-letter alternative tells nothing useful
  ])("%s → %j", (source, expected) => {
    expect(requiredPrefixes(source)).toEqual(expected);
  });
});

describe("the prefilter on the real rules", () => {
  const vocabulary = rules.vocabulary as Record<string, string>;
  const expand = (p: string) =>
    p.replace(/\{([A-Z_]+)\}/g, (whole, name: string) => vocabulary[name] ?? whole);
  const texts = (labelled.items as LabelledItem[]).map((i) => normalizePolicyText(i.text));
  const sources = rules.rules.flatMap((r) => [...r.patterns, ...(r.unless ?? [])]).map(expand);

  it("never skips an expression that matches a labelled description (every match contains a needed word)", () => {
    const hidden: string[] = [];
    for (const source of sources) {
      const needs = requiredPrefixes(source);
      if (!needs) continue;
      const re = new RegExp(source, "g");
      for (const text of texts) {
        if (re.test(text) && !needs.some((w) => text.includes(w)))
          hidden.push(`${source.slice(0, 60)} | ${text}`);
        re.lastIndex = 0;
      }
    }
    expect(hidden).toEqual([]);
  });

  it("filters most expressions (the point of it: fewer compiled on a cold start)", () => {
    const filtered = sources.filter((s) => requiredPrefixes(s) !== undefined).length;
    expect(filtered / sources.length).toBeGreaterThan(0.9);
  });
});

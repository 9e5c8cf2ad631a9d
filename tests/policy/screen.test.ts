/**
 * The policy screen (lib/policy) on its own: normalisation, outcomes, allow-list exceptions, and
 * the goals on the labelled set (the same numbers `npm run bench -- policy` prints).
 */
import { describe, expect, it } from "vitest";
import { evaluatePolicy, type LabelledItem } from "../../lib/policy/evaluate.js";
import {
  normalizePolicyText,
  POLICY_REASON_CODES,
  POLICY_VERSION,
  screenSubmission,
} from "../../lib/policy/screen.js";
import labelled from "./labelled-set.json" with { type: "json" };

const items = labelled.items as LabelledItem[];

describe("normalisation", () => {
  it("folds accents, case, ligatures, apostrophes and punctuation", () => {
    expect(normalizePolicyText("  Œuvre — ÉPIER l’Homme!! ")).toBe("oeuvre epier l'homme");
  });
});

describe("outcomes", () => {
  it.each([
    ["Photograph the storefront and the posted opening hours.", "allow", []],
    ["Inspect the security camera installation at our warehouse.", "allow", []],
    ["Inspecter l'installation des caméras de surveillance du dépanneur.", "allow", []],
    ["Pick up a glue gun from a seller in Laval.", "allow", []],
    ["Install a hidden camera in the nanny's room.", "refuse", ["PRIVACY_INTRUSION"]],
    ["SUIVRE mon EX après son travail", "refuse", ["PERSON_SURVEILLANCE"]],
    ["Pretend to be a city inspector so the tenant lets you in.", "refuse", ["IMPERSONATION"]],
    ["Climb onto the roof of the barn to photograph the damaged sheet metal.", "review", ["DANGEROUS_ACT"]],
    ["Pick up a hunting rifle I won at auction; I hold a PAL.", "review", ["WEAPONS"]],
  ])("%s → %s", (text, outcome, codes) => {
    const screen = screenSubmission([text]);
    expect(screen.outcome).toBe(outcome);
    expect(screen.reason_codes).toEqual(codes);
    expect(screen.version).toBe(POLICY_VERSION);
  });

  it("reads every field on its own and reports the refusing codes first", () => {
    const screen = screenSubmission([
      "Check the roof of the barn, climb onto the roof if needed.",
      null,
      "Also put a GPS tracker under my wife's car.",
    ]);
    expect(screen.outcome).toBe("refuse");
    expect(screen.reason_codes).toEqual(["PRIVACY_INTRUSION", "DANGEROUS_ACT"]);
    expect(screen.matches.map((m) => m.rule_id)).toEqual(["danger-review", "privacy-devices"]);
    // a match never spans two fields
    expect(screenSubmission(["Please follow", "my ex"]).outcome).toBe("allow");
  });

  it("lists the issue's reason codes", () => {
    for (const code of [
      "PERSON_SURVEILLANCE",
      "TRESPASS",
      "IMPERSONATION",
      "ILLEGAL_GOODS",
      "DANGEROUS_ACT",
      "PRIVACY_INTRUSION",
      "HARASSMENT",
      "WEAPONS",
      "MEDICAL_OR_LEGAL_ADVICE_IN_PERSON",
    ]) {
      expect(POLICY_REASON_CODES).toContain(code);
    }
  });
});

describe("labelled set", () => {
  it("holds at least 150 French and English descriptions, every abuse class, and a held-out part", () => {
    expect(items.length).toBeGreaterThanOrEqual(150);
    expect(items.filter((i) => i.lang === "fr").length).toBeGreaterThanOrEqual(50);
    expect(items.filter((i) => i.lang === "en").length).toBeGreaterThanOrEqual(50);
    const classes = new Set(items.filter((i) => i.label === "abusive").map((i) => i.class));
    for (const code of POLICY_REASON_CODES) expect(classes).toContain(code);
    expect(items.filter((i) => i.set === "held_out").length).toBeGreaterThanOrEqual(30);
  });

  it("meets the goals on the whole set: ≥ 95 % of abusive caught, ≤ 2 % of ordinary refused", () => {
    const e = evaluatePolicy(items);
    expect(e.abusiveCaught).toBeGreaterThanOrEqual(0.95);
    expect(e.ordinaryRefused).toBeLessThanOrEqual(0.02);
  });

  it("refuses no ordinary description of the held-out part (its abusive recall is reported, not asserted)", () => {
    const e = evaluatePolicy(items.filter((i) => i.set === "held_out"));
    expect(e.confusion.ordinary.refuse).toBe(0);
  });

  it("counts a confusion table that adds up", () => {
    const e = evaluatePolicy(items);
    const sum = Object.values(e.confusion).reduce((a, c) => a + c.allow + c.review + c.refuse, 0);
    expect(sum).toBe(items.length);
  });
});

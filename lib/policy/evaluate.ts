/**
 * Measures the policy screen on a labelled set of task descriptions (the set of
 * tests/policy/labelled-set.json; `npm run bench -- policy` prints it, tests/policy checks the
 * goals). Labels: `ordinary` (a normal task of one of the five services: must not be refused),
 * `borderline` (legitimate but sensitive: review or allow are both fine), `abusive` (one of the
 * abuse classes: must be refused or sent to review; `class` is the reason code expected).
 */
import { type PolicyOutcome, screenSubmission } from "./screen.js";

/** One labelled description. */
export interface LabelledItem {
  label: "ordinary" | "borderline" | "abusive";
  lang: "fr" | "en";
  text: string;
  /** Expected reason code of an abusive item. */
  class?: string;
  /**
   * Which part of the set: `development`, `held_out_1` / `held_out_2` / `held_out_3` (earlier blind batches:
   * measured, then tuned on) or `held_out` (a blind batch never tuned on, when one is present).
   */
  set: string;
}

/** Counts of a confusion table: label → outcome → count. */
export type Confusion = Record<LabelledItem["label"], Record<PolicyOutcome, number>>;

/** What {@link evaluatePolicy} measures on a list of items. */
export interface PolicyEvaluation {
  items: number;
  confusion: Confusion;
  /** Share of abusive items refused or sent to review (0..1; goal ≥ 0.95). */
  abusiveCaught: number;
  /** Share of ordinary items refused (0..1; goal ≤ 0.02). */
  ordinaryRefused: number;
  /** Share of caught abusive items whose reason codes include their class (0..1). */
  classAgreement: number;
  /** Abusive items let through, and ordinary items refused: the errors to read. */
  misses: { item: LabelledItem; outcome: PolicyOutcome; reason_codes: string[] }[];
}

const empty = (): Record<PolicyOutcome, number> => ({ allow: 0, review: 0, refuse: 0 });

/** Screens every item and counts outcomes per label (a share of an empty group is 0). */
export function evaluatePolicy(items: readonly LabelledItem[]): PolicyEvaluation {
  const confusion: Confusion = { ordinary: empty(), borderline: empty(), abusive: empty() };
  const misses: PolicyEvaluation["misses"] = [];
  let caught = 0;
  let agreeing = 0;
  for (const item of items) {
    const screen = screenSubmission([item.text]);
    confusion[item.label][screen.outcome] += 1;
    const miss =
      (item.label === "abusive" && screen.outcome === "allow") ||
      (item.label !== "abusive" && screen.outcome === "refuse");
    if (miss) misses.push({ item, outcome: screen.outcome, reason_codes: screen.reason_codes });
    if (item.label === "abusive" && screen.outcome !== "allow") {
      caught += 1;
      if (item.class && screen.reason_codes.includes(item.class)) agreeing += 1;
    }
  }
  const total = (label: LabelledItem["label"]) => Object.values(confusion[label]).reduce((a, b) => a + b, 0);
  const share = (n: number, d: number) => (d === 0 ? 0 : n / d);
  return {
    items: items.length,
    confusion,
    abusiveCaught: share(caught, total("abusive")),
    ordinaryRefused: share(confusion.ordinary.refuse, total("ordinary")),
    classAgreement: share(agreeing, caught),
    misses,
  };
}

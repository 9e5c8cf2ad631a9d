/**
 * `policy`: the policy screen (lib/policy) on the labelled set tests/policy/labelled-set.json:
 * the confusion table (label × outcome) for the whole set, the part the rules were written on
 * (every set but `held_out`) and the held-out part (set `held_out`, when present; otherwise the
 * report says there is none), against the goals (≥ 95 % of abusive descriptions refused or sent to
 * review, ≤ 2 % of ordinary ones refused). Not timed: it measures decisions, not speed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { evaluatePolicy, type LabelledItem, type PolicyEvaluation } from "../../lib/policy/evaluate.js";
import { POLICY_VERSION } from "../../lib/policy/screen.js";
import { num, table } from "../lib/report.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

const pct = (x: number) => `${num(x * 100, 1)} %`;

/** The set name of the blind batch (never used to write the rules); every other set was written on. */
const HELD_OUT = "held_out";

function confusionTable(e: PolicyEvaluation): string {
  const rows = (["ordinary", "borderline", "abusive"] as const).map((label) => {
    const c = e.confusion[label];
    return [label, num(c.allow), num(c.review), num(c.refuse), num(c.allow + c.review + c.refuse)];
  });
  return table(["label \\ outcome", "allow", "review", "refuse", "total"], rows);
}

function summary(name: string, e: PolicyEvaluation): string[] {
  const ok = e.abusiveCaught >= 0.95 && e.ordinaryRefused <= 0.02;
  return [
    name,
    num(e.items),
    pct(e.abusiveCaught),
    pct(e.ordinaryRefused),
    pct(e.classAgreement),
    ok ? "PASS" : "FAIL",
  ];
}

export const policyBenchmark: Benchmark = {
  name: "policy",
  title: "Policy screen: confusion table on the labelled set",
  description: "policy screen decisions on tests/policy/labelled-set.json (confusion table, goals)",
  async run(ctx: BenchContext): Promise<Section> {
    const file = path.join(ctx.root, "tests", "policy", "labelled-set.json");
    const items = (JSON.parse(readFileSync(file, "utf8")) as { items: LabelledItem[] }).items;
    const writtenOn = items.filter((i) => i.set !== HELD_OUT);
    const heldOut = items.filter((i) => i.set === HELD_OUT);
    const writtenSets = [...new Set(writtenOn.map((i) => i.set))].join(" + ");
    const parts: [string, LabelledItem[]][] = [
      ["whole set", items],
      [`written on (${writtenSets})`, writtenOn],
      ...(heldOut.length ? [["held out (never tuned on)", heldOut] as [string, LabelledItem[]]] : []),
    ];
    const evaluations = parts.map(([name, part]) => [name, evaluatePolicy(part)] as const);
    ctx.log(`rules ${POLICY_VERSION}, ${items.length} labelled descriptions`);
    const heldOutEvaluation = heldOut.length ? evaluatePolicy(heldOut) : undefined;
    const body = [
      `Rules version \`${POLICY_VERSION}\`; ${items.length} labelled descriptions ` +
        `(${items.filter((i) => i.lang === "fr").length} French, ${items.filter((i) => i.lang === "en").length} English). ` +
        "Goals: abusive refused or sent to review ≥ 95 %, ordinary refused ≤ 2 %.",
      "",
      table(
        ["part", "items", "abusive caught", "ordinary refused", "caught with the expected code", "goals"],
        evaluations.map(([name, e]) => summary(name, e)),
      ),
      "",
      ...evaluations.flatMap(([name, e]) => [`**${name}**`, "", confusionTable(e), ""]),
      ...(heldOutEvaluation
        ? [
            "Misses on the held-out part (abusive allowed, or legitimate refused):",
            "",
            ...(heldOutEvaluation.misses.length
              ? heldOutEvaluation.misses.map((m) => `- ${m.item.label} → ${m.outcome}: ${m.item.text}`)
              : ["- none"]),
          ]
        : [
            `No held-out part: no item has set \`${HELD_OUT}\` (every batch so far has been used to write the ` +
              "rules), so nothing measures how the rules generalise until a new blind batch is added.",
          ]),
    ].join("\n");
    return { name: "policy", title: this.title, command: "npm run bench -- policy", body };
  },
};

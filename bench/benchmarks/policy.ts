/**
 * `policy`: the policy screen (lib/policy) on the labelled set tests/policy/labelled-set.json:
 * the confusion table (label × outcome) for the whole set, the part the rules were written on
 * and the held-out part, against the goals (≥ 95 % of abusive descriptions refused or sent to
 * review, ≤ 2 % of ordinary ones refused). Not timed: it measures decisions, not speed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { evaluatePolicy, type LabelledItem, type PolicyEvaluation } from "../../lib/policy/evaluate.js";
import { POLICY_VERSION } from "../../lib/policy/screen.js";
import { num, table } from "../lib/report.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

const pct = (x: number) => `${num(x * 100, 1)} %`;

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
    const parts: [string, LabelledItem[]][] = [
      ["whole set", items],
      ["written on (development + held_out_1)", items.filter((i) => i.set !== "held_out")],
      ["held out (never tuned on)", items.filter((i) => i.set === "held_out")],
    ];
    const evaluations = parts.map(([name, part]) => [name, evaluatePolicy(part)] as const);
    ctx.log(`rules ${POLICY_VERSION}, ${items.length} labelled descriptions`);
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
      "Misses on the held-out part (abusive allowed, or legitimate refused):",
      "",
      ...(evaluations[2]![1].misses.length
        ? evaluations[2]![1].misses.map((m) => `- ${m.item.label} → ${m.outcome}: ${m.item.text}`)
        : ["- none"]),
    ].join("\n");
    return { name: "policy", title: this.title, command: "npm run bench -- policy", body };
  },
};

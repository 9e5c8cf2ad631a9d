/**
 * `npm run deps` (part of `npm test`): checks the dependency rules of .dependency-cruiser.cjs
 * (layers, no cycles between files or lib folders, public/ apart) over api/, lib/, public/ and
 * scripts/ of the current folder.
 *
 * Exit 0 when every broken rule is listed in .dependency-cruiser-known-violations.json (the
 * baseline of today's known violations); exit 1, listing each, when any other is found.
 * Known violations that no longer occur are named (not an error): `npm run deps:baseline`
 * then rewrites the baseline so it only shrinks.
 */
import { cruise, newViolations, readBaseline, type Violation, violationKey } from "./dependency-graph.js";

/** One line per violation: rule, then the import (or the cycle, folder by folder). */
function describe(v: Violation): string {
  const path = v.cycle?.length
    ? [v.from, ...v.cycle.map((step) => step.name)].join(" → ")
    : `${v.from} → ${v.to}`;
  return `  ${v.rule.name}: ${path}`;
}

function main(): number {
  const cwd = process.cwd();
  const result = cruise(cwd, { ignoreKnown: true });
  const baseline = readBaseline(cwd);
  const found = newViolations(result, baseline);
  const present = new Set(result.summary.violations.map(violationKey));
  const gone = baseline.filter((v) => !present.has(violationKey(v)));
  if (gone.length > 0) {
    console.log(
      `${gone.length} known violation(s) no longer occur: run \`npm run deps:baseline\` to drop them.`,
    );
  }
  if (found.length > 0) {
    console.error(
      `✖ ${found.length} new dependency violation(s) (rules and layers: .dependency-cruiser.cjs):`,
    );
    for (const v of found) console.error(describe(v));
    return 1;
  }
  console.log(
    `✔ no new dependency violations (${result.summary.totalCruised} modules cruised; ` +
      `${baseline.length - gone.length} known, listed in .dependency-cruiser-known-violations.json)`,
  );
  return 0;
}

process.exitCode = main();

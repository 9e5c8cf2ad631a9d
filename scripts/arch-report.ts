/**
 * `npm run arch`: the architecture measurements of docs/architecture.md, for the current folder.
 *
 * Prints, each with its offenders:
 *   1. pairs of lib/ folders that import each other directly (lib/a → lib/b and lib/b → lib/a);
 *   2. files in import cycles (strongly connected components of the file graph of api/, lib/,
 *      public/, scripts/; type-only imports count, as in the rules);
 *   3. files over 400 lines in lib/ and public/ (public/vendor, third-party, left out);
 *   4. pairs of places in lib/ sharing 6+ lines that the `duplicates` tool does not mark as
 *      boilerplate (skipped, saying so, when `duplicates` is not on PATH);
 * then the dependency-rule violations by rule (all of them, known or not).
 * `--brief` prints the numbers only. Exit 0 always: this measures, `npm run deps` enforces.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { type CruiseResult, cruise } from "./dependency-graph.js";

/** Files longer than this many lines are reported (the limit). */
const MAX_LINES = 400;
const MEASURED_EXTENSIONS = new Set([".ts", ".js", ".mjs", ".cjs", ".html", ".css"]);

/**
 * Subfolders that count as folders of their own, as in the dependency rules (which see every
 * folder apart): the task state layer under the task workflows, the account store (the
 * account lookups billing and auth build on) under the account services, and the operation
 * descriptors of lib/system and lib/mcp, which the registry (lib/openapi/operations.ts) collects
 * while lib/system and lib/mcp read the documents built from it.
 */
const OWN_FOLDERS = ["tasks/state", "accounts/store", "system/descriptors", "mcp/descriptors"];

/**
 * Lib folder of a path ("lib/tasks/x.ts" → "lib/tasks"; "lib/tasks/state/x.ts" →
 * "lib/tasks/state", see {@link OWN_FOLDERS}), or null outside lib folders.
 */
function libFolder(path: string): string | null {
  const own = OWN_FOLDERS.find((f) => path.startsWith(`lib/${f}/`));
  if (own) return `lib/${own}`;
  const match = /^lib\/([^/]+)\//.exec(path);
  return match ? `lib/${match[1]}` : null;
}

/** Our files' import graph: path → paths imported (third-party and built-ins left out). */
function fileGraph(result: CruiseResult): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const ours = (p: string) => /^(api|lib|public|scripts)\//.test(p);
  for (const m of result.modules) {
    if (!ours(m.source)) continue;
    const targets = graph.get(m.source) ?? new Set<string>();
    for (const d of m.dependencies) if (ours(d.resolved)) targets.add(d.resolved);
    graph.set(m.source, targets);
  }
  return graph;
}

/** Sorted "lib/a ⇄ lib/b" for each pair of lib folders importing each other directly. */
export function mutualFolderPairs(graph: Map<string, Set<string>>): string[] {
  const edges = new Set<string>();
  for (const [from, targets] of graph) {
    const a = libFolder(from);
    for (const to of targets) {
      const b = libFolder(to);
      if (a && b && a !== b) edges.add(`${a} ${b}`);
    }
  }
  const pairs: string[] = [];
  for (const edge of edges) {
    const [a, b] = edge.split(" ") as [string, string];
    if (a < b && edges.has(`${b} ${a}`)) pairs.push(`${a} ⇄ ${b}`);
  }
  return pairs.sort();
}

/**
 * The import cycles of `graph` as groups of files (Tarjan's strongly connected components of
 * two or more files, or one file importing itself), largest first.
 */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || graph.get(v)?.has(v)) groups.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups.sort((a, b) => b.length - a.length);
}

/** "path (N lines)" for each measured file of `folders` over MAX_LINES lines, longest first. */
function longFiles(cwd: string, folders: string[], skip: RegExp): string[] {
  const found: [string, number][] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(cwd, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (skip.test(path)) continue;
      if (entry.isDirectory()) walk(path);
      else if (MEASURED_EXTENSIONS.has(extname(entry.name))) {
        const lines = readFileSync(join(cwd, path), "utf8").split("\n").length;
        if (lines > MAX_LINES) found.push([path, lines]);
      }
    }
  };
  for (const folder of folders) walk(folder);
  return found.sort((a, b) => b[1] - a[1]).map(([path, lines]) => `${path} (${lines} lines)`);
}

/** The rows of `duplicates` over lib/ not marked boilerplate, or null when the tool is absent. */
function duplicatePairs(cwd: string): string[] | null {
  let out: string;
  try {
    out = execFileSync("duplicates", ["--repo", "lib", "--most", "200", "--seconds", "60"], {
      cwd,
      encoding: "utf8",
    });
  } catch {
    return null;
  }
  return out
    .split("\n")
    .filter((line) => /^D\d+ /.test(line) && !/\bboilerplate\b/.test(line))
    .map((line) => line.replace(/^D\d+ /, "").replace(/(^|~ )(?=\S+:\d)/g, "$1lib/"));
}

function main(): void {
  const brief = process.argv.includes("--brief");
  const cwd = process.cwd();
  const result = cruise(cwd, { ignoreKnown: false });
  const graph = fileGraph(result);
  const pairs = mutualFolderPairs(graph);
  const groups = cycles(graph);
  const long = longFiles(cwd, ["lib", "public"], /^public\/vendor$/);
  const duplicates = duplicatePairs(cwd);

  const section = (title: string, items: string[]): void => {
    console.log(`${title}: ${items.length}`);
    if (!brief) for (const item of items) console.log(`  ${item}`);
  };
  section("lib folder pairs importing each other", pairs);
  const filesInCycles = groups.reduce((n, g) => n + g.length, 0);
  console.log(`files in import cycles: ${filesInCycles} (in ${groups.length} cycle(s))`);
  if (!brief) for (const g of groups) console.log(`  ${g.join(", ")}`);
  section(`files over ${MAX_LINES} lines in lib/ and public/`, long);
  if (duplicates) section("duplicates pairs in lib/ (not boilerplate)", duplicates);
  else console.log("duplicates pairs in lib/ (not boilerplate): skipped (`duplicates` not on PATH)");

  const byRule = new Map<string, number>();
  for (const v of result.summary.violations) byRule.set(v.rule.name, (byRule.get(v.rule.name) ?? 0) + 1);
  console.log(`dependency-rule violations (known or not): ${result.summary.violations.length}`);
  for (const [rule, n] of [...byRule].sort()) console.log(`  ${rule}: ${n}`);
}

// Run when executed (`npm run arch`), not when imported (tests import the measures).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

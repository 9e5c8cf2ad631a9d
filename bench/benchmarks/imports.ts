/**
 * `imports`: cold-start cost of each `api/` module, i.e. the time to import it (and
 * everything it pulls in) in a fresh Node process, against the import of an empty module.
 */
import { execFile } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { num, table } from "../lib/report.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

const execFileAsync = promisify(execFile);

/** The module whose import time is the baseline (tsx loader, dynamic-import machinery). */
export const BASELINE_MODULE = fileURLToPath(new URL("../fixtures/empty.ts", import.meta.url));

/** Every `.ts` module under `dir`, recursively (declaration files excluded), sorted. */
export function listModules(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listModules(full));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/**
 * Milliseconds to `await import(file)` in a fresh `node --import tsx` process, timed
 * inside the child from just before the import until it resolves.
 */
export async function timeImport(file: string, cwd: string): Promise<number> {
  const script =
    "const t = performance.now();" +
    `await import(${JSON.stringify(pathToFileURL(file).href)});` +
    "console.log(performance.now() - t);";
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd, env: { ...process.env, DATA_DIR: "memory://" }, timeout: 60_000 },
  );
  const ms = Number(stdout.trim().split("\n").pop());
  if (!Number.isFinite(ms)) throw new Error(`import of ${file}: unexpected output ${JSON.stringify(stdout)}`);
  return ms;
}

interface Timing {
  file: string;
  median: number;
  min: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One unmeasured import (fills tsx's transpile cache), then `runs` measured ones. */
async function measure(file: string, runs: number, cwd: string): Promise<Timing> {
  await timeImport(file, cwd);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timeImport(file, cwd));
  return { file, median: median(samples), min: Math.min(...samples) };
}

async function run(ctx: BenchContext): Promise<Section> {
  const runs = ctx.settings.importRuns;
  const apiDir = path.join(ctx.root, "api");
  ctx.log(`imports: baseline ${path.relative(ctx.root, BASELINE_MODULE)} x ${runs}`);
  const baseline = await measure(BASELINE_MODULE, runs, ctx.root);
  const timings: Timing[] = [];
  for (const file of listModules(apiDir)) {
    ctx.log(`imports: ${path.relative(ctx.root, file)} x ${runs}`);
    timings.push(await measure(file, runs, ctx.root));
  }
  timings.sort((a, b) => b.median - a.median);
  const rel = (file: string) => `\`${path.relative(ctx.root, file).replace(/\\/g, "/")}\``;
  const rows = timings.map((t) => [
    rel(t.file),
    num(t.median, 1),
    num(t.min, 1),
    num(Math.max(0, t.median - baseline.median), 1),
  ]);
  rows.push([`${rel(BASELINE_MODULE)} (baseline)`, num(baseline.median, 1), num(baseline.min, 1), "0.0"]);
  const heaviest = timings[0];
  const lightest = timings[timings.length - 1];
  const interpretation = [
    `The baseline (${num(baseline.median, 1)} ms) is what importing an empty module costs through ` +
      "`node --import tsx`: tsx's loader hooks and one transpile-cache lookup. Subtracting it leaves " +
      "the module's own cost: loading and evaluating its dependency graph (lib/ and packages such as zod, drizzle-orm, PGlite), " +
      "plus tsx's per-file transpile-cache reads, which a deployment compiled to JavaScript does not pay.",
    heaviest && lightest
      ? `Heaviest: ${rel(heaviest.file)} at ${num(heaviest.median - baseline.median, 0)} ms above baseline; ` +
        `lightest: ${rel(lightest.file)} at ${num(lightest.median - baseline.median, 0)} ms. Modules share ` +
        "most of their dependencies (lib/http, lib/config, zod), so the figures overlap and do not add up; " +
        "each is what a function instance serving only that route pays before its first request."
      : "No module found under api/.",
    "Each figure is the median of the measured runs after one unmeasured run that fills tsx's transpile " +
      "cache; the process start itself (Node boot) is outside the timed span.",
  ];
  const body = [
    table(["Module", "Import ms (median)", "Min ms", "Minus baseline ms"], rows),
    "",
    `Setup: one fresh \`node --import tsx --input-type=module -e "…await import(file)…"\` process per sample, ` +
      `${runs} samples per module, run one after another; time measured inside the child with \`performance.now()\`.`,
    "",
    interpretation.map((l) => `- ${l}`).join("\n"),
  ].join("\n");
  return {
    name: "imports",
    title: "Cold start: import time of each api/ module",
    command: `${settingsEnv(ctx.settings, ["importRuns"])} npm run bench -- imports`,
    body,
  };
}

/** The `imports` benchmark. */
export const importsBenchmark: Benchmark = {
  name: "imports",
  title: "Cold start: import time of each api/ module",
  description: "fresh-process import time of every api/*.ts module, minus an empty module's",
  run,
};

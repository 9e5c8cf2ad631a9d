/**
 * `cold-start`: what a fresh function instance pays before its first answer, on the real
 * deployment artefact. Builds the project with the Vercel CLI (`vercel build`, offline, with a
 * hand-written `.vercel/project.json` when none is there), then imports the handler of every
 * function under `.vercel/output/functions/` in fresh `node` processes (compiled JavaScript, no
 * tsx), with `DATABASE_URL` pointing at PostgreSQL as in production. Also times the import of the
 * main packages alone, to tell what each costs.
 *
 * Knobs: BENCH_IMPORT_RUNS (samples per function, default 5), BENCH_SKIP_BUILD=1 (reuse an
 * existing `.vercel/output`), VERCEL_CLI (path of the `vercel` binary; default
 * node_modules/.bin/vercel, the devDependency pinned at 58.10.0: later CLIs list optional
 * platform packages the registry here does not serve, which breaks `npm ci`), BENCH_PG_URL (the `DATABASE_URL` given to the children).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { num, table } from "../lib/report.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

const execFileAsync = promisify(execFile);

/** Goal (issue 14): every function's import median, and the public reads' (stricter). */
export const FUNCTION_GOAL_MS = 200;
export const PUBLIC_READ_GOAL_MS = 120;
/** The public read endpoints held to the stricter goal (function paths without `.func`). */
export const PUBLIC_READS = [
  "api/services",
  "api/estimate",
  "api/capabilities",
  "api/status",
  "api/openapi",
  "api/llms",
];

/** Packages timed alone (import from the project root), to attribute the functions' figures. */
const PACKAGES = [
  "zod",
  "drizzle-orm",
  "drizzle-orm/pg-core",
  "pg",
  "@neondatabase/serverless",
  "@electric-sql/pglite",
  "viem",
  "@modelcontextprotocol/sdk/server/mcp.js",
  "jose",
  "luxon",
  "undici",
  "resend",
  "@upstash/redis",
  "@vercel/functions",
];

/** What `vercel build` needs to run offline: a linked project with no framework preset. */
const PROJECT_JSON = { projectId: "prj_local", orgId: "team_local", settings: { framework: null } };

interface FunctionDir {
  /** e.g. `api/estimate` */
  name: string;
  /** Absolute path of the handler module inside the `.func` directory. */
  handler: string;
}

/** Every function of a Vercel build output, with its handler file (from `.vc-config.json`). */
export function listFunctions(functionsDir: string): FunctionDir[] {
  const out: FunctionDir[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (!statSync(full).isDirectory()) continue;
      if (name.endsWith(".func")) {
        const config = JSON.parse(readFileSync(path.join(full, ".vc-config.json"), "utf8")) as {
          handler: string;
        };
        out.push({
          name: path
            .relative(functionsDir, full)
            .replace(/\\/g, "/")
            .replace(/\.func$/, ""),
          handler: path.join(full, config.handler),
        });
      } else walk(full);
    }
  };
  walk(functionsDir);
  return out;
}

/**
 * Milliseconds to `await import(specifier)` in a fresh `node` process, timed inside the child:
 * wall time, and the child's CPU time over the same span (less disturbed by other work on the machine).
 */
async function timeImport(
  specifier: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ wall: number; cpu: number }> {
  const script =
    `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(specifier)}); ` +
    "const w = performance.now() - t; const u = process.cpuUsage(c); console.log(w, (u.user + u.system) / 1000);";
  const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], {
    cwd,
    env,
    timeout: 60_000,
  });
  const [wall, cpu] = (stdout.trim().split("\n").pop() ?? "").split(" ").map(Number);
  if (wall === undefined || cpu === undefined || !Number.isFinite(wall) || !Number.isFinite(cpu)) {
    throw new Error(`import of ${specifier}: unexpected output ${JSON.stringify(stdout)}`);
  }
  return { wall, cpu };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Timing {
  name: string;
  /** Wall-time median, min and max, ms. */
  median: number;
  min: number;
  max: number;
  /** CPU-time median, ms. */
  cpu: number;
}

/** One unmeasured import (file-system cache), then `runs` measured ones. */
async function measure(
  name: string,
  specifier: string,
  runs: number,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<Timing> {
  await timeImport(specifier, cwd, env);
  const samples: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timeImport(specifier, cwd, env));
  const walls = samples.map((s) => s.wall);
  return {
    name,
    median: median(walls),
    min: Math.min(...walls),
    max: Math.max(...walls),
    cpu: median(samples.map((s) => s.cpu)),
  };
}

/** Runs `vercel build` in `root`; dependencies are already installed, so the CLI is told to skip installing. */
async function vercelBuild(root: string, log: (line: string) => void): Promise<void> {
  const projectFile = path.join(root, ".vercel", "project.json");
  if (!existsSync(projectFile)) {
    mkdirSync(path.dirname(projectFile), { recursive: true });
    writeFileSync(projectFile, `${JSON.stringify(PROJECT_JSON)}\n`);
  }
  const cli = process.env.VERCEL_CLI ?? path.join(root, "node_modules", ".bin", "vercel");
  if (!existsSync(cli))
    throw new Error(
      `cold-start: no Vercel CLI at ${cli}: run \`npm ci\` (vercel is a devDependency) or set VERCEL_CLI`,
    );
  log(`cold-start: ${cli} build`);
  const started = performance.now();
  await execFileAsync(cli, ["build", "--yes"], {
    cwd: root,
    // VERCEL_INSTALL_COMPLETED: the builder would otherwise run `npm install` itself.
    env: { ...process.env, VERCEL_INSTALL_COMPLETED: "1", VERCEL_TELEMETRY_DISABLED: "1" },
    timeout: 900_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  log(`cold-start: built in ${num((performance.now() - started) / 1000, 0)} s`);
}

async function run(ctx: BenchContext): Promise<Section> {
  const runs = ctx.settings.importRuns;
  if (process.env.BENCH_SKIP_BUILD !== "1") await vercelBuild(ctx.root, ctx.log);
  const functionsDir = path.join(ctx.root, ".vercel", "output", "functions");
  if (!existsSync(functionsDir))
    throw new Error(`cold-start: no ${functionsDir}; run without BENCH_SKIP_BUILD`);
  const databaseUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "development" };
  delete env.DATA_DIR;

  const functions = listFunctions(functionsDir);
  const timings: Timing[] = [];
  for (const fn of functions) {
    ctx.log(`cold-start: ${fn.name} x ${runs}`);
    timings.push(await measure(fn.name, pathToFileURL(fn.handler).href, runs, path.dirname(fn.handler), env));
  }
  const packages: Timing[] = [];
  for (const pkg of PACKAGES) {
    ctx.log(`cold-start: package ${pkg} x ${runs}`);
    packages.push(await measure(pkg, pkg, runs, ctx.root, env));
  }
  const baseline = await measure("(empty)", "data:text/javascript,", runs, ctx.root, env);

  const over = timings.filter((t) => t.median > FUNCTION_GOAL_MS);
  const publicOver = timings.filter((t) => PUBLIC_READS.includes(t.name) && t.median > PUBLIC_READ_GOAL_MS);
  const byCost = [...timings].sort((a, b) => b.median - a.median);
  const rows = byCost.map((t) => [
    `\`${t.name}\`${PUBLIC_READS.includes(t.name) ? " (public read)" : ""}`,
    num(t.median, 1),
    num(t.min, 1),
    num(t.max, 1),
    num(t.cpu, 1),
    t.median <= (PUBLIC_READS.includes(t.name) ? PUBLIC_READ_GOAL_MS : FUNCTION_GOAL_MS) ? "yes" : "**no**",
  ]);
  const pkgRows = [...packages]
    .sort((a, b) => b.median - a.median)
    .map((t) => [`\`${t.name}\``, num(t.median, 1), num(t.min, 1), num(t.cpu, 1)]);
  pkgRows.push([
    "empty module (baseline)",
    num(baseline.median, 1),
    num(baseline.min, 1),
    num(baseline.cpu, 1),
  ]);
  const body = [
    table(["Function", "Import ms (median)", "Min ms", "Max ms", "CPU ms (median)", "Within goal"], rows),
    "",
    `**Goal: every function ≤ ${FUNCTION_GOAL_MS} ms — ${over.length ? `FAIL (${over.length} over: ${over.map((t) => `\`${t.name}\``).join(", ")})` : "PASS"}; ` +
      `public reads ≤ ${PUBLIC_READ_GOAL_MS} ms — ${publicOver.length ? `FAIL (${publicOver.map((t) => `\`${t.name}\``).join(", ")})` : "PASS"}.**`,
    "",
    "What the main packages cost alone (fresh process, imported from the project root):",
    "",
    table(["Package", "Import ms (median)", "Min ms", "CPU ms (median)"], pkgRows),
    "",
    `Setup: \`vercel build\` (Vercel CLI, offline, \`.vercel/project.json\` written by hand, install skipped with \`VERCEL_INSTALL_COMPLETED=1\`), then per function ${runs} fresh \`node --input-type=module -e "…await import(handler)…"\` processes after one unmeasured one, run one after another, \`DATABASE_URL\` set to PostgreSQL; time measured inside the child with \`performance.now()\` and \`process.cpuUsage()\` (Node's own start is outside the span; the goals are on wall time, CPU time is shown because other work on the machine inflates wall time). Package figures overlap (drizzle-orm/pg-core includes drizzle-orm) and do not add up.`,
  ].join("\n");
  return {
    name: "cold-start",
    title: "Cold start: import time of each built function (vercel build)",
    command: `${settingsEnv(ctx.settings, ["importRuns"])} npm run bench -- cold-start`,
    body,
  };
}

/** The `cold-start` benchmark. */
export const coldStartBenchmark: Benchmark = {
  name: "cold-start",
  title: "Cold start: import time of each built function (vercel build)",
  description: "vercel build, then fresh-process import time of every function in .vercel/output",
  run,
};

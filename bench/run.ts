/**
 * `npm run bench -- [name...|all] [--write]`: runs the named benchmarks (default all),
 * prints their results as Markdown on stdout (progress on stderr) and, with `--write`,
 * updates their sections of docs/performance.md. A benchmark, not a test: a missed goal
 * is reported as FAIL but the exit code stays 0; only a crash exits non-zero.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { authBenchmark } from "./benchmarks/auth.js";
import { checkerBenchmark } from "./benchmarks/checker.js";
import { coldStartBenchmark } from "./benchmarks/cold-start.js";
import { costBenchmark } from "./benchmarks/cost.js";
import { httpBenchmark } from "./benchmarks/http.js";
import { importsBenchmark } from "./benchmarks/imports.js";
import { policyBenchmark } from "./benchmarks/policy.js";
import { scaleBenchmark } from "./benchmarks/scale.js";
import { streamsBenchmark } from "./benchmarks/streams.js";
import { tasksBenchmark } from "./benchmarks/tasks.js";
import { webhookIsolationBenchmark } from "./benchmarks/webhook-isolation.js";
import { webhooksBenchmark } from "./benchmarks/webhooks.js";
import { x402Benchmark } from "./benchmarks/x402.js";
import { renderSection, writeSections } from "./lib/report.js";
import { readSettings } from "./lib/settings.js";
import type { Benchmark } from "./lib/types.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const docFile = path.join(root, "docs", "performance.md");

/** Every benchmark, in the order `all` runs them. Add new ones here. */
const benchmarks: Benchmark[] = [
  httpBenchmark,
  importsBenchmark,
  coldStartBenchmark,
  authBenchmark,
  checkerBenchmark,
  tasksBenchmark,
  costBenchmark,
  streamsBenchmark,
  webhooksBenchmark,
  webhookIsolationBenchmark,
  policyBenchmark,
  x402Benchmark,
  scaleBenchmark,
];

function usage(): string {
  return [
    "usage: npm run bench -- [name...|all] [--write]",
    "",
    ...benchmarks.map((b) => `  ${b.name.padEnd(10)} ${b.description}`),
    `  ${"all".padEnd(10)} every benchmark above (default)`,
    "",
    "  --write    update the benchmarks' sections of docs/performance.md",
    "env: BENCH_DURATION (s, 10), BENCH_CONNECTIONS (50), BENCH_WARMUP (s, 2), BENCH_WORKERS (1),",
    "     BENCH_ROUNDS (2, http), BENCH_HTTP_ARMS (http: e.g. honoZod,estimate), BENCH_SKIP_BUILD (cold-start), VERCEL_CLI,",
    "     BENCH_IMPORT_RUNS (5), BENCH_ITERATIONS (5000), BENCH_REQUESTS (20000),",
    "     BENCH_PG_URL (server for scratch databases, postgres://postgres@127.0.0.1:5432/postgres; skip),",
    "     BENCH_X402_RUNS (20, x402), BENCH_SCALE_TASKS (1000000), BENCH_SCALE_ACTIVITY (10000000),",
    "     BENCH_SCALE_RUNS (40, scale)",
  ].join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage());
    return;
  }
  const unknownFlags = args.filter((a) => a.startsWith("-") && a !== "--write");
  const names = args.filter((a) => !a.startsWith("-"));
  const unknownNames = names.filter((n) => n !== "all" && !benchmarks.some((b) => b.name === n));
  if (unknownFlags.length || unknownNames.length) {
    console.error(`unknown argument(s): ${[...unknownFlags, ...unknownNames].join(" ")}\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  const selected =
    names.length === 0 || names.includes("all")
      ? benchmarks
      : benchmarks.filter((b) => names.includes(b.name));
  const settings = readSettings();
  const log = (line: string) => console.error(`[bench] ${line}`);

  const rendered: { name: string; markdown: string }[] = [];
  for (const benchmark of selected) {
    log(`${benchmark.name}: ${benchmark.title}`);
    const section = await benchmark.run({ root, settings, log });
    const markdown = renderSection(section);
    rendered.push({ name: section.name, markdown });
    console.log(`${markdown}\n`);
  }
  if (args.includes("--write")) {
    writeSections(docFile, rendered);
    log(`wrote ${path.relative(root, docFile)}`);
  }
}

// Ends the process once the report is out: a benchmark's leftovers (a pool of a dropped scratch
// database, a keep-alive socket, the activity batcher's database) must not keep the runner alive.
main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  })
  .finally(() => process.exit());

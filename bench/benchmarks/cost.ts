/**
 * `cost`: server CPU per request on PostgreSQL, and latency at a load where queueing does not
 * dominate (issue 14, goal 3). The service runs in this process through the local host of
 * `npm start`; the load comes from autocannon in a child process (its CLI), so the client's work
 * is not counted. For each request kind, `process.cpuUsage()` of this process is read around a
 * fixed number of requests sent by 8 closed-loop clients; the same run gives p50/p99.
 *
 * Request kinds (each with an API key, scopes `task_create` and `audit_only`, so each pays the
 * key check, the per-key rate limit and an activity row): the status read
 * (`GET /api/submit-task?task_id=…`), the submission (`POST /api/submit-task`, which also kicks
 * the background outbox pass as in production), and the anonymous estimate.
 *
 * Knobs: BENCH_REQUESTS (per kind and round, default 20000; 3000 is enough for a quick look),
 * BENCH_ROUNDS (default 2, kinds alternated), BENCH_PG_URL (server for the scratch database).
 * The embedded database is measured too, with no goal of its own (BENCH_COST_PGLITE=0 skips it).
 */
import { createScratchDatabase } from "../../lib/db/scratch-database.js";
import { type LoadOptions, runLoadInChild } from "../lib/load.js";
import { num, table } from "../lib/report.js";
import { startService } from "../lib/service.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";
import { DEFAULT_PG_URL, TASK_BODY } from "./tasks.js";

/** Goals on PostgreSQL (issue 14): server CPU per request, µs, and p99 at 8 clients, ms. */
export const GOALS = {
  status: { cpuUs: 350, p99Ms: 10 },
  submit: { cpuUs: 900, p99Ms: 25 },
  estimate: { cpuUs: 120, p99Ms: undefined },
} as const;
/** Closed-loop clients of the latency goals. */
export const CLIENTS = 8;

type Kind = keyof typeof GOALS;

interface Sample {
  kind: Kind;
  cpuUsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** `amount` requests over `CLIENTS` connections from an autocannon child process; this process's CPU around them. */
async function measure(
  kind: Kind,
  url: string,
  amount: number,
  options: { method?: LoadOptions["method"]; headers: Record<string, string>; body?: string },
): Promise<Sample> {
  const before = process.cpuUsage();
  const result = await runLoadInChild({
    url,
    amount,
    durationSec: 0,
    connections: CLIENTS,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
  });
  const used = process.cpuUsage(before);
  return {
    kind,
    cpuUsPerRequest: (used.user + used.system) / Math.max(1, result.requests),
    p50Ms: result.latencyP50Ms,
    p99Ms: result.latencyP99Ms,
    requests: result.requests,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function measureBackend(
  ctx: BenchContext,
  databaseUrl: string | undefined,
  rounds: number,
): Promise<Map<Kind, Sample[]>> {
  const service = await startService({ root: ctx.root, databaseUrl });
  try {
    const { createApiKey } = await import("../../lib/keys/create-api-key.js");
    const key = await createApiKey({
      name: "bench cost",
      contact: "bench@example.com",
      scopes: ["task_create", "audit_only"],
      trusted: true,
    });
    const headers = { "x-api-key": key.api_key };
    const submitUrl = `${service.url}/api/submit-task`;
    const body = JSON.stringify(TASK_BODY);
    const created = await fetch(submitUrl, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
    });
    const { task_id: taskId } = (await created.json()) as { task_id: string };
    if (created.status !== 201 || !taskId) throw new Error(`cost: submission answered ${created.status}`);
    const kinds: { kind: Kind; url: string; options: Parameters<typeof measure>[3] }[] = [
      { kind: "status", url: `${submitUrl}?task_id=${taskId}`, options: { headers } },
      {
        kind: "submit",
        url: submitUrl,
        options: { method: "POST", headers: { ...headers, "content-type": "application/json" }, body },
      },
      {
        kind: "estimate",
        url: `${service.url}/api/estimate?hours=2&location=Laval`,
        options: { headers: {} },
      },
    ];
    const amount = ctx.settings.requests;
    for (const k of kinds) {
      ctx.log(`cost: warm-up ${k.kind}`);
      await measure(k.kind, k.url, Math.min(2000, amount), k.options);
    }
    const out = new Map<Kind, Sample[]>();
    for (let round = 0; round < rounds; round++) {
      for (const k of round % 2 === 0 ? kinds : [...kinds].reverse()) {
        ctx.log(`cost: round ${round + 1}/${rounds} ${k.kind} x ${amount}`);
        out.set(k.kind, [...(out.get(k.kind) ?? []), await measure(k.kind, k.url, amount, k.options)]);
      }
    }
    return out;
  } finally {
    await service.close();
  }
}

async function run(ctx: BenchContext): Promise<Section> {
  const rounds = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 2)));
  const pgAdmin = process.env.BENCH_PG_URL ?? DEFAULT_PG_URL;
  const results: { label: string; samples: Map<Kind, Sample[]>; goals: boolean }[] = [];
  if (pgAdmin !== "skip") {
    const scratch = await createScratchDatabase(pgAdmin, "ptes_bench");
    ctx.log(`cost: scratch database ${scratch.name}`);
    try {
      results.push({
        label: "PostgreSQL",
        samples: await measureBackend(ctx, scratch.url, rounds),
        goals: true,
      });
    } finally {
      await scratch.drop();
    }
  }
  if (process.env.BENCH_COST_PGLITE !== "0") {
    results.push({
      label: "PGlite (in-memory)",
      samples: await measureBackend(ctx, undefined, rounds),
      goals: false,
    });
  }
  const best = (samples: Sample[]) =>
    samples.reduce((a, b) => (b.cpuUsPerRequest < a.cpuUsPerRequest ? b : a));
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const r of results) {
    for (const [kind, samples] of r.samples) {
      const b = best(samples);
      const goal = GOALS[kind];
      rows.push([
        r.label,
        kind,
        samples.map((s) => num(s.cpuUsPerRequest, 0)).join(" / "),
        num(b.cpuUsPerRequest, 0),
        r.goals ? `≤ ${goal.cpuUs}` : "—",
        samples.map((s) => num(s.p99Ms, 1)).join(" / "),
        r.goals && goal.p99Ms !== undefined ? `≤ ${goal.p99Ms}` : "—",
        num(samples.reduce((a, s) => a + s.requests, 0)),
        num(samples.reduce((a, s) => a + s.non2xx + s.errors, 0)),
      ]);
      if (r.goals) {
        const minP99 = Math.min(...samples.map((s) => s.p99Ms));
        verdicts.push(
          `${kind} CPU ${b.cpuUsPerRequest <= goal.cpuUs ? "PASS" : "FAIL"} (${num(b.cpuUsPerRequest, 0)} µs)` +
            (goal.p99Ms !== undefined
              ? `, p99 ${minP99 <= goal.p99Ms ? "PASS" : "FAIL"} (${num(minP99, 1)} ms)`
              : ""),
        );
      }
    }
  }
  const body = [
    table(
      [
        "Database",
        "Request",
        "CPU µs/req (each round)",
        "CPU µs/req (best)",
        "Goal µs",
        `p99 ms at ${CLIENTS} clients (each round)`,
        "Goal p99 ms",
        "Requests",
        "Non-2xx + errors",
      ],
      rows,
    ),
    "",
    verdicts.length
      ? `**Goals on PostgreSQL: ${verdicts.join("; ")}.**`
      : "PostgreSQL skipped (`BENCH_PG_URL=skip`).",
    "",
    `Setup: per request kind and round, ${num(ctx.settings.requests)} requests from ${CLIENTS} closed-loop keep-alive ` +
      "clients (autocannon's CLI in a child process); CPU is `process.cpuUsage()` of the service process (all its " +
      "threads: the local host, handlers, node-postgres or PGlite, the activity-log writes and, for submissions, the " +
      "background outbox pass), divided by the requests answered. PostgreSQL's own CPU is not in it. Kinds are " +
      `alternated over ${rounds} round(s) after a warm-up; the best round's CPU is the verdict (others' load on the ` +
      "machine only adds). The status read and the submission carry an API key; the estimate is anonymous. " +
      "PostgreSQL: a scratch database on `BENCH_PG_URL`'s server, created, migrated and dropped by the run.",
  ].join("\n");
  return {
    name: "cost",
    title: "Per-request server CPU and latency at 8 clients (PostgreSQL and PGlite)",
    command: `${settingsEnv(ctx.settings, ["requests"])} BENCH_ROUNDS=${rounds} npm run bench -- cost`,
    body,
  };
}

/** The `cost` benchmark. */
export const costBenchmark: Benchmark = {
  name: "cost",
  title: "Per-request server CPU and latency at 8 clients (PostgreSQL and PGlite)",
  description: "server CPU per status read, submission and estimate; p99 at 8 clients",
  run,
};

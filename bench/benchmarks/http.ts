/**
 * `http`: throughput and latency of public GET endpoints served by the in-process local
 * host (in-memory PGlite), against a bare `node:http` server answering a fixed JSON body.
 */
import { startBareServer } from "../lib/bare-server.js";
import { type LoadResult, runLoad } from "../lib/load.js";
import { num, table } from "../lib/report.js";
import { BENCH_RATE_LIMIT_PER_MIN, startService } from "../lib/service.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

/** Goal: the estimate endpoint keeps at least this share of the bare server's throughput. */
export const ESTIMATE_GOAL_RATIO = 0.5;

interface Target {
  label: string;
  url: string;
}

interface Measured extends Target {
  status: number;
  result: LoadResult;
}

async function preflight(target: Target): Promise<number> {
  const res = await fetch(target.url);
  await res.arrayBuffer();
  return res.status;
}

function interpret(bare: Measured, estimate: Measured, services: Measured, ctx: BenchContext): string {
  const ratio = (m: Measured) => m.result.requestsPerSec / bare.result.requestsPerSec;
  const perRequestUs = (m: Measured) => 1e6 / m.result.requestsPerSec;
  const overheadUs = perRequestUs(estimate) - perRequestUs(bare);
  const spread =
    Math.abs(estimate.result.requestsPerSec - services.result.requestsPerSec) /
    Math.max(estimate.result.requestsPerSec, services.result.requestsPerSec);
  const lines = [
    "The bare server is the ceiling of this machine and load generator. The estimate endpoint keeps " +
      `${num(ratio(estimate) * 100, 0)}% of it, i.e. about ${num(overheadUs, 0)} µs more of the server's ` +
      "single thread per request.",
    spread < 0.15
      ? `\`/api/services\` runs at about the same rate (${num(ratio(services) * 100, 0)}% of bare), so the cost ` +
        "lies mostly in the path both share — the local host's Node→Web `Request`/`Response` conversion and " +
        "response writing, and the handler wrapper (request id, CORS, per-IP rate limit, zod query validation, JSON, " +
        "activity log) — rather than in the endpoints' own work (location lookup and pricing; catalogue listing). " +
        "Both are called without a key, so their only database work is the batched activity-log insert."
      : `\`/api/services\` runs at ${num(ratio(services) * 100, 0)}% of bare; the gap between the two endpoints ` +
        "is their own work (location lookup and pricing vs. catalogue listing), on top of the shared path " +
        "(local host conversion, handler wrapper with per-IP rate limit and activity log). Both are called without " +
        "a key, so their only database work is the batched activity-log insert.",
    `Load came from autocannon ${ctx.settings.workers > 0 ? `in ${ctx.settings.workers} worker thread(s) of the same process` : "on the server's own thread"} ` +
      "over keep-alive connections, so client and server share the machine's CPUs; expect run-to-run " +
      "variation and compare ratios taken in the same run. On Vercel each instance serves one request at a time: this " +
      "measures per-request CPU cost, not deployed capacity.",
  ];
  const failures = [bare, estimate, services].filter((m) => m.result.non2xx > 0 || m.result.errors > 0);
  if (failures.length) {
    lines.push(
      `Non-2xx responses or errors were seen on: ${failures.map((f) => f.label).join(", ")}; ` +
        "their rates are not comparable until that is fixed.",
    );
  }
  return lines.map((l) => `- ${l}`).join("\n");
}

async function run(ctx: BenchContext): Promise<Section> {
  const { settings } = ctx;
  const bareServer = await startBareServer();
  const service = await startService({ root: ctx.root }).catch(async (error: unknown) => {
    await bareServer.close();
    throw error;
  });
  ctx.log(`http: bare server ${bareServer.url}, service ${service.url} (database ${service.driver})`);
  const targets: Target[] = [
    { label: "bare `node:http` (fixed JSON)", url: `${bareServer.url}/` },
    {
      label: "`GET /api/estimate?hours=2&location=Laval`",
      url: `${service.url}/api/estimate?hours=2&location=Laval`,
    },
    { label: "`GET /api/services?contract=false`", url: `${service.url}/api/services?contract=false` },
  ];
  const measured: Measured[] = [];
  try {
    for (const target of targets) {
      const status = await preflight(target);
      if (settings.warmupSec > 0) {
        ctx.log(`http: warm-up ${settings.warmupSec}s ${target.url}`);
        await runLoad({
          ...target,
          durationSec: settings.warmupSec,
          connections: settings.connections,
          workers: settings.workers,
        });
      }
      ctx.log(`http: ${settings.durationSec}s x ${settings.connections} connections ${target.url}`);
      const result = await runLoad({
        url: target.url,
        durationSec: settings.durationSec,
        connections: settings.connections,
        workers: settings.workers,
      });
      measured.push({ ...target, status, result });
    }
  } finally {
    await bareServer.close();
    await service.close();
  }
  const [bare, estimate, services] = measured as [Measured, Measured, Measured];
  const ratio = (m: Measured) => m.result.requestsPerSec / bare.result.requestsPerSec;
  const rows = measured.map((m) => [
    m.label,
    String(m.status),
    num(m.result.requestsPerSec),
    num(m.result.latencyP50Ms, 1),
    num(m.result.latencyP99Ms, 1),
    num(m.result.non2xx),
    num(m.result.errors),
    num(ratio(m), 2),
  ]);
  const estimateRatio = ratio(estimate);
  const pass = estimateRatio >= ESTIMATE_GOAL_RATIO && estimate.result.non2xx === 0;
  const body = [
    table(
      ["Target", "First status", "Req/s (mean)", "p50 ms", "p99 ms", "Non-2xx", "Errors", "× bare"],
      rows,
    ),
    "",
    `**Goal: estimate ≥ ${ESTIMATE_GOAL_RATIO * 100}% of bare throughput — ${pass ? "PASS" : "FAIL"}** ` +
      `(${num(estimateRatio * 100, 1)}%${estimate.result.non2xx ? `, ${estimate.result.non2xx} non-2xx` : ""}).`,
    "",
    `Setup: ${settings.durationSec} s per target after ${settings.warmupSec} s of warm-up, ` +
      `${settings.connections} connections, service on in-memory PGlite (\`DATA_DIR=memory://\`), crons off, ` +
      `anonymous requests, rate limits raised to ${num(BENCH_RATE_LIMIT_PER_MIN)}/min (in-process limiter), ` +
      "server and load generator in one process.",
    "",
    interpret(bare, estimate, services, ctx),
  ].join("\n");
  return {
    name: "http",
    title: "HTTP: public GET endpoints vs. bare node:http",
    command: `${settingsEnv(settings, ["durationSec", "connections", "warmupSec", "workers"])} npm run bench -- http`,
    body,
  };
}

/** The `http` benchmark. */
export const httpBenchmark: Benchmark = {
  name: "http",
  title: "HTTP: public GET endpoints vs. bare node:http",
  description: "autocannon on /api/estimate and /api/services vs. a bare node:http server",
  run,
};

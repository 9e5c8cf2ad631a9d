/**
 * `http`: throughput and latency of public GET endpoints served by the in-process local
 * host (in-memory PGlite), against a bare `node:http` server answering a fixed JSON body and
 * Hono peers (fixed JSON; an estimate-like route with zod; the estimate's own recorded response
 * answered without work, the floor of sending it), alternated in one run.
 */
import { startBareServer } from "../lib/bare-server.js";
import { type LoadResult, runLoad } from "../lib/load.js";
import { type RecordedResponse, startHonoPeer } from "../lib/peers.js";
import { num, table } from "../lib/report.js";
import { BENCH_RATE_LIMIT_PER_MIN, startService } from "../lib/service.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

/** Goals (issue 14): the estimate endpoint keeps at least these shares of the Hono + zod route and of bare. */
export const ESTIMATE_GOAL_VS_PEER = 0.75;
export const ESTIMATE_GOAL_VS_BARE = 0.45;

interface Target {
  key: "bare" | "hono" | "honoZod" | "honoResponse" | "estimate" | "services";
  label: string;
  url: string;
}

interface Measured extends Target {
  /** For the recorded-response arm: how many headers and body bytes it sends. */
  headerCount?: number;
  bodyBytes?: number;
  status: number;
  rounds: LoadResult[];
  /** The round with the most requests per second. */
  best: LoadResult;
}

/** Headers Node's HTTP server writes itself (or that describe the connection), left out of a recorded response. */
const NOT_RECORDED = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

/** One answer of `url` (status, headers but {@link NOT_RECORDED}, body), for the peer's `/response` route. */
async function recordResponse(url: string): Promise<RecordedResponse> {
  const res = await fetch(url);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!NOT_RECORDED.has(name)) headers[name] = value;
  });
  return { status: res.status, headers, body: await res.text() };
}

async function preflight(target: Target): Promise<number> {
  const res = await fetch(target.url);
  await res.arrayBuffer();
  return res.status;
}

function interpret(by: Record<Target["key"], Measured>, ctx: BenchContext, rounds: number): string {
  const rate = (m: Measured) => m.best.requestsPerSec;
  const perRequestUs = (m: Measured) => 1e6 / rate(m);
  const lines = [
    `Hono on \`@hono/node-server\` keeps ${num((rate(by.hono) / rate(by.bare)) * 100, 0)}% of bare for a fixed body ` +
      `(the adapter's own cost: about ${num(perRequestUs(by.hono) - perRequestUs(by.bare), 0)} µs a request), and ` +
      `${num((rate(by.honoZod) / rate(by.bare)) * 100, 0)}% with the estimate-like route.`,
    `Hono answering the estimate's own response without doing anything (its ${by.honoResponse.headerCount ?? "?"} headers as one ` +
      `plain record, its ${num(by.honoResponse.bodyBytes ?? 0)}-byte body, a fresh request id) runs at ` +
      `${num(rate(by.honoResponse) / rate(by.honoZod), 2)}× the peer route: what sending the contract's response costs ` +
      `on this adapter before any work (the goal's ${ESTIMATE_GOAL_VS_PEER}× leaves ` +
      `${num(Math.max(0, 1e6 / (ESTIMATE_GOAL_VS_PEER * rate(by.honoZod)) - perRequestUs(by.honoResponse)), 1)} µs a request ` +
      "beyond it for validation, limits, CORS, the activity row and the estimate itself).",
    `The estimate endpoint takes about ${num(perRequestUs(by.estimate) - perRequestUs(by.honoZod), 0)} µs of the server's ` +
      "thread more per request than the peer route: the handler wrapper (request id, CORS, per-IP rate limit, zod " +
      "validation, activity-log row), the gazetteer lookup and the exchange rate; both run on the same adapter.",
    `\`/api/services\` runs at ${num((rate(by.services) / rate(by.bare)) * 100, 0)}% of bare (catalogue listing on the same path).`,
    `Load came from autocannon ${ctx.settings.workers > 0 ? `in ${ctx.settings.workers} worker thread(s) of the same process` : "on the server's own thread"} ` +
      `over keep-alive connections; the ${Object.keys(by).length} arms were alternated, ${rounds} round(s), and each arm's best ` +
      "round is shown, so slow phases of other work on the machine weigh less. Client and server share the machine's CPUs: " +
      "compare ratios taken in the same run. On Vercel each instance serves one request at a time: this measures per-request " +
      "CPU cost, not deployed capacity.",
  ];
  const failures = Object.values(by).filter((m) => m.rounds.some((r) => r.non2xx > 0 || r.errors > 0));
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
  const rounds = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 2)));
  const bareServer = await startBareServer();
  const peer = await startHonoPeer();
  const service = await startService({ root: ctx.root }).catch(async (error: unknown) => {
    await bareServer.close();
    await peer.close();
    throw error;
  });
  ctx.log(
    `http: bare ${bareServer.url}, hono ${peer.url}, service ${service.url} (database ${service.driver})`,
  );
  const recorded = await recordResponse(`${service.url}/api/estimate?hours=2&location=Laval`);
  peer.respondWith(recorded);
  const targets: Target[] = [
    { key: "bare", label: "bare `node:http` (fixed JSON)", url: `${bareServer.url}/` },
    { key: "hono", label: "Hono on `@hono/node-server` (fixed JSON)", url: `${peer.url}/` },
    {
      key: "honoZod",
      label: "Hono + zod, estimate-like route",
      url: `${peer.url}/estimate?hours=2&location=Laval`,
    },
    {
      key: "honoResponse",
      label: "Hono answering the estimate's response, no work",
      url: `${peer.url}/response`,
    },
    {
      key: "estimate",
      label: "`GET /api/estimate?hours=2&location=Laval`",
      url: `${service.url}/api/estimate?hours=2&location=Laval`,
    },
    {
      key: "services",
      label: "`GET /api/services?contract=false`",
      url: `${service.url}/api/services?contract=false`,
    },
  ];
  const results = new Map<Target["key"], LoadResult[]>();
  const statuses = new Map<Target["key"], number>();
  try {
    for (const target of targets) {
      statuses.set(target.key, await preflight(target));
      if (settings.warmupSec > 0) {
        ctx.log(`http: warm-up ${settings.warmupSec}s ${target.url}`);
        await runLoad({
          url: target.url,
          durationSec: settings.warmupSec,
          connections: settings.connections,
          workers: settings.workers,
        });
      }
    }
    for (let round = 0; round < rounds; round++) {
      // Alternate the order from round to round so no arm always follows the same one.
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        ctx.log(
          `http: round ${round + 1}/${rounds}, ${settings.durationSec}s x ${settings.connections} connections ${target.url}`,
        );
        const result = await runLoad({
          url: target.url,
          durationSec: settings.durationSec,
          connections: settings.connections,
          workers: settings.workers,
        });
        results.set(target.key, [...(results.get(target.key) ?? []), result]);
      }
    }
  } finally {
    await bareServer.close();
    await peer.close();
    await service.close();
  }
  const measured = targets.map((t): Measured => {
    const rs = results.get(t.key) ?? [];
    const best = rs.reduce((a, b) => (b.requestsPerSec > a.requestsPerSec ? b : a));
    const sent =
      t.key === "honoResponse"
        ? {
            headerCount: Object.keys(recorded.headers).length + 1,
            bodyBytes: Buffer.byteLength(recorded.body),
          }
        : {};
    return { ...t, ...sent, status: statuses.get(t.key) ?? 0, rounds: rs, best };
  });
  const by = Object.fromEntries(measured.map((m) => [m.key, m])) as Record<Target["key"], Measured>;
  const ratio = (m: Measured, to: Measured) => m.best.requestsPerSec / to.best.requestsPerSec;
  const rows = measured.map((m) => [
    m.label,
    String(m.status),
    num(m.best.requestsPerSec),
    m.rounds.map((r) => num(r.requestsPerSec)).join(" / "),
    num(m.best.latencyP50Ms, 1),
    num(m.best.latencyP99Ms, 1),
    num(m.rounds.reduce((a, r) => a + r.non2xx, 0)),
    num(m.rounds.reduce((a, r) => a + r.errors, 0)),
    num(ratio(m, by.bare), 2),
    num(ratio(m, by.honoZod), 2),
  ]);
  const vsPeer = ratio(by.estimate, by.honoZod);
  const vsBare = ratio(by.estimate, by.bare);
  const clean = by.estimate.rounds.every((r) => r.non2xx === 0);
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const body = [
    table(
      [
        "Target",
        "First status",
        "Req/s (best round)",
        "Req/s (each round)",
        "p50 ms",
        "p99 ms",
        "Non-2xx",
        "Errors",
        "× bare",
        "× Hono + zod",
      ],
      rows,
    ),
    "",
    `**Goal: estimate ≥ ${ESTIMATE_GOAL_VS_PEER}× the Hono + zod route — ${verdict(clean && vsPeer >= ESTIMATE_GOAL_VS_PEER)}** ` +
      `(${num(vsPeer, 2)}×); **estimate ≥ ${ESTIMATE_GOAL_VS_BARE}× bare — ${verdict(clean && vsBare >= ESTIMATE_GOAL_VS_BARE)}** (${num(vsBare, 2)}×).`,
    "",
    `Setup: ${settings.durationSec} s per arm and round after ${settings.warmupSec} s of warm-up per arm, ` +
      `${settings.connections} connections, ${rounds} rounds alternated; service on in-memory PGlite (\`DATA_DIR=memory://\`) ` +
      "through the local host of `npm start` (`@hono/node-server` listener), crons off, " +
      `anonymous requests, rate limits raised to ${num(BENCH_RATE_LIMIT_PER_MIN)}/min (in-process limiter); ` +
      "servers and load generator in one process.",
    "",
    interpret(by, ctx, rounds),
  ].join("\n");
  return {
    name: "http",
    title: "HTTP: public GET endpoints vs. bare node:http and Hono",
    command: `${settingsEnv(settings, ["durationSec", "connections", "warmupSec", "workers"])} BENCH_ROUNDS=${rounds} npm run bench -- http`,
    body,
  };
}

/** The `http` benchmark. */
export const httpBenchmark: Benchmark = {
  name: "http",
  title: "HTTP: public GET endpoints vs. bare node:http and Hono",
  description: "autocannon on /api/estimate and /api/services vs. bare node:http and Hono (+ zod) peers",
  run,
};

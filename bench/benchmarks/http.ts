/**
 * `http`: throughput and latency of public GET endpoints served by the in-process local
 * host, against a bare `node:http` server answering a fixed JSON body, Hono peers (fixed JSON; an
 * estimate-like route with zod; the estimate's own recorded response answered without work, the
 * floor of sending it) and the equal-work peer (issue 30 item 4: Hono + zod + `@upstash/ratelimit`
 * + one drizzle activity row per request + request id + CORS, on the same backends as ours),
 * alternated in one run. First on in-memory PGlite (every arm), then on a scratch PostgreSQL
 * database (the arms that touch the database or set the ratio: Hono + zod, the equal-work peer,
 * the estimate). Then, per database, server CPU per request of the estimate and the equal-work
 * peer, with the load generator in a child process.
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { onEachBackend } from "../lib/backends.js";
import { type RunningServer, startBareServer } from "../lib/bare-server.js";
import { type EqualWorkPeer, startEqualWorkPeer } from "../lib/equal-work-peer.js";
import { type LoadResult, runLoad, runLoadInChild } from "../lib/load.js";
import { type HonoPeer, type RecordedResponse, startHonoPeer } from "../lib/peers.js";
import { num, table } from "../lib/report.js";
import { BENCH_RATE_LIMIT_PER_MIN, type RunningService, startService } from "../lib/service.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";
import { CLIENTS } from "./cost.js";

/** Goals (issue 14): the estimate endpoint keeps at least these shares of the Hono + zod route and of bare. */
export const ESTIMATE_GOAL_VS_PEER = 0.75;
export const ESTIMATE_GOAL_VS_BARE = 0.45;
/**
 * Goals (issue 30 item 4), same run, alternated rounds, on each database: the estimate serves at
 * least this share of the equal-work peer's requests a second (batching its activity rows should
 * make it faster, not slower) and of the Hono + zod route without that work.
 */
export const ESTIMATE_GOAL_VS_EQUAL_WORK = 1.0;
export const ESTIMATE_GOAL_VS_HONO_ZOD = 0.5;
/** Goal (issue 30 item 4): on PostgreSQL, the estimate's server CPU per request at most this multiple of the peer's. */
export const ESTIMATE_CPU_GOAL_VS_EQUAL_WORK = 1.0;

type Key = "bare" | "hono" | "honoZod" | "honoResponse" | "equalWork" | "estimate" | "services";

interface Target {
  key: Key;
  label: string;
  url: string;
  /** Writes what the arm left to write (activity rows) before its rate is taken. */
  drain?: () => Promise<void>;
}

/** One load run, with the time its queued activity rows took to write after it. */
interface Round extends LoadResult {
  drainMs: number;
  /** Requests answered over the run's duration plus the drain, per second. */
  rate: number;
}

interface Measured extends Target {
  /** For the recorded-response arm: how many headers and body bytes it sends. */
  headerCount?: number;
  bodyBytes?: number;
  status: number;
  rounds: Round[];
  /** The round with the highest rate. */
  best: Round;
}

/** Server CPU of one target over a fixed number of requests. */
interface CpuSample {
  cpuUsPerRequest: number;
  /** CPU of the scratch database's PostgreSQL backends per request (PostgreSQL only). */
  dbCpuUsPerRequest?: number;
  p99Ms: number;
  requests: number;
  bad: number;
}

interface CpuMeasured {
  key: Key;
  label: string;
  samples: CpuSample[];
  best: CpuSample;
}

/** What one database gave. */
interface BackendResult {
  label: string;
  database: "pglite" | "postgres";
  measured: Measured[];
  by: Partial<Record<Key, Measured>>;
  cpu: CpuMeasured[];
  recorded?: RecordedResponse;
  peerRows: { written: number; failed: number };
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
  await target.drain?.();
  return res.status;
}

/** Clock ticks a second of /proc/…/stat (`getconf CLK_TCK`, 100 on Linux). */
const CLOCK_TICKS = 100;

/**
 * CPU time, µs, used so far by the PostgreSQL backends serving `database` on this machine (their
 * process titles name it), from /proc; 0 where /proc cannot be read.
 */
function backendCpuUs(database: string): number {
  let ticks = 0;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.startsWith("postgres: ") || !cmdline.includes(` ${database} `)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1e6) / CLOCK_TICKS;
}

function best<T>(items: T[], score: (t: T) => number, highest: boolean): T {
  return items.reduce((a, b) => ((highest ? score(b) > score(a) : score(b) < score(a)) ? b : a));
}

async function loadRound(ctx: BenchContext, target: Target, durationSec: number): Promise<Round> {
  const { settings } = ctx;
  const result = await runLoad({
    url: target.url,
    durationSec,
    connections: settings.connections,
    workers: settings.workers,
  });
  const started = performance.now();
  await target.drain?.();
  const drainMs = performance.now() - started;
  return { ...result, drainMs, rate: result.requests / (result.durationSec + drainMs / 1000) };
}

/** The arms' throughput, alternated over `rounds` after a warm-up each. */
async function throughput(
  ctx: BenchContext,
  label: string,
  targets: Target[],
  rounds: number,
): Promise<Measured[]> {
  const { settings } = ctx;
  const results = new Map<Key, Round[]>();
  const statuses = new Map<Key, number>();
  for (const target of targets) {
    statuses.set(target.key, await preflight(target));
    if (settings.warmupSec > 0) {
      ctx.log(`http [${label}]: warm-up ${settings.warmupSec}s ${target.url}`);
      await loadRound(ctx, target, settings.warmupSec);
    }
  }
  for (let round = 0; round < rounds; round++) {
    // Alternate the order from round to round so no arm always follows the same one.
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      ctx.log(
        `http [${label}]: round ${round + 1}/${rounds}, ${settings.durationSec}s x ${settings.connections} connections ${target.url}`,
      );
      const result = await loadRound(ctx, target, settings.durationSec);
      results.set(target.key, [...(results.get(target.key) ?? []), result]);
    }
  }
  return targets.map((t): Measured => {
    const rs = results.get(t.key) ?? [];
    return {
      ...t,
      status: statuses.get(t.key) ?? 0,
      rounds: rs,
      best: best(rs, (r) => r.rate, true),
    };
  });
}

/** Server CPU per request of `targets` (`settings.requests` each, `CLIENTS` clients in a child process), alternated. */
async function cpuPerRequest(
  ctx: BenchContext,
  label: string,
  targets: Target[],
  rounds: number,
  database: string | undefined,
): Promise<CpuMeasured[]> {
  const amount = ctx.settings.requests;
  const out = new Map<Key, CpuSample[]>();
  const one = async (target: Target): Promise<CpuSample> => {
    const dbBefore = database ? backendCpuUs(database) : 0;
    const before = process.cpuUsage();
    const result = await runLoadInChild({ url: target.url, amount, durationSec: 0, connections: CLIENTS });
    await target.drain?.();
    const used = process.cpuUsage(before);
    const requests = Math.max(1, result.requests);
    return {
      cpuUsPerRequest: (used.user + used.system) / requests,
      dbCpuUsPerRequest: database ? (backendCpuUs(database) - dbBefore) / requests : undefined,
      p99Ms: result.latencyP99Ms,
      requests: result.requests,
      bad: result.non2xx + result.errors,
    };
  };
  for (const target of targets) {
    ctx.log(`http [${label}]: CPU warm-up ${target.url}`);
    await one({ ...target });
  }
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      ctx.log(`http [${label}]: CPU round ${round + 1}/${rounds}, ${amount} requests ${target.url}`);
      out.set(target.key, [...(out.get(target.key) ?? []), await one(target)]);
    }
  }
  return targets.map((t) => {
    const samples = out.get(t.key) ?? [];
    return { key: t.key, label: t.label, samples, best: best(samples, (s) => s.cpuUsPerRequest, false) };
  });
}

const ESTIMATE_QUERY = "hours=2&location=Laval";

/** The arm keys of every target. */
const KEYS: readonly Key[] = ["bare", "hono", "honoZod", "honoResponse", "equalWork", "estimate", "services"];

/**
 * The arms `BENCH_HTTP_ARMS` names (comma-separated keys, e.g. `honoZod,estimate`), or undefined
 * for every arm: a quicker run while working on one ratio (the report then lacks the other arms).
 * @throws Error naming an unknown key
 */
function armsFilter(): Set<Key> | undefined {
  const raw = process.env.BENCH_HTTP_ARMS?.trim();
  if (!raw) return undefined;
  const keys = raw.split(",").map((k) => k.trim());
  const unknown = keys.filter((k) => !KEYS.includes(k as Key));
  if (unknown.length)
    throw new Error(`BENCH_HTTP_ARMS: unknown arm(s) ${unknown.join(", ")}; known: ${KEYS.join(", ")}`);
  return new Set(keys as Key[]);
}

async function measureBackend(
  ctx: BenchContext,
  label: string,
  databaseUrl: string | undefined,
  fixed: { bare: RunningServer; peer: HonoPeer },
  rounds: number,
): Promise<BackendResult> {
  const service: RunningService = await startService({ root: ctx.root, databaseUrl });
  let equal: EqualWorkPeer | undefined;
  try {
    equal = await startEqualWorkPeer(
      databaseUrl
        ? { kind: "pg", url: databaseUrl, poolMax: service.poolMax }
        : { kind: "pglite", client: service.client },
      BENCH_RATE_LIMIT_PER_MIN,
    );
    ctx.log(
      `http [${label}]: bare ${fixed.bare.url}, hono ${fixed.peer.url}, equal-work peer ${equal.url}, ` +
        `service ${service.url} (database ${service.driver})`,
    );
    const peer = equal;
    const embedded = !databaseUrl;
    let recorded: RecordedResponse | undefined;
    if (embedded) {
      recorded = await recordResponse(`${service.url}/api/estimate?${ESTIMATE_QUERY}`);
      await service.flush();
      fixed.peer.respondWith(recorded);
    }
    const all: (Target & { embeddedOnly?: boolean })[] = [
      { key: "bare", label: "bare `node:http` (fixed JSON)", url: `${fixed.bare.url}/`, embeddedOnly: true },
      {
        key: "hono",
        label: "Hono on `@hono/node-server` (fixed JSON)",
        url: `${fixed.peer.url}/`,
        embeddedOnly: true,
      },
      {
        key: "honoZod",
        label: "Hono + zod, estimate-like route",
        url: `${fixed.peer.url}/estimate?${ESTIMATE_QUERY}`,
      },
      {
        key: "honoResponse",
        label: "Hono answering the estimate's response, no work",
        url: `${fixed.peer.url}/response`,
        embeddedOnly: true,
      },
      {
        key: "equalWork",
        label: "Equal-work peer: Hono + zod + `@upstash/ratelimit` + drizzle row + request id + CORS",
        url: `${peer.url}/estimate?${ESTIMATE_QUERY}`,
        drain: () => peer.drain(),
      },
      {
        key: "estimate",
        label: `\`GET /api/estimate?${ESTIMATE_QUERY}\``,
        url: `${service.url}/api/estimate?${ESTIMATE_QUERY}`,
        drain: () => service.flush(),
      },
      {
        key: "services",
        label: "`GET /api/services?contract=false`",
        url: `${service.url}/api/services?contract=false`,
        drain: () => service.flush(),
        embeddedOnly: true,
      },
    ];
    const only = armsFilter();
    const targets = all.filter((t) => (embedded || !t.embeddedOnly) && (!only || only.has(t.key)));
    const measured = (await throughput(ctx, label, targets, rounds)).map((m) =>
      m.key === "honoResponse" && recorded
        ? {
            ...m,
            headerCount: Object.keys(recorded.headers).length + 1,
            bodyBytes: Buffer.byteLength(recorded.body),
          }
        : m,
    );
    const cpuTargets = targets.filter((t) => t.key === "equalWork" || t.key === "estimate");
    const database = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : undefined;
    const cpu = await cpuPerRequest(ctx, label, cpuTargets, rounds, database);
    return {
      label,
      database: embedded ? "pglite" : "postgres",
      measured,
      by: Object.fromEntries(measured.map((m) => [m.key, m])),
      cpu,
      recorded,
      peerRows: { written: peer.written, failed: peer.failed },
    };
  } finally {
    await equal?.close();
    await service.close();
  }
}

function interpret(results: BackendResult[], ctx: BenchContext, rounds: number): string {
  const lines: string[] = [];
  const rate = (m: Measured) => m.best.rate;
  const perRequestUs = (m: Measured) => 1e6 / rate(m);
  const embedded = results.find((r) => r.database === "pglite");
  const by = embedded?.by;
  if (by?.bare && by.hono && by.honoZod && by.honoResponse && by.estimate && by.services) {
    lines.push(
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
    );
  }
  for (const r of results) {
    const e = r.by.equalWork;
    const z = r.by.honoZod;
    const est = r.by.estimate;
    if (!e || !z || !est) continue;
    const cpuOf = (k: Key) => r.cpu.find((c) => c.key === k)?.best;
    const ours = cpuOf("estimate");
    const theirs = cpuOf("equalWork");
    lines.push(
      `${r.label}: the equal-work peer runs at ${num(rate(e) / rate(z), 2)}× the Hono + zod route (its extra work, ` +
        `${num(perRequestUs(e) - perRequestUs(z), 1)} µs a request: limiter, request id, CORS, one row inserted), the ` +
        `estimate at ${num(rate(est) / rate(e), 2)}× the equal-work peer` +
        (ours && theirs
          ? `; server CPU ${num(ours.cpuUsPerRequest, 1)} µs a request for ours against ${num(theirs.cpuUsPerRequest, 1)} for the peer` +
            (ours.dbCpuUsPerRequest !== undefined && theirs.dbCpuUsPerRequest !== undefined
              ? `, and ${num(ours.dbCpuUsPerRequest, 1)} against ${num(theirs.dbCpuUsPerRequest, 1)} µs in PostgreSQL's backends ` +
                "(ours writes the rows in batches, the peer one INSERT each)"
              : "")
          : "") +
        `. Peer rows written: ${num(r.peerRows.written)}, failed: ${num(r.peerRows.failed)}.`,
    );
  }
  lines.push(
    `Load came from autocannon ${ctx.settings.workers > 0 ? `in ${ctx.settings.workers} worker thread(s) of the same process` : "on the server's own thread"} ` +
      `over keep-alive connections; the arms were alternated, ${rounds} round(s), and each arm's best ` +
      "round is shown, so slow phases of other work on the machine weigh less. Client and server share the machine's CPUs: " +
      "compare ratios taken in the same run. On Vercel each instance serves one request at a time: this measures per-request " +
      "CPU cost, not deployed capacity.",
  );
  const failures = results.flatMap((r) =>
    r.measured
      .filter((m) => m.rounds.some((x) => x.non2xx > 0 || x.errors > 0))
      .map((m) => `${m.label} (${r.label})`),
  );
  if (failures.length) {
    lines.push(
      `Non-2xx responses or errors were seen on: ${failures.join(", ")}; their rates are not comparable until that is fixed.`,
    );
  }
  return lines.map((l) => `- ${l}`).join("\n");
}

async function run(ctx: BenchContext): Promise<Section> {
  const { settings } = ctx;
  const rounds = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 2)));
  const loadBefore = loadavg()[0] ?? 0;
  const bare = await startBareServer();
  const peer = await startHonoPeer();
  let outcome: Awaited<ReturnType<typeof onEachBackend<BackendResult>>>;
  try {
    outcome = await onEachBackend(ctx, "http", {}, (label, databaseUrl) =>
      measureBackend(ctx, label, databaseUrl, { bare, peer }, rounds),
    );
  } finally {
    await bare.close();
    await peer.close();
  }
  const { results, pgSkipped } = outcome;
  const loadAfter = loadavg()[0] ?? 0;
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const clean = (m: Measured | undefined) => !!m && m.rounds.every((r) => r.non2xx === 0 && r.errors === 0);
  const ratio = (m: Measured | undefined, to: Measured | undefined) =>
    m && to ? m.best.rate / to.best.rate : Number.NaN;
  const ratioCell = (m: Measured, to: Measured | undefined) => (to ? num(ratio(m, to), 2) : "—");

  const tables: string[] = [];
  const verdicts: string[] = [];
  for (const r of results) {
    const { by } = r;
    const rows = r.measured.map((m) => [
      m.label,
      String(m.status),
      num(m.best.rate),
      m.rounds.map((x) => num(x.rate)).join(" / "),
      num(Math.max(...m.rounds.map((x) => x.drainMs)), 0),
      num(m.best.latencyP50Ms, 1),
      num(m.best.latencyP99Ms, 1),
      num(m.rounds.reduce((a, x) => a + x.non2xx, 0)),
      num(m.rounds.reduce((a, x) => a + x.errors, 0)),
      ratioCell(m, by.bare),
      ratioCell(m, by.honoZod),
      ratioCell(m, by.equalWork),
    ]);
    tables.push(
      `**${r.label}**`,
      "",
      table(
        [
          "Target",
          "First status",
          "Req/s (best round)",
          "Req/s (each round)",
          "Drain ms (max)",
          "p50 ms",
          "p99 ms",
          "Non-2xx",
          "Errors",
          "× bare",
          "× Hono + zod",
          "× equal-work",
        ],
        rows,
      ),
      "",
    );
    const vsEqual = ratio(by.estimate, by.equalWork);
    const vsZod = ratio(by.estimate, by.honoZod);
    const ok = clean(by.estimate) && clean(by.equalWork);
    const parts = [
      `estimate ≥ ${ESTIMATE_GOAL_VS_EQUAL_WORK}× the equal-work peer — ${verdict(ok && vsEqual >= ESTIMATE_GOAL_VS_EQUAL_WORK)}** (${num(vsEqual, 2)}×)`,
      `**estimate ≥ ${ESTIMATE_GOAL_VS_HONO_ZOD}× the Hono + zod route — ${verdict(ok && vsZod >= ESTIMATE_GOAL_VS_HONO_ZOD)}** (${num(vsZod, 2)}×)`,
    ];
    if (by.bare) {
      const vsBare = ratio(by.estimate, by.bare);
      parts.push(
        `**issue 14: estimate ≥ ${ESTIMATE_GOAL_VS_PEER}× the Hono + zod route — ${verdict(ok && vsZod >= ESTIMATE_GOAL_VS_PEER)}** (${num(vsZod, 2)}×)`,
        `**estimate ≥ ${ESTIMATE_GOAL_VS_BARE}× bare — ${verdict(ok && vsBare >= ESTIMATE_GOAL_VS_BARE)}** (${num(vsBare, 2)}×)`,
      );
    }
    verdicts.push(`**${r.label}: ${parts.join("; ")}.`);
  }
  const cpuRows = results.flatMap((r) =>
    r.cpu.map((c) => [
      r.label,
      c.label,
      c.samples.map((s) => num(s.cpuUsPerRequest, 1)).join(" / "),
      num(c.best.cpuUsPerRequest, 1),
      c.best.dbCpuUsPerRequest === undefined ? "—" : num(c.best.dbCpuUsPerRequest, 1),
      c.samples.map((s) => num(s.p99Ms, 1)).join(" / "),
      num(c.samples.reduce((a, s) => a + s.requests, 0)),
      num(c.samples.reduce((a, s) => a + s.bad, 0)),
    ]),
  );
  const pg = results.find((r) => r.database === "postgres");
  if (pg) {
    const ours = pg.cpu.find((c) => c.key === "estimate")?.best;
    const theirs = pg.cpu.find((c) => c.key === "equalWork")?.best;
    if (ours && theirs) {
      const ok = ours.bad === 0 && theirs.bad === 0;
      verdicts.push(
        `**PostgreSQL: estimate's server CPU per request ≤ ${ESTIMATE_CPU_GOAL_VS_EQUAL_WORK}× the equal-work peer's — ` +
          `${verdict(ok && ours.cpuUsPerRequest <= ESTIMATE_CPU_GOAL_VS_EQUAL_WORK * theirs.cpuUsPerRequest)}** ` +
          `(${num(ours.cpuUsPerRequest, 1)} µs against ${num(theirs.cpuUsPerRequest, 1)} µs, ${num(ours.cpuUsPerRequest / theirs.cpuUsPerRequest, 2)}×).`,
      );
    }
  } else {
    verdicts.push(`PostgreSQL not measured: ${pgSkipped ?? "unknown reason"}.`);
  }
  const body = [
    ...tables,
    table(
      [
        "Database",
        "Target",
        "Server CPU µs/req (each round)",
        "Server CPU µs/req (best)",
        "PostgreSQL backends µs/req (best round)",
        `p99 ms at ${CLIENTS} clients (each round)`,
        "Requests",
        "Non-2xx + errors",
      ],
      cpuRows,
    ),
    "",
    verdicts.join("\n"),
    "",
    `Setup: throughput, ${settings.durationSec} s per arm and round after ${settings.warmupSec} s of warm-up per arm, ` +
      `${settings.connections} connections, ${rounds} rounds alternated; a rate is the requests answered over the run's ` +
      "duration plus the time the arm then took to write the activity rows it still held (drain: ours flushes its " +
      "batch, the peer waits for its pending inserts), so neither side is credited with work left undone. Service " +
      "through the local host of `npm start` (`@hono/node-server` listener), crons off, anonymous requests, rate " +
      `limits raised to ${num(BENCH_RATE_LIMIT_PER_MIN)}/min (in-process limiter; the peer's \`@upstash/ratelimit\` the ` +
      "same limit on an in-process stand-in for Redis running the library's sliding-window script); servers and " +
      "load generator in one process. Databases: in-memory PGlite (`DATA_DIR=memory://`), the peer writing " +
      "through its own drizzle instance into the service's PGlite instance (the same `activity_log` table); then a " +
      "scratch PostgreSQL database on `BENCH_PG_URL`'s server (created, migrated, dropped by the run), the peer " +
      "with its own node-postgres pool of the same size. Server CPU: per target and round, " +
      `${num(settings.requests)} requests from ${CLIENTS} closed-loop clients (autocannon's CLI in a child ` +
      "process), `process.cpuUsage()` of this process (every server, the database client or PGlite, the rows " +
      "drained) divided by the requests; PostgreSQL's backends for the scratch database read from /proc. " +
      `Machine load average (1 min) ${num(loadBefore, 1)} at the start, ${num(loadAfter, 1)} at the end.`,
    "",
    interpret(results, ctx, rounds),
  ].join("\n");
  return {
    name: "http",
    title: "HTTP: public GET endpoints vs. bare node:http, Hono and an equal-work peer",
    command: `${settingsEnv(settings, ["durationSec", "connections", "warmupSec", "workers", "requests"])} BENCH_ROUNDS=${rounds} npm run bench -- http`,
    body,
  };
}

/** The `http` benchmark. */
export const httpBenchmark: Benchmark = {
  name: "http",
  title: "HTTP: public GET endpoints vs. bare node:http, Hono and an equal-work peer",
  description:
    "autocannon on /api/estimate and /api/services vs. bare node:http, Hono (+ zod) and an equal-work peer; PGlite and PostgreSQL",
  run,
};

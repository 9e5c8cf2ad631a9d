/**
 * `streams`: 1,000 concurrent event streams (`GET /api/tasks/stream?task_id=…`) on one
 * local instance — server memory per idle stream and event latency from commit to client.
 *
 * Server: the in-process local host on in-memory PGlite (bench/lib/service.ts; rate limits
 * raised, crons off, outbox kick on as in `npm start`). Clients: a forked child process
 * (this file with `BENCH_STREAMS_CLIENT=1`) holding one plain `http.request` SSE reader per
 * stream, so the server process's memory holds only the server's side of the streams.
 *
 * Setup: 1,000 sandbox tasks (no e-mail, no chain) submitted over HTTP, half with an API
 * key (streams authenticated by that key) and half anonymously (streams authenticated by
 * the task's `access_token`); one stream per task. Memory: `process.memoryUsage()` of the
 * server process after two forced GCs, before any stream, with 500 and with 1,000 idle
 * streams open (each has received `stream.connected` and its `task.created` backlog), and
 * after they are closed; per stream = (1,000 open − after close) / 1,000, cross-checked
 * with the 500 → 1,000 slope and the heap growth from `before`.
 * Latency: the tasks are approved (`reviewTask`, the admin review's function) at a steady
 * rate; commit time = a timestamp taken right after `reviewTask` resolves (its transaction
 * has committed), receipt time = when the client process has parsed the `task.accepted`
 * frame; both clocks are `performance.timeOrigin + performance.now()` on one machine.
 *
 * Goals (issue 6): ≤ 100 KiB per idle stream; p99 commit-to-client latency ≤ 1 s.
 */
import { type ChildProcess, fork } from "node:child_process";
import http from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import { num, table } from "../lib/report.js";
import { BENCH_RATE_LIMIT_PER_MIN, startService } from "../lib/service.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

/** Streams held open at once. */
export const STREAMS = 1000;
/** Goal: server memory per idle stream, KiB. */
export const MEMORY_GOAL_KIB = 100;
/** Goal: p99 latency from commit to client, ms. */
export const LATENCY_GOAL_P99_MS = 1000;
/** Approvals per second during the latency phase (one event per task). */
export const APPROVALS_PER_SEC = 100;
/** Streams the client opens at once while connecting. */
const OPEN_CONCURRENCY = 50;
/** Seconds of idle measured with every stream open (CPU of the shared poller). */
const IDLE_SECONDS = 5;
/** Longest wait for the last event after the last approval, ms. */
const DRAIN_TIMEOUT_MS = 20_000;

const SUBMISSION = {
  service_type: "SVC-01",
  location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
  task_description: "Photograph the storefront and the posted opening hours.",
  requester_contact: "bench-streams@example.com",
};

/** `performance.timeOrigin + performance.now()`: epoch ms with sub-ms resolution, comparable across processes. */
const nowMs = () => performance.timeOrigin + performance.now();

// --- Messages between the benchmark (server) and the client process ----------------------

/** One stream the client opens. */
interface StreamTarget {
  taskId: string;
  path: string;
  headers: Record<string, string>;
}

type ToClient = { type: "open"; baseUrl: string; targets: StreamTarget[] } | { type: "close" };

type ToServer =
  | { type: "opened"; connected: number; failed: number; failures: string[]; ms: number }
  | { type: "event"; taskId: string; event: string; at: number; createdAt: string }
  | { type: "closed"; heartbeats: number; unexpected: number; endedEarly: number };

// --- Client process -----------------------------------------------------------------------

/** The SSE client side: runs in the forked child, driven over IPC. */
function runClient(): void {
  const send = (m: ToServer) => process.send?.(m);
  const open: http.ClientRequest[] = [];
  let heartbeats = 0;
  let unexpected = 0;
  let endedEarly = 0;
  let closing = false;

  const openOne = (baseUrl: string, target: StreamTarget) =>
    new Promise<string | null>((resolve) => {
      const url = new URL(target.path, baseUrl);
      let settled = false;
      const done = (error: string | null) => {
        if (settled) return;
        settled = true;
        resolve(error);
      };
      const req = http.request(
        url,
        { method: "GET", agent: false, headers: { accept: "text/event-stream", ...target.headers } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            return done(`${target.taskId}: HTTP ${res.statusCode}`);
          }
          res.setEncoding("utf8");
          let buffer = "";
          res.on("data", (chunk: string) => {
            buffer += chunk;
            for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
              const frame = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              let event = "message";
              let data = "";
              let comment = false;
              for (const line of frame.split("\n")) {
                if (line.startsWith(":")) comment = true;
                else if (line.startsWith("event: ")) event = line.slice(7);
                else if (line.startsWith("data: ")) data += line.slice(6);
              }
              if (comment && data === "") {
                heartbeats++;
                continue;
              }
              if (event === "stream.connected") continue;
              if (event === "task.created") {
                done(null); // connected and the backlog replayed: the stream is idle from here
                continue;
              }
              if (event === "task.accepted") {
                const at = nowMs();
                const body = JSON.parse(data) as { created_at: string };
                send({ type: "event", taskId: target.taskId, event, at, createdAt: body.created_at });
                continue;
              }
              unexpected++;
            }
          });
          res.on("end", () => {
            if (!closing) endedEarly++;
            done(`${target.taskId}: stream ended before its backlog`);
          });
          res.on("error", () => {});
        },
      );
      req.on("error", (error) => {
        if (!closing) done(`${target.taskId}: ${error.message}`);
      });
      req.end();
      open.push(req);
    });

  process.on("message", async (message: ToClient) => {
    if (message.type === "open") {
      const started = nowMs();
      const failures: string[] = [];
      const queue = [...message.targets];
      let connected = 0;
      await Promise.all(
        Array.from({ length: OPEN_CONCURRENCY }, async () => {
          for (let t = queue.shift(); t; t = queue.shift()) {
            const error = await openOne(message.baseUrl, t);
            if (error) failures.push(error);
            else connected++;
          }
        }),
      );
      send({
        type: "opened",
        connected,
        failed: failures.length,
        failures: failures.slice(0, 5),
        ms: nowMs() - started,
      });
    } else if (message.type === "close") {
      closing = true;
      for (const req of open) req.destroy();
      send({ type: "closed", heartbeats, unexpected, endedEarly });
      process.disconnect();
    }
  });
}

// --- Server side ----------------------------------------------------------------------------

/** `global.gc`, made available at run time. */
function getGc(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

interface MemorySample {
  label: string;
  streams: number;
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The client process and a way to wait for its next message of a type. */
class ClientProcess {
  readonly child: ChildProcess;
  private readonly waiters = new Map<string, (m: ToServer) => void>();
  readonly events: Extract<ToServer, { type: "event" }>[] = [];
  private exited: Promise<void>;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, BENCH_STREAMS_CLIENT: "1" },
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
    this.child.on("message", (m: ToServer) => {
      if (m.type === "event") this.events.push(m);
      else this.waiters.get(m.type)?.(m);
    });
  }

  request<T extends ToServer["type"]>(message: ToClient, reply: T, timeoutMs: number) {
    return new Promise<Extract<ToServer, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`streams: client gave no "${reply}" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.set(reply, (m) => {
        clearTimeout(timer);
        this.waiters.delete(reply);
        resolve(m as Extract<ToServer, { type: T }>);
      });
      this.child.send(message);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
      this.child.kill("SIGTERM");
      await this.exited;
      clearTimeout(timer);
    }
  }
}

async function run(ctx: BenchContext): Promise<Section> {
  const gc = getGc();
  // 500 keyed requests in a minute: keep the (logged) volume-alert e-mail out of the output.
  const savedAlert = process.env.VOLUME_ALERT_MIN_REQUESTS;
  process.env.VOLUME_ALERT_MIN_REQUESTS = "1000000000";
  const service = await startService({ root: ctx.root });
  ctx.log(`streams: service ${service.url} (database ${service.driver})`);
  const client = new ClientProcess();
  try {
    const { createApiKey } = await import("../../lib/keys/create-api-key.js");
    const { reviewTask } = await import("../../lib/tasks/review-task.js");
    const { eventHub } = await import("../../lib/stream/event-hub.js");
    const { getConfig } = await import("../../lib/config.js");
    const { getDb } = await import("../../lib/db/client.js");
    const { taskEvents } = await import("../../lib/db/schema/index.js");
    const { and, asc, gt, inArray, min } = await import("drizzle-orm");
    const config = getConfig();

    // --- Tasks ------------------------------------------------------------------------------
    const key = await createApiKey({
      name: "bench streams",
      contact: "bench-streams@example.com",
      scopes: ["task_create", "audit_only"],
      trusted: true,
    });
    ctx.log(`streams: submitting ${STREAMS} sandbox tasks (half keyed, half anonymous)`);
    const targets: StreamTarget[] = [];
    const submitOne = async (keyed: boolean): Promise<StreamTarget> => {
      const res = await fetch(`${service.url}/api/submit-task`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-service-mode": "sandbox",
          ...(keyed ? { "x-api-key": key.api_key } : {}),
        },
        body: JSON.stringify(SUBMISSION),
      });
      const body = (await res.json()) as { task_id?: string; access_token?: string };
      if (res.status !== 201 || !body.task_id) throw new Error(`streams: submission answered ${res.status}`);
      const base = `/api/tasks/stream?task_id=${encodeURIComponent(body.task_id)}`;
      return keyed
        ? { taskId: body.task_id, path: base, headers: { "x-api-key": key.api_key } }
        : {
            taskId: body.task_id,
            path: `${base}&access_token=${encodeURIComponent(body.access_token ?? "")}`,
            headers: {},
          };
    };
    for (let i = 0; i < STREAMS; i += 10) {
      targets.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, k) => submitOne((i + k) % 2 === 0)))),
      );
    }

    // --- Warm-up: open and close a few streams so that first-use costs are not counted -----
    const warm = new ClientProcess();
    try {
      const opened = await warm.request(
        { type: "open", baseUrl: service.url, targets: targets.slice(0, 20) },
        "opened",
        60_000,
      );
      if (opened.failed) throw new Error(`streams: warm-up failures: ${opened.failures.join("; ")}`);
      await warm.request({ type: "close" }, "closed", 10_000);
    } finally {
      await warm.stop();
    }
    for (let i = 0; i < 50 && eventHub.size > 0; i++) await sleep(100);

    // --- Memory -----------------------------------------------------------------------------
    const samples: MemorySample[] = [];
    const sample = async (label: string) => {
      await sleep(1000);
      gc();
      await sleep(100);
      gc();
      const m = process.memoryUsage();
      samples.push({
        label,
        streams: eventHub.size,
        rss: m.rss,
        heapUsed: m.heapUsed,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
      });
      ctx.log(
        `streams: ${label}: ${eventHub.size} streams, rss ${num(m.rss / 2 ** 20, 1)} MiB, heap ${num(m.heapUsed / 2 ** 20, 1)} MiB`,
      );
    };
    await sample("before");
    const half = STREAMS / 2;
    const openBatch = async (batch: StreamTarget[]) => {
      const opened = await client.request(
        { type: "open", baseUrl: service.url, targets: batch },
        "opened",
        120_000,
      );
      if (opened.failed) {
        throw new Error(`streams: ${opened.failed} streams failed to open: ${opened.failures.join("; ")}`);
      }
      return opened;
    };
    ctx.log(`streams: opening ${half} streams`);
    const openA = await openBatch(targets.slice(0, half));
    await sample(`${half} open`);
    ctx.log(`streams: opening ${STREAMS - half} more`);
    const openB = await openBatch(targets.slice(half));
    await sample(`${STREAMS} open`);

    // --- Idle cost of the shared poller ------------------------------------------------------
    const cpu0 = process.cpuUsage();
    const idle0 = performance.now();
    await sleep(IDLE_SECONDS * 1000);
    const cpu = process.cpuUsage(cpu0);
    const idleCpuPct = ((cpu.user + cpu.system) / 1000 / (performance.now() - idle0)) * 100;
    const db = await getDb();
    const ids = targets.map((t) => t.taskId);
    const [first] = await db
      .select({ seq: min(taskEvents.seq) })
      .from(taskEvents)
      .where(inArray(taskEvents.taskId, ids));
    const pollTimes: number[] = [];
    let pollRows = 0;
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const rows = await db
        .select({
          id: taskEvents.id,
          seq: taskEvents.seq,
          taskId: taskEvents.taskId,
          type: taskEvents.type,
          taskStatus: taskEvents.taskStatus,
          payload: taskEvents.payload,
          createdAt: taskEvents.createdAt,
        })
        .from(taskEvents)
        .where(and(inArray(taskEvents.taskId, ids), gt(taskEvents.seq, first?.seq ?? 0)))
        .orderBy(asc(taskEvents.seq));
      pollTimes.push(performance.now() - t0);
      pollRows = rows.length;
    }
    pollTimes.sort((a, b) => a - b);

    // --- Latency: approve every task at a steady rate ----------------------------------------
    ctx.log(`streams: approving ${STREAMS} tasks at ${APPROVALS_PER_SEC}/s`);
    const commitAt = new Map<string, number>();
    const reviewMs: number[] = [];
    const interval = 1000 / APPROVALS_PER_SEC;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpuApprove0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < targets.length; i++) {
      // Always yield to the timers (the hub's poll is a timer): back-to-back PGlite calls
      // resolve as microtasks only, and a driver that never yields would starve them.
      const wait = t0 + i * interval - performance.now();
      await (wait > 0 ? sleep(wait) : new Promise((r) => setImmediate(r)));
      const task = targets[i]!;
      const started = performance.now();
      await reviewTask({ task_id: task.taskId, action: "approve", operator_notes: "bench streams" });
      commitAt.set(task.taskId, nowMs());
      reviewMs.push(performance.now() - started);
    }
    const approveSeconds = (performance.now() - t0) / 1000;
    const cpuApprove = process.cpuUsage(cpuApprove0);
    const approveCpuPct = ((cpuApprove.user + cpuApprove.system) / 1000 / (approveSeconds * 1000)) * 100;
    loopDelay.disable();
    ctx.log(
      `streams: approvals done in ${num(approveSeconds, 1)} s, CPU ${num(approveCpuPct)}%, event-loop delay p99 ${num(loopDelay.percentile(99) / 1e6, 1)} ms, max ${num(loopDelay.max / 1e6, 1)} ms`,
    );
    const drainStart = performance.now();
    while (client.events.length < STREAMS && performance.now() - drainStart < DRAIN_TIMEOUT_MS)
      await sleep(50);
    const received = client.events.length;
    const latencies: number[] = [];
    const fromCreated: number[] = [];
    for (const e of client.events) {
      const committed = commitAt.get(e.taskId);
      if (committed !== undefined) latencies.push(e.at - committed);
      fromCreated.push(e.at - Date.parse(e.createdAt));
    }
    latencies.sort((a, b) => a - b);
    fromCreated.sort((a, b) => a - b);
    reviewMs.sort((a, b) => a - b);

    // --- Close -------------------------------------------------------------------------------
    const closed = await client.request({ type: "close" }, "closed", 10_000);
    const closeStart = performance.now();
    while (eventHub.size > 0 && performance.now() - closeStart < 10_000) await sleep(50);
    const leftSubscribed = eventHub.size;
    const closeMs = performance.now() - closeStart;
    await sample("after close");

    // --- Report ------------------------------------------------------------------------------
    const before = samples[0]!;
    const full = samples.find((x) => x.label === `${STREAMS} open`)!;
    const halfSample = samples.find((x) => x.label === `${half} open`)!;
    const after = samples.find((x) => x.label === "after close")!;
    type Field = "rss" | "heapUsed" | "external";
    const kibPer = (hi: MemorySample, lo: MemorySample, field: Field, n: number) =>
      (hi[field] - lo[field]) / 1024 / n;
    const mib = (bytes: number) => num(bytes / 2 ** 20, 1);
    const memRow = (label: string, field: Field) => [
      label,
      ...samples.map((x) => mib(x[field])),
      num(kibPer(full, after, field, STREAMS), 1),
      num(kibPer(full, halfSample, field, STREAMS - half), 1),
      num(kibPer(full, before, field, STREAMS), 1),
    ];
    const memTable = table(
      [
        "Server process",
        ...samples.map((x) => `${x.label} MiB (${num(x.streams)} streams)`),
        `KiB / stream (${num(STREAMS)} open − after close)`,
        `KiB / stream (${num(half)} → ${num(STREAMS)})`,
        `KiB / stream (${num(STREAMS)} open − before)`,
      ],
      [
        memRow("RSS", "rss"),
        memRow("JS heap used", "heapUsed"),
        memRow("External (buffers, WASM views)", "external"),
      ],
    );
    const rssPer = kibPer(full, after, "rss", STREAMS);
    const heapPer = kibPer(full, after, "heapUsed", STREAMS);
    const heapPerBefore = kibPer(full, before, "heapUsed", STREAMS);
    const slopeRss = kibPer(full, halfSample, "rss", STREAMS - half);
    const worst = Math.max(rssPer, heapPer, heapPerBefore, slopeRss);
    const memPass = full.streams === STREAMS && worst <= MEMORY_GOAL_KIB;

    const p99 = percentile(latencies, 0.99);
    const latPass = received === STREAMS && p99 <= LATENCY_GOAL_P99_MS;
    const latTable = table(
      ["Measure", "Events", "p50 ms", "p90 ms", "p99 ms", "Max ms"],
      [
        [
          "commit → client (timestamp after `reviewTask` resolves)",
          num(latencies.length),
          num(percentile(latencies, 0.5), 1),
          num(percentile(latencies, 0.9), 1),
          num(p99, 1),
          num(latencies.at(-1) ?? Number.NaN, 1),
        ],
        [
          "event `created_at` → client (ms clock, inside the transaction)",
          num(fromCreated.length),
          num(percentile(fromCreated, 0.5), 1),
          num(percentile(fromCreated, 0.9), 1),
          num(percentile(fromCreated, 0.99), 1),
          num(fromCreated.at(-1) ?? Number.NaN, 1),
        ],
        [
          "`reviewTask` call itself (the commit)",
          num(reviewMs.length),
          num(percentile(reviewMs, 0.5), 1),
          num(percentile(reviewMs, 0.9), 1),
          num(percentile(reviewMs, 0.99), 1),
          num(reviewMs.at(-1) ?? Number.NaN, 1),
        ],
      ],
    );
    const notes: string[] = [
      `Streams: ${num(STREAMS)} (one per task; ${num(STREAMS / 2)} authenticated by the submitting key, ` +
        `${num(STREAMS / 2)} by the task's \`access_token\`), opened ${OPEN_CONCURRENCY} at a time in ` +
        `${num((openA.ms + openB.ms) / 1000, 1)} s; every one received \`stream.connected\` and its ` +
        "`task.created` backlog before the memory samples. The server's hub held " +
        `${num(full.streams)} subscribers with all open.`,
      `Memory: the streams' share is what closing them gave back: ${num(rssPer, 1)} KiB of RSS and ${num(heapPer, 1)} KiB ` +
        `of JS heap per stream (${num(STREAMS)} open − after close, each after two forced GCs); the 500 → 1,000 slope ` +
        `agrees (${num(slopeRss, 1)} KiB RSS per stream). RSS \`before\` is not a usable baseline: it still held pages ` +
        "of the 1,000 submissions' garbage that the allocator returned later, so RSS fell while streams were opened; the " +
        `heap, measured exactly, grew by ${num(heapPerBefore, 1)} KiB per stream from \`before\`. Per stream the server holds a ` +
        "socket, Node's `IncomingMessage`/`ServerResponse`, the local host's Web `Request`, `Headers` and " +
        "`AbortController`, the handler's `ReadableStream` and `Response`, a heartbeat interval, a deadline timer and " +
        "one hub subscriber.",
      `Idle: with ${num(STREAMS)} streams open and no events the server process used ${num(idleCpuPct, 1)}% of one CPU ` +
        `over ${IDLE_SECONDS} s. That is the shared poller (one query every ${config.STREAM_POLL_MS} ms for all streams): ` +
        `its query (\`task_id IN (${num(ids.length)} ids) AND seq > min(cursor)\`) returned ${num(pollRows)} rows and took ` +
        `${num(percentile(pollTimes, 0.5), 1)} ms at p50 (${num(pollTimes.at(-1) ?? 0, 1)} ms max) when replayed alone: ` +
        "since the lower bound is the smallest cursor of all streams, each tick re-reads every already-sent event of the " +
        "watched tasks and filters them in JavaScript, so idle cost grows with the watched tasks' history, not with new events.",
      `Latency: ${num(received)} of ${num(STREAMS)} \`task.accepted\` events reached their stream; approvals ran at ` +
        `${num(STREAMS / approveSeconds, 0)}/s (target ${APPROVALS_PER_SEC}/s) for ${num(approveSeconds, 1)} s, so events ` +
        `land at every phase of the ${config.STREAM_POLL_MS} ms poll: commit-to-client latency is about ` +
        "uniform between the query time and one poll interval plus the query, and the p99 is bounded by " +
        "`STREAM_POLL_MS` + one poll query + the write. Lower `STREAM_POLL_MS` for lower latency at more idle load. " +
        `During the approvals the server process used ${num(approveCpuPct)}% of one CPU (all its threads) and its event ` +
        `loop was delayed by up to ${num(loopDelay.max / 1e6, 0)} ms (p99 ${num(loopDelay.percentile(99) / 1e6, 0)} ms).`,
      "Caveat found while building this benchmark: on the embedded database, calls that follow each other without " +
        "waiting for I/O resolve as microtasks only, so a caller that chains PGlite calls back to back starves every " +
        "timer of the process — the hub's poll included (a first version of this driver, approving without yielding, " +
        "delivered no event until the last approval, p99 13.7 s). The driver now yields to the event loop between approvals, as " +
        "HTTP requests do. Any in-process job that chains PGlite calls without other I/O would delay stream " +
        "events the same way on the embedded database (PostgreSQL calls wait for socket I/O, so timers run between them).",
      `After the client closed its sockets the hub emptied in ${num(closeMs, 0)} ms (${leftSubscribed} left); the client ` +
        `counted ${closed.heartbeats} heartbeats (${config.STREAM_HEARTBEAT_SECONDS} s of silence each), ` +
        `${closed.unexpected} unexpected frames, ${closed.endedEarly} streams ended by the server.`,
      "Server and clients are separate processes on the same 2 CPUs; the server process also ran the outbox passes " +
        "kicked by each commit (sandbox tasks: no e-mail). Rate limits raised to " +
        `${num(BENCH_RATE_LIMIT_PER_MIN)}/min; in-memory PGlite (\`DATA_DIR=memory://\`).`,
    ];
    const body = [
      memTable,
      "",
      `**Goal: ≤ ${MEMORY_GOAL_KIB} KiB per idle stream — ${memPass ? "PASS" : "FAIL"}** ` +
        `(${num(rssPer, 1)} KiB RSS, ${num(heapPer, 1)} KiB JS heap per stream at ${num(STREAMS)} streams; ` +
        `largest estimate, RSS − before aside: ${num(worst, 1)} KiB).`,
      "",
      latTable,
      "",
      `**Goal: p99 event latency from commit to client ≤ ${num(LATENCY_GOAL_P99_MS)} ms — ${latPass ? "PASS" : "FAIL"}** ` +
        `(${num(p99, 1)} ms; ${num(received)}/${num(STREAMS)} events received; \`STREAM_POLL_MS\`=${config.STREAM_POLL_MS}).`,
      "",
      notes.map((l) => `- ${l}`).join("\n"),
    ].join("\n");
    return {
      name: "streams",
      title: "Event streams: 1,000 concurrent SSE clients",
      command: "npm run bench -- streams",
      body,
    };
  } finally {
    await client.stop();
    await service.close();
    if (savedAlert === undefined) delete process.env.VOLUME_ALERT_MIN_REQUESTS;
    else process.env.VOLUME_ALERT_MIN_REQUESTS = savedAlert;
    const { resetConfig } = await import("../../lib/config.js");
    resetConfig();
  }
}

/** The `streams` benchmark. */
export const streamsBenchmark: Benchmark = {
  name: "streams",
  title: "Event streams: 1,000 concurrent SSE clients",
  description: "memory per idle SSE stream and commit-to-client event latency, 1,000 streams",
  run,
};

if (process.env.BENCH_STREAMS_CLIENT === "1" && process.send) runClient();

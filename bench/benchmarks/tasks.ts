/**
 * `tasks`: task submission (`POST /api/submit-task`) and the status read
 * (`GET /api/submit-task?task_id=…`) under load, through the in-process local host, on the
 * embedded database (in-memory PGlite) and on PostgreSQL (a scratch database created on
 * `BENCH_PG_URL`'s server, migrated with drizzle's node-postgres migrator, dropped afterwards).
 *
 * Both calls carry an API key (scopes `task_create`, `audit_only`), so each request pays
 * the key check (a database lookup once per `API_KEY_CACHE_TTL_MS`, else the per-instance
 * cache), the per-key rate limit (raised, see bench/lib/service.ts) and an activity
 * row. Submissions use one valid body (SVC-01 at a Montréal address: known location, no
 * callback, no network); each creates a task and its `task.created` event. The status
 * reads cycle through 200 tasks created just before.
 *
 * Goal (issue 4): on PostgreSQL with 50 concurrent clients, status GET p99 ≤ 10 ms and
 * submit p99 ≤ 30 ms.
 */

import autocannon from "autocannon";
import { createScratchDatabase } from "../../lib/db/scratch-database.js";
import { type LoadResult, loadResultOf } from "../lib/load.js";
import { num, table } from "../lib/report.js";
import { BENCH_RATE_LIMIT_PER_MIN, startService } from "../lib/service.js";
import { settingsEnv } from "../lib/settings.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

/** Goal: p99 of the status GET on PostgreSQL, ms. */
export const STATUS_GOAL_P99_MS = 10;
/** Goal: p99 of the submission on PostgreSQL, ms. */
export const SUBMIT_GOAL_P99_MS = 30;
/** Tasks created before the status run; the reads cycle through their ids. */
export const STATUS_TASKS = 200;

import { DEFAULT_PG_URL } from "../lib/backends.js";

export { DEFAULT_PG_URL };

/** The submission body: the tests' valid task (tests/helpers/tasks.ts `validTask`). */
export const TASK_BODY = {
  service_type: "SVC-01",
  location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
  task_description: "Photograph the storefront and the posted opening hours.",
  requester_contact: "agent@example.com",
};

type Backend = "pglite" | "pg";

interface Run {
  label: string;
  result: LoadResult;
}

interface BackendResult {
  backend: Backend;
  label: string;
  poolMax?: number;
  submitStatus: number;
  submit: LoadResult;
  status: LoadResult;
  /** 201s the client saw (preflight, warm-up, measured, status fixtures). */
  created: number;
  tasksInDb: number;
  eventsInDb: number;
  activityRows: number;
  /** Requests the client completed, all runs included. */
  requestsSent: number;
}

/** Options of one autocannon run against the service. */
interface LoadSpec {
  url: string;
  durationSec: number;
  connections: number;
  workers: number;
  headers: Record<string, string>;
  method?: "GET" | "POST";
  body?: string;
  /** Paths cycled through by every connection (plain objects: they cross into autocannon's workers). */
  paths?: string[];
}

/**
 * Runs autocannon (directly: bench/lib/load.ts has no per-request paths) and reduces its
 * result to `LoadResult`, counting only 2xx answers as successes.
 */
async function load(spec: LoadSpec): Promise<LoadResult & { ok: number }> {
  const result = await autocannon({
    url: spec.url,
    duration: spec.durationSec,
    connections: spec.connections,
    workers: spec.workers,
    method: spec.method ?? "GET",
    headers: spec.headers,
    ...(spec.body ? { body: spec.body } : {}),
    ...(spec.paths ? { requests: spec.paths.map((path) => ({ method: "GET" as const, path })) } : {}),
  });
  return { ...loadResultOf(spec.url, result), ok: result["2xx"] };
}

async function measureBackend(
  ctx: BenchContext,
  backend: Backend,
  databaseUrl: string | undefined,
): Promise<BackendResult> {
  const { settings } = ctx;
  const service = await startService({ root: ctx.root, databaseUrl });
  const label = backend === "pglite" ? "PGlite (in-memory)" : "PostgreSQL";
  ctx.log(`tasks: ${label}: service ${service.url} (database ${service.driver})`);
  try {
    const { createApiKey } = await import("../../lib/keys/create-api-key.js");
    const { getConfig } = await import("../../lib/config.js");
    const { getDb } = await import("../../lib/db/client.js");
    const { flushActivity } = await import("../../lib/activity/record-activity.js");
    const { activityLog, taskEvents, tasks } = await import("../../lib/db/schema/index.js");
    const { count } = await import("drizzle-orm");
    const key = await createApiKey({
      name: "bench tasks",
      contact: "bench@example.com",
      scopes: ["task_create", "audit_only"],
      trusted: true,
    });
    const headers = { "x-api-key": key.api_key };
    const postHeaders = { ...headers, "content-type": "application/json" };
    const submitUrl = `${service.url}/api/submit-task`;
    const body = JSON.stringify(TASK_BODY);
    let created = 0;
    let sent = 0;
    const submitOnce = async (): Promise<{ status: number; taskId?: string }> => {
      const res = await fetch(submitUrl, { method: "POST", headers: postHeaders, body });
      const json = (await res.json()) as { task_id?: string };
      sent++;
      if (res.status === 201) created++;
      return { status: res.status, taskId: json.task_id };
    };

    // --- Submission -----------------------------------------------------------------
    const preflight = await submitOnce();
    const runs: Run[] = [];
    const spec = {
      url: submitUrl,
      connections: settings.connections,
      workers: settings.workers,
      method: "POST" as const,
      headers: postHeaders,
      body,
    };
    if (settings.warmupSec > 0) {
      ctx.log(`tasks: ${label}: warm-up ${settings.warmupSec}s POST /api/submit-task`);
      const warm = await load({ ...spec, durationSec: settings.warmupSec });
      created += warm.ok;
      sent += warm.requests;
    }
    ctx.log(
      `tasks: ${label}: ${settings.durationSec}s x ${settings.connections} connections POST /api/submit-task`,
    );
    const submit = await load({ ...spec, durationSec: settings.durationSec });
    created += submit.ok;
    sent += submit.requests;
    runs.push({ label: "submit", result: submit });

    // --- Status reads over STATUS_TASKS fresh tasks -----------------------------------
    ctx.log(`tasks: ${label}: creating ${STATUS_TASKS} tasks for the status reads`);
    const ids: string[] = [];
    while (ids.length < STATUS_TASKS) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, STATUS_TASKS - ids.length) }, () => submitOnce()),
      );
      for (const r of batch) {
        if (r.status !== 201 || !r.taskId) throw new Error(`tasks: fixture submission answered ${r.status}`);
        ids.push(r.taskId);
      }
    }
    const paths = ids.map((id) => `/api/submit-task?task_id=${encodeURIComponent(id)}`);
    const statusSpec = {
      url: service.url,
      connections: settings.connections,
      workers: settings.workers,
      headers,
      paths,
    };
    if (settings.warmupSec > 0) {
      ctx.log(`tasks: ${label}: warm-up ${settings.warmupSec}s GET /api/submit-task?task_id=…`);
      const warm = await load({ ...statusSpec, durationSec: settings.warmupSec });
      sent += warm.requests;
    }
    ctx.log(
      `tasks: ${label}: ${settings.durationSec}s x ${settings.connections} connections GET /api/submit-task?task_id=…`,
    );
    const status = await load({ ...statusSpec, durationSec: settings.durationSec });
    sent += status.requests;

    // --- What the database holds ----------------------------------------------------------
    await flushActivity();
    const db = await getDb();
    const [taskRows] = await db.select({ n: count() }).from(tasks);
    const [eventRows] = await db.select({ n: count() }).from(taskEvents);
    const [activityRows] = await db.select({ n: count() }).from(activityLog);
    return {
      backend,
      label,
      ...(backend === "pg" ? { poolMax: getConfig().DATABASE_POOL_MAX } : {}),
      submitStatus: preflight.status,
      submit,
      status,
      created,
      tasksInDb: taskRows?.n ?? 0,
      eventsInDb: eventRows?.n ?? 0,
      activityRows: activityRows?.n ?? 0,
      requestsSent: sent,
    };
  } finally {
    await service.close();
  }
}

async function run(ctx: BenchContext): Promise<Section> {
  const { settings } = ctx;
  const pgAdmin = process.env.BENCH_PG_URL?.trim() || DEFAULT_PG_URL;
  const results: BackendResult[] = [];
  results.push(await measureBackend(ctx, "pglite", undefined));
  let pgSkipped: string | undefined;
  if (pgAdmin === "skip") {
    pgSkipped = "BENCH_PG_URL=skip";
  } else {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
    try {
      scratch = await createScratchDatabase(pgAdmin, "ptes_bench");
      ctx.log(`tasks: scratch database ${scratch.name} created and migrated`);
    } catch (error) {
      pgSkipped = `no PostgreSQL at ${new URL(pgAdmin).host} (${error instanceof Error ? error.message : String(error)})`;
      ctx.log(`tasks: PostgreSQL skipped: ${pgSkipped}`);
    }
    if (scratch) {
      try {
        results.push(await measureBackend(ctx, "pg", scratch.url));
      } finally {
        await scratch.drop();
        ctx.log(`tasks: scratch database ${scratch.name} dropped`);
      }
    }
  }

  const row = (r: BackendResult, what: string, m: LoadResult) => [
    r.label,
    what,
    num(m.requestsPerSec),
    num(m.latencyP50Ms, 1),
    num(m.latencyP99Ms, 1),
    num(m.latencyMaxMs, 0),
    num(m.requests),
    num(m.non2xx),
    num(m.errors),
  ];
  const loadTable = table(
    ["Database", "Request", "Req/s (mean)", "p50 ms", "p99 ms", "Max ms", "Requests", "Non-2xx", "Errors"],
    results.flatMap((r) => [
      row(r, "`POST /api/submit-task`", r.submit),
      row(r, "`GET /api/submit-task?task_id=…`", r.status),
    ]),
    ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
  );
  const pg = results.find((r) => r.backend === "pg");
  const clean = (m: LoadResult) => m.non2xx === 0 && m.errors === 0;
  const verdict = (what: string, goal: number, m: LoadResult | undefined) =>
    m
      ? `${what} p99 ≤ ${goal} ms — ${m.latencyP99Ms <= goal && clean(m) ? "PASS" : "FAIL"} (${num(m.latencyP99Ms, 1)} ms` +
        `${clean(m) ? "" : `, ${num(m.non2xx)} non-2xx, ${num(m.errors)} errors`})`
      : `${what} p99 ≤ ${goal} ms — NOT MEASURED (${pgSkipped})`;
  const goals = [
    `**Goal (PostgreSQL, ${settings.connections} concurrent clients): ${verdict("status GET", STATUS_GOAL_P99_MS, pg?.status)}; ` +
      `${verdict("submit", SUBMIT_GOAL_P99_MS, pg?.submit)}.**`,
  ];
  if (settings.connections !== 50) {
    goals.push(`(The goal is stated for 50 clients; this run used ${settings.connections}.)`);
  }
  const rowsTable = table(
    [
      "Database",
      "First submit status",
      "201s seen",
      "Tasks in DB",
      "Task events",
      "Requests sent",
      "Activity rows",
    ],
    results.map((r) => [
      r.label,
      String(r.submitStatus),
      num(r.created),
      num(r.tasksInDb),
      num(r.eventsInDb),
      num(r.requestsSent),
      num(r.activityRows),
    ]),
  );
  const perReqUs = (m: LoadResult) => (m.requestsPerSec > 0 ? 1e6 / m.requestsPerSec : Number.NaN);
  const notes: string[] = [];
  for (const r of results) {
    notes.push(
      `${r.label}: a submission costs about ${num(perReqUs(r.submit), 0)} µs of the server per request ` +
        `(${num(r.submit.requestsPerSec)} req/s), a status read about ${num(perReqUs(r.status), 0)} µs ` +
        `(${num(r.status.requestsPerSec)} req/s). With ${settings.connections} clients always waiting, ` +
        `latency is mostly queueing: p50 ≈ clients ÷ throughput (${num((settings.connections / r.submit.requestsPerSec) * 1000, 1)} ms and ` +
        `${num((settings.connections / r.status.requestsPerSec) * 1000, 1)} ms here).`,
    );
  }
  notes.push(
    "The service runs in the benchmark's own Node process (one thread for the local host, the handlers, " +
      `PGlite's WASM engine when embedded, and the node-postgres client), and autocannon's ${settings.workers} ` +
      "worker thread(s) generate the load from the same process; on PostgreSQL the server's backends share the " +
      "same 2 CPUs. So client, server and database compete for the machine, and the latencies are those of a " +
      "saturated single-threaded server, not of a function instance serving one request at a time.",
  );
  notes.push(
    "Nothing is lost: every task has its `task.created` event, and there are at least as many tasks as 201s " +
      "and activity rows as requests the client counted (the surplus: requests still in flight when a run's " +
      "clock stopped, answered after the load generator stopped counting).",
  );
  notes.push(
    "Each submission also kicks the background outbox pass (`kickOutbox`: confirmation e-mail, webhooks) in the " +
      "same process, as the service does in production; its work is part of the submission rows' cost.",
  );
  const bad = results.filter((r) => !clean(r.submit) || !clean(r.status));
  if (bad.length) {
    notes.push(`Non-2xx responses or errors on: ${bad.map((r) => r.label).join(", ")}.`);
  }
  const body = [
    loadTable,
    "",
    goals.join(" "),
    "",
    rowsTable,
    "",
    `Setup: per database and request, ${settings.warmupSec} s of warm-up then ${settings.durationSec} s of load ` +
      `over ${settings.connections} keep-alive connections; one API key (\`task_create\`, \`audit_only\`) on every request; ` +
      `rate limits raised to ${num(BENCH_RATE_LIMIT_PER_MIN)}/min (in-process limiter); crons off. Submissions post ` +
      "one valid body (SVC-01, `1000 Rue Sherbrooke O, Montréal, QC H3A 3G4`); status reads cycle through " +
      `${STATUS_TASKS} tasks created just before. PGlite: \`DATA_DIR=memory://\`. PostgreSQL: a scratch database on ` +
      `\`${new URL(pgAdmin === "skip" ? DEFAULT_PG_URL : pgAdmin).host}\` (created, migrated, dropped by the run), ` +
      `node-postgres pool of ${pg?.poolMax ?? "DATABASE_POOL_MAX"} connections` +
      `${pgSkipped ? ` — skipped: ${pgSkipped}` : ""}.`,
    "",
    notes.map((l) => `- ${l}`).join("\n"),
  ].join("\n");
  return {
    name: "tasks",
    title: "Tasks: submission and status under load (PGlite and PostgreSQL)",
    command: `${settingsEnv(settings, ["durationSec", "connections", "warmupSec", "workers"])} npm run bench -- tasks`,
    body,
  };
}

/** The `tasks` benchmark. */
export const tasksBenchmark: Benchmark = {
  name: "tasks",
  title: "Tasks: submission and status under load (PGlite and PostgreSQL)",
  description: "POST /api/submit-task and the status GET at 50 clients, on PGlite and on PostgreSQL",
  run,
};

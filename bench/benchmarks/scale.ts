/**
 * `scale`: the reads that grow with history, timed on a small and a large PostgreSQL database
 * (issue 32 item 1). Each database is a scratch database on `BENCH_PG_URL`'s server (default the
 * local one), migrated, then seeded by SQL (`generate_series`, not through the API: minutes, not
 * hours): `BENCH_SCALE_TASKS` tasks (default 1,000,000) over 12 months from 2,000 keys and 200
 * organisations (81 % completed, the rest spread over the other statuses, 0.2 % active), and
 * `BENCH_SCALE_ACTIVITY` activity rows (default 10,000,000) over 30 days; the small database has
 * 1,000 tasks and 10,000 activity rows. The activity roll-ups the analytics read
 * (`activity_agents_daily`, `activity_endpoints_daily`) are filled by the log's triggers as the
 * seed's INSERT runs, as they would be by migration 0025's backfill. `VACUUM ANALYZE` runs after
 * seeding, as autovacuum would after so many inserts (statistics and the visibility map).
 *
 * Both databases are seeded first and kept open; each call goes through its real handler (`api/…`,
 * in this process), with an admin key, on the small and the large database in alternated rounds
 * (small, large, small, large; each round after 3 unmeasured warm-ups), so that load from elsewhere
 * on the machine weighs on both sizes alike: the median and p95 of `BENCH_SCALE_RUNS` (default 40;
 * the small database's calls take 2–5 ms, where 20 samples left the growth ratios noisy) samples
 * per size. The CSV export of the largest organisation's 30 days of activity is timed to its last
 * byte, with the process's peak RSS growth; the retention purge deletes one day of activity in
 * batches (lib/privacy/retention.ts)
 * and reports rows per second (on the last day of a month, the day is a whole month's partition
 * and goes in one `DROP TABLE`). The activity log's monthly partitions of the seeded 30 days are
 * created before the seed, as the hourly privacy-retention job would have.
 *
 * Goals (issue 32): every call ≤ 50 ms median at the large size except exports; no call more than
 * 2× slower at the large size than at the small one; exports stream.
 */
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { flushActivity } from "../../lib/activity/record-activity.js";
import { resetConfig } from "../../lib/config.js";
import { openPg, setDatabase } from "../../lib/db/client.js";
import { rowsOf } from "../../lib/db/rows.js";
import { tasks as taskTable } from "../../lib/db/schema/index.js";
import { createScratchDatabase } from "../../lib/db/scratch-database.js";
import { timestampText } from "../../lib/db/timestamp-text.js";
import { ensureActivityPartitions } from "../../lib/privacy/activity-partitions.js";
import { num, table } from "../lib/report.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";
import { DEFAULT_PG_URL } from "./tasks.js";

/** Goal: median of every non-export call at the large size, ms. */
export const SCALE_GOAL_MEDIAN_MS = 50;
/** Goal: most a call may slow down from the small to the large size. */
export const SCALE_GOAL_GROWTH = 2;

type Handler = (request: Request) => Promise<Response>;

interface Call {
  label: string;
  /** The handler and URL; `url` may depend on the seeded data (a task id, a cursor). */
  handler: () => Promise<Handler>;
  url: (seed: Seed) => string;
  export?: boolean;
}

interface Seed {
  sampleTaskId: string;
  midCursor: string;
  bigOrg: string;
}

interface Timing {
  medianMs: number;
  p95Ms: number;
  status: number;
}

const api = (file: string) => async () => ((await import(`../../api/${file}.ts`)) as { GET: Handler }).GET;

const CALLS: Call[] = [
  { label: "`GET /api/status`", handler: api("status"), url: () => "/api/status" },
  {
    label: "task status (admin view)",
    handler: api("submit-task"),
    url: (s) => `/api/submit-task?task_id=${s.sampleTaskId}`,
  },
  { label: "task list, first page", handler: api("task-list"), url: () => "/api/task-list?limit=50" },
  {
    label: "task list `sort=-updated_at`",
    handler: api("task-list"),
    url: () => "/api/task-list?limit=50&sort=-updated_at",
  },
  {
    label: "task list, a page in the middle (cursor)",
    handler: api("task-list"),
    url: (s) => `/api/task-list?limit=50&cursor=${s.midCursor}`,
  },
  { label: "task list `q=Laval`", handler: api("task-list"), url: () => "/api/task-list?limit=50&q=Laval" },
  { label: "analytics `agents`", handler: api("analytics"), url: () => "/api/analytics?action=agents" },
  { label: "analytics `dashboard`", handler: api("analytics"), url: () => "/api/analytics?action=dashboard" },
  {
    label: "analytics `org` (largest organisation)",
    handler: api("analytics"),
    url: (s) => `/api/analytics?action=org&org_id=${s.bigOrg}`,
  },
  {
    label: "CSV export, largest organisation, 30 days of activity",
    handler: api("analytics"),
    url: (s) => `/api/analytics?action=export&org_id=${s.bigOrg}&dataset=activity&format=csv`,
    export: true,
  },
];

function envInt(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** Seeds `tasks` tasks and `activity` activity rows (see the module comment). */
export async function seed(
  db: Awaited<ReturnType<typeof openPg>>["db"],
  tasks: number,
  activity: number,
): Promise<void> {
  await db.execute(sql`
    insert into api_keys (id, name, contact, key_hash, key_hint, scopes, created_at)
    select 'key_scale_' || g, 'scale ' || g, 'agent' || g || '@example.com', 'h' || g, 'x' || g,
           '{task_create}'::text[], now() - interval '400 days'
    from generate_series(1, 2000) g`);
  await db.execute(sql`
    insert into tasks (id, service_type, status, location_address, task_description, requester_contact,
                       urgency, api_key_id, org_id, agent_identity, estimate_cad, price_cad, review_deadline,
                       execution_deadline, created_at, updated_at, paid_at, completed_at, payment_method)
    select 'TASK-SCALE-' || g,
           'SVC-0' || (1 + g % 5),
           case when g % 500 = 0 then 'received' when g % 100 < 81 then 'completed' when g % 100 < 88 then 'cancelled'
                when g % 100 < 94 then 'payment_expired' when g % 100 < 97 then 'rejected' else 'failed' end,
           (g % 900) || ' rue Principale, ' || (array['Laval','Montréal','Terrebonne','Longueuil','Repentigny'])[1 + g % 5],
           'Photograph the storefront number ' || g, 'agent' || (1 + g % 2000) || '@example.com',
           case when g % 10 = 0 then 'urgent' else 'standard' end,
           'key_scale_' || (1 + g % 2000), 'org-' || (1 + (g * 7) % 200), 'model/agent' || (g % 50) || '/org-' || (1 + (g * 7) % 200),
           100 + g % 300, 100 + g % 300,
           t.at + interval '24 hours', t.at + interval '72 hours', t.at, t.at + interval '2 days',
           case when g % 100 < 81 then t.at + interval '3 hours' end,
           case when g % 100 < 81 then t.at + interval '2 days' end,
           case when g % 100 < 81 then 'usdc' end
    from generate_series(1, ${tasks}::int) g,
         lateral (select now() - (interval '365 days') * (g::float / ${tasks}::int) as at) t`);
  await db.execute(sql`
    insert into activity_log (at, request_id, api_key_id, ip, method, endpoint, status, latency_ms, agent_model, agent_name, org_id, identity_valid)
    select now() - (interval '30 days') * (g::float / ${activity}::int), 'req_scale_' || g, 'key_scale_' || (1 + g % 2000),
           '10.0.' || (g % 250) || '.' || (g % 200), case when g % 3 = 0 then 'POST' else 'GET' end,
           (array['/api/submit-task','/api/estimate','/api/services','/api/status'])[1 + g % 4],
           case when g % 50 = 0 then 429 else 200 end, 5 + g % 40, 'model', 'agent' || (g % 50),
           'org-' || (case when g % 100 < 7 then 1 else 1 + (g * 7) % 200 end), true
    from generate_series(1, ${activity}::int) g`);
  // What autovacuum does to a table after many inserts (PostgreSQL 13+): statistics, and the
  // visibility map that lets index-only scans skip the heap.
  await db.execute(sql`vacuum analyze`);
}

/** Samples `call` on the current database: `count` timings (ms) after 3 warm-ups, and the last status. */
async function sampleCall(
  call: Call,
  seedData: Seed,
  admin: string,
  count: number,
): Promise<{ ms: number[]; status: number }> {
  const handler = await call.handler();
  const once = async () => {
    const started = performance.now();
    const res = await handler(
      new Request(`http://127.0.0.1${call.url(seedData)}`, { headers: { "x-api-key": admin } }),
    );
    // Read to the last byte without keeping it: the RSS measured is the server side's.
    const reader = res.body?.getReader();
    while (reader && !(await reader.read()).done) {}
    return { ms: performance.now() - started, status: res.status };
  };
  for (let i = 0; i < 3; i++) await once();
  const ms: number[] = [];
  let status = 0;
  for (let i = 0; i < count; i++) {
    const sample = await once();
    ms.push(sample.ms);
    status = sample.status;
  }
  return { ms, status };
}

/** Median and p95 of `samples` (ms). */
function timingOf(samples: number[], status: number): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { medianMs: at(0.5), p95Ms: at(0.95), status };
}

/** A seeded scratch database, open, with its admin key and the seed's sample values. */
interface SizeDb {
  label: string;
  tasks: number;
  activity: number;
  seedSec: number;
  scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  seeder: Awaited<ReturnType<typeof openPg>>;
  handle: Awaited<ReturnType<typeof openPg>>;
  admin: string;
  seedData: Seed;
}

interface SizeResult {
  label: string;
  tasks: number;
  activity: number;
  seedSec: number;
  timings: Timing[];
  exportRssMb: number;
  purge: { rows: number; ms: number };
}

/** Makes `handle` the calls' database: the activity rows still queued go to the previous one first. */
async function use(handle: SizeDb["handle"] | undefined): Promise<void> {
  await flushActivity();
  setDatabase(handle);
}

/** Creates, seeds and opens the scratch database of one size (see the module comment). */
async function prepareSize(
  ctx: BenchContext,
  pgAdmin: string,
  label: string,
  tasks: number,
  activity: number,
): Promise<SizeDb> {
  const scratch = await createScratchDatabase(pgAdmin, "ptes_scale");
  ctx.log(
    `scale: ${label}: scratch database ${scratch.name}; seeding ${num(tasks)} tasks, ${num(activity)} activity rows`,
  );
  // Seeding runs statements far past the service's query bound: a pool without one.
  const seeder = await openPg(scratch.url, 2, { queryTimeoutMs: 0 });
  const handle = await openPg(scratch.url, 10);
  await use(handle);
  const seedStart = performance.now();
  // The seeded 30 days span this month and the previous one (partitions the job makes ahead).
  await ensureActivityPartitions(new Date(), { monthsBack: 1 });
  await seed(seeder.db, tasks, activity);
  const seedSec = (performance.now() - seedStart) / 1000;
  ctx.log(`scale: ${label}: seeded in ${num(seedSec, 1)} s`);
  const { createApiKey } = await import("../../lib/keys/create-api-key.js");
  const admin = (
    await createApiKey({
      name: "scale bench",
      contact: "bench@example.com",
      scopes: ["admin"],
      trusted: true,
      ip: "host",
    })
  ).api_key;
  const mid = `TASK-SCALE-${Math.floor(tasks / 2)}`;
  const result = await seeder.db.execute(
    sql`select ${timestampText(taskTable.createdAt)} as at from ${taskTable} where ${taskTable.id} = ${mid}`,
  );
  const [{ at }] = rowsOf<{ at: string }>(result) as [{ at: string }];
  const seedData: Seed = {
    sampleTaskId: `TASK-SCALE-${Math.max(1, tasks - 7)}`,
    midCursor: Buffer.from(JSON.stringify(["-created_at", at, mid])).toString("base64url"),
    bigOrg: "org-1",
  };
  return { label, tasks, activity, seedSec, scratch, seeder, handle, admin, seedData };
}

/** The retention purge of one day of activity on `db` (module comment): rows deleted and ms taken. */
async function purgeOneDay(ctx: BenchContext, db: SizeDb): Promise<{ rows: number; ms: number }> {
  await use(db.handle);
  const { purgeExpiredPersonalData } = await import("../../lib/privacy/retention.js");
  const purgeStart = performance.now();
  // A retention of 29 days from now: one day of the seeded 30 goes, in batches.
  process.env.ACTIVITY_LOG_RETENTION_DAYS = "29";
  resetConfig();
  try {
    const purged = await purgeExpiredPersonalData(new Date(), { budgetMs: 120_000 });
    ctx.log(`scale: ${db.label}: purge dropped ${purged.partitions_dropped} monthly partition(s)`);
    return { rows: purged.activity_rows_deleted, ms: performance.now() - purgeStart };
  } finally {
    delete process.env.ACTIVITY_LOG_RETENTION_DAYS;
    resetConfig();
  }
}

/** Closes `db`'s pools and drops its scratch database. */
async function closeAndDrop(db: SizeDb): Promise<void> {
  // The last calls' activity rows are still queued (50 ms): written into their database, not
  // into a default database the batcher would open once this one is forgotten.
  await use(undefined);
  await db.handle.close();
  await db.seeder.close();
  await db.scratch.drop();
}

/**
 * Times every call on both databases in alternated rounds (small, large, small, large), so that
 * what else the machine does weighs on both sizes alike: `runs` samples per call and size.
 */
async function measureBoth(
  ctx: BenchContext,
  small: SizeDb,
  large: SizeDb,
  runs: number,
): Promise<{ small: SizeResult; large: SizeResult }> {
  const results = [small, large].map(
    (db): SizeResult => ({
      label: db.label,
      tasks: db.tasks,
      activity: db.activity,
      seedSec: db.seedSec,
      timings: [],
      exportRssMb: 0,
      purge: { rows: 0, ms: 0 },
    }),
  ) as [SizeResult, SizeResult];
  const rounds = 2;
  for (const call of CALLS) {
    const count = Math.max(1, Math.ceil((call.export ? Math.min(runs, 3) : runs) / rounds));
    const samples: [number[], number[]] = [[], []];
    const statuses = [0, 0];
    for (let round = 0; round < rounds; round++) {
      for (const [i, db] of [small, large].entries()) {
        await use(db.handle);
        const before = process.memoryUsage().rss;
        const sampled = await sampleCall(call, db.seedData, db.admin, count);
        if (call.export) {
          const growth = Math.max(0, (process.memoryUsage().rss - before) / 1024 / 1024);
          results[i]!.exportRssMb = Math.max(results[i]!.exportRssMb, growth);
        }
        samples[i]!.push(...sampled.ms);
        statuses[i] = sampled.status;
      }
    }
    for (const i of [0, 1]) results[i]!.timings.push(timingOf(samples[i]!, statuses[i]!));
    ctx.log(
      `scale: ${call.label}: ${num(results[0].timings.at(-1)!.medianMs, 1)} ms small, ${num(results[1].timings.at(-1)!.medianMs, 1)} ms large`,
    );
  }
  return { small: results[0], large: results[1] };
}

async function run(ctx: BenchContext): Promise<Section> {
  // One admin key calls everything here, hundreds of times a minute: the per-key and per-IP
  // limits would answer 429 instead of the read being measured.
  process.env.RATE_LIMIT_KEY_PER_MIN = "1000000";
  process.env.RATE_LIMIT_ANON_PER_MIN = "1000000";
  resetConfig();
  const pgAdmin = process.env.BENCH_PG_URL?.trim() || DEFAULT_PG_URL;
  const runs = envInt("BENCH_SCALE_RUNS", 40);
  const bigTasks = envInt("BENCH_SCALE_TASKS", 1_000_000);
  const bigActivity = envInt("BENCH_SCALE_ACTIVITY", 10_000_000);
  const dbs: SizeDb[] = [];
  try {
    dbs.push(await prepareSize(ctx, pgAdmin, "small", 1_000, 10_000));
    dbs.push(await prepareSize(ctx, pgAdmin, "large", bigTasks, bigActivity));
    const { small, large } = await measureBoth(ctx, dbs[0]!, dbs[1]!, runs);
    small.purge = await purgeOneDay(ctx, dbs[0]!);
    large.purge = await purgeOneDay(ctx, dbs[1]!);
    return report(small, large);
  } finally {
    for (const db of dbs) await closeAndDrop(db);
  }
}

/** The section: the table of both sizes, the seed, the export's memory, the purge, the goals. */
function report(small: SizeResult, big: SizeResult): Section {
  const rows = CALLS.map((call, i) => {
    const a = small.timings[i]!;
    const b = big.timings[i]!;
    const growth = b.medianMs / Math.max(a.medianMs, 0.1);
    const ok = call.export
      ? b.status === 200
      : b.medianMs <= SCALE_GOAL_MEDIAN_MS && growth <= SCALE_GOAL_GROWTH && b.status === 200;
    return [
      call.label,
      `${num(a.medianMs, 1)} (${a.status})`,
      `${num(b.medianMs, 1)} / ${num(b.p95Ms, 1)} (${b.status})`,
      `${num(growth, 1)}×`,
      call.export ? "streams" : ok ? "PASS" : "FAIL",
    ];
  });
  const body = [
    table(
      [
        "call",
        `${num(small.tasks)} tasks: median ms (status)`,
        `${num(big.tasks)} tasks: median / p95 ms (status)`,
        "growth",
        "goal",
      ],
      rows,
      ["left", "right", "right", "right", "left"],
    ),
    "",
    `Seeding: ${num(big.tasks)} tasks and ${num(big.activity)} activity rows in ${num(big.seedSec, 0)} s (SQL, \`generate_series\`).`,
    `CSV export at the large size: peak RSS growth ${num(big.exportRssMb, 0)} MB while streaming.`,
    `Retention: ${num(big.purge.rows)} activity rows (one day) deleted in ${num(big.purge.ms / 1000, 1)} s in batches ` +
      `(${num(big.purge.rows / Math.max(big.purge.ms / 1000, 0.001))} rows/s).`,
    "",
    `Goals: every call ≤ ${SCALE_GOAL_MEDIAN_MS} ms median at the large size except exports, and no more than ` +
      `${SCALE_GOAL_GROWTH}× the small size's median; exports stream.`,
  ].join("\n");
  return {
    name: "scale",
    title: "Scale: reads at 1,000 and 1,000,000 tasks",
    command: `BENCH_SCALE_TASKS=${big.tasks} BENCH_SCALE_ACTIVITY=${big.activity} npm run bench -- scale`,
    body,
  };
}

export const scaleBenchmark: Benchmark = {
  name: "scale",
  title: "Scale: reads at 1,000 and 1,000,000 tasks",
  description:
    "reads that grow with history at 1k and 1M tasks / 10M activity rows (PostgreSQL, seeded by SQL)",
  run,
};

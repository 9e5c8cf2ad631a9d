/**
 * The platform health object of GET /api/status (spec "Platform status object"),
 * from real checks: a timed database round trip, the payment checker's last run as
 * stored in `job_runs`, and queue counts from the tasks table (sandbox excluded).
 *
 * Payment checker: `never_run` (no run recorded), `healthy` (last run ok and at most
 * CHECKER_STALE_MINUTES ago), `degraded` (last run failed, recently), `stale` (last run
 * older than that), `unavailable` (storage unreachable).
 * x402 relayer (when x402 settles with X402_RELAYER_PRIVATE_KEY; docs/x402.md): its ETH balance
 * per network, `degraded` below X402_RELAYER_MIN_BALANCE_ETH, `unavailable` when the RPC does not
 * answer within STORAGE_TIMEOUT_MS (viem is imported then, not with this module).
 * Overall: `partial_outage` when storage is down; `degraded` when the checker is
 * degraded or stale, when the relayer is short of gas or unreachable, or when the production
 * profile runs without e-mail (MAIL_DISABLED=true); otherwise `operational`.
 */
import type { z } from "zod";
import { getConfig, productionProfile } from "../config.js";
import { type Db, getDb } from "../db/client.js";
import { configuredNetworkNames } from "../payments/networks.js";
import type { platformStatusSchema } from "./descriptors/schemas.js";

/** Minutes after which the every-minute payment checker counts as stale. */
export const CHECKER_STALE_MINUTES = 5;
/** The database check gives up after this many ms. */
export const STORAGE_TIMEOUT_MS = 3000;

export type PlatformStatus = z.output<typeof platformStatusSchema>;
type CheckerStatus = PlatformStatus["services"]["payment_checker"]["status"];

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`storage check timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The queue-count query of the status object at `now` (not run): per-group counts and the average
 * wait (seconds) of `received` tasks, over the active non-sandbox tasks only, so that PostgreSQL
 * reads the partial index `tasks_active_status_created_at_idx` (issue 32 item 2). Exported for the
 * test that checks its plan (tests/system/status.test.ts).
 * @param db the database to build it on (default: the process database)
 * @returns `{ query }`, wrapped: an awaited drizzle query would run
 */
export async function queueCountsQuery(now: Date, db?: Db) {
  // Imported per read rather than with the module (cached by the module loader after the first):
  // drizzle-orm and the table definitions stay out of the function's cold start (docs/performance.md).
  const [{ sql }, { ACTIVE_NON_SANDBOX_TASK, tasks }] = await Promise.all([
    import("drizzle-orm"),
    import("../db/schema/index.js"),
  ]);
  const query = (db ?? (await getDb()))
    .select({
      pending_review: sql<number>`count(*) filter (where ${tasks.status} = 'received')`.mapWith(Number),
      pending_payment:
        sql<number>`count(*) filter (where ${tasks.status} in ('accepted_pending_payment', 'counter_offered'))`.mapWith(
          Number,
        ),
      in_progress:
        sql<number>`count(*) filter (where ${tasks.status} in ('paid', 'dispatched', 'on_site'))`.mapWith(
          Number,
        ),
      avg_wait_seconds: sql<
        number | null
      >`avg(extract(epoch from (${now.toISOString()}::timestamptz - ${tasks.createdAt}))) filter (where ${tasks.status} = 'received')`.mapWith(
        (v) => (v === null ? null : Number(v)),
      ),
    })
    .from(tasks)
    .where(ACTIVE_NON_SANDBOX_TASK);
  return { query };
}

async function readStorage(now: Date) {
  const [{ eq, sql }, { jobRuns }, { recentAlertIssues }] = await Promise.all([
    import("drizzle-orm"),
    import("../db/schema/index.js"),
    import("../activity/volume-alert.js"),
  ]);
  const db = await getDb();
  const started = performance.now();
  await db.execute(sql`select 1`);
  const latency = Math.round(performance.now() - started);
  const [queue] = await (await queueCountsQuery(now, db)).query;
  const [checker] = await db.select().from(jobRuns).where(eq(jobRuns.job, "check-payments"));
  const alerts = await recentAlertIssues(24, now);
  return { latency, queue: queue!, checker, alerts };
}

/**
 * The x402 relayer's ETH per configured network, or undefined when x402 does not settle with a
 * relayer (off, or through a facilitator). Never throws: an RPC that fails is `unavailable`.
 */
async function relayerStatus(): Promise<PlatformStatus["services"]["x402_relayer"]> {
  const config = getConfig();
  if (!config.X402_RELAYER_PRIVATE_KEY || config.X402_FACILITATOR_URL) return undefined;
  const [{ x402Enabled }, { networkConfigs }, settler, { formatEther, parseEther }] = await Promise.all([
    import("../payments/x402/protocol.js"),
    import("../payments/networks.js"),
    import("../payments/x402/settler.js"),
    import("viem"),
  ]);
  if (!x402Enabled(config)) return undefined;
  const floor = parseEther(String(config.X402_RELAYER_MIN_BALANCE_ETH));
  const networks = await Promise.all(
    networkConfigs(config).map(async (net) => {
      try {
        const wei = (await withTimeout(settler.relayerBalance(net, config), STORAGE_TIMEOUT_MS)) ?? 0n;
        return {
          network: net.name,
          balance_eth: formatEther(wei),
          status: wei < floor ? ("degraded" as const) : ("healthy" as const),
        };
      } catch {
        return { network: net.name, balance_eth: null, status: "unavailable" as const };
      }
    }),
  );
  const status = networks.some((n) => n.status === "unavailable")
    ? "unavailable"
    : networks.some((n) => n.status === "degraded")
      ? "degraded"
      : "healthy";
  return { status, address: (await settler.relayerAddress(config)) ?? "", networks };
}

/** Runs the checks and builds the status object. Never throws for a storage failure. */
export async function getPlatformStatus(now: Date = new Date()): Promise<PlatformStatus> {
  const started = performance.now();
  const issues: string[] = [];
  let storage: PlatformStatus["services"]["storage"] = "operational";
  let checker: PlatformStatus["services"]["payment_checker"] = {
    status: "unavailable",
    last_run_at: null,
    minutes_ago: null,
    pending_checked: null,
  };
  let queue: PlatformStatus["queue"] = {
    pending_review: 0,
    pending_payment: 0,
    in_progress: 0,
    total_active: 0,
    avg_wait_minutes: null,
  };
  let latency: number | undefined;
  try {
    const read = await withTimeout(readStorage(now), STORAGE_TIMEOUT_MS);
    latency = read.latency;
    const q = read.queue;
    queue = {
      pending_review: q.pending_review,
      pending_payment: q.pending_payment,
      in_progress: q.in_progress,
      total_active: q.pending_review + q.pending_payment + q.in_progress,
      avg_wait_minutes: q.avg_wait_seconds === null ? null : Math.round(q.avg_wait_seconds / 60),
    };
    issues.push(...read.alerts);
    const run = read.checker;
    if (!run?.lastRunAt) {
      checker = { status: "never_run", last_run_at: null, minutes_ago: null, pending_checked: null };
    } else {
      const minutesAgo = Math.max(0, Math.floor((now.getTime() - run.lastRunAt.getTime()) / 60_000));
      const pending = run.details?.pending_checked;
      let status: CheckerStatus = run.lastStatus === "ok" ? "healthy" : "degraded";
      if (minutesAgo > CHECKER_STALE_MINUTES) status = "stale";
      checker = {
        status,
        last_run_at: run.lastRunAt.toISOString(),
        minutes_ago: minutesAgo,
        pending_checked: typeof pending === "number" ? pending : null,
      };
      if (status === "degraded")
        issues.push(`Payment checker's last run failed: ${run.lastError ?? "unknown error"}`);
      if (status === "stale") issues.push(`Payment checker has not run for ${minutesAgo} minutes`);
    }
  } catch (error) {
    storage = "down";
    issues.push(`Storage unreachable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const relayer = await relayerStatus();
  if (relayer && relayer.status !== "healthy") {
    issues.push(
      `x402 relayer ${relayer.status} on ${relayer.networks
        .filter((n) => n.status !== "healthy")
        .map((n) => `${n.network} (${n.balance_eth === null ? "RPC unreachable" : `${n.balance_eth} ETH`})`)
        .join(", ")}: x402 payments may fail; plain USDC transfers still work`,
    );
  }
  const config = getConfig();
  const mailOff = config.MAIL_DISABLED && !config.RESEND_API_KEY && productionProfile(config).active;
  if (mailOff) {
    issues.push(
      "E-mail is disabled (MAIL_DISABLED=true): verification codes, password resets and task e-mails are not sent",
    );
  }
  const overall: PlatformStatus["status"] =
    storage === "down"
      ? "partial_outage"
      : checker.status === "degraded" ||
          checker.status === "stale" ||
          mailOff ||
          (relayer && relayer.status !== "healthy")
        ? "degraded"
        : "operational";
  const suggested_action =
    overall === "operational"
      ? "All systems operational; submit tasks normally."
      : overall === "degraded"
        ? mailOff && checker.status !== "degraded" && checker.status !== "stale"
          ? "Submissions and payments work; no e-mail is sent: poll task status and use webhooks for updates."
          : "Submissions work; on-chain payments may be confirmed late. Poll task status and honour Retry-After."
        : "Storage is unavailable; retry in a minute. Submissions and status reads will fail with 503 STORAGE_ERROR.";
  return {
    status: overall,
    timestamp: now.toISOString(),
    latency_ms: latency ?? Math.round(performance.now() - started),
    services: {
      api: "operational",
      storage,
      payment_checker: checker,
      ...(relayer ? { x402_relayer: relayer } : {}),
    },
    blockchain: { networks: configuredNetworkNames(), payment_currency: "USDC" },
    queue,
    issues: issues.length ? issues : null,
    suggested_action,
  };
}

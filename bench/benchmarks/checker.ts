/**
 * `checker`: one payment-checker run over 10,000 open tasks and 10,000 USDC transfer
 * logs on a real local chain (Hardhat in-process, TestUSDC; scripts/dev/local-chain.ts),
 * on the embedded database (PGlite on a fresh data directory, as `npm start` runs it) and on PostgreSQL (a scratch database on
 * `BENCH_PG_URL`'s server, default the local one; `BENCH_PG_URL=skip` leaves it out).
 *
 * Setup (not timed): the payer sends `BENCH_CHECKER_MATCHED` (default 9,000) exact payments
 * and the rest (to 10,000 logs) wrong amounts, 500 Transfer logs per transaction
 * (`batchTransfer`). Then, per database: 10,000 tasks awaiting payment with the paid
 * amounts are inserted, and two checker runs are measured: the first (every log new: 9,000
 * tasks paid through the state machine, 1,000 transfers kept as unmatched) and a second over
 * the same blocks (nothing new). Checker time = wall time − time waiting for the RPC node
 * (`rpc_ms`, reported apart).
 *
 * Goal (issue #5): ≤ 2 s of checker time for the first run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createScratchDatabase } from "../../lib/db/scratch-database.js";
import { num, table } from "../lib/report.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";
import { DEFAULT_PG_URL } from "./tasks.js";

/** Goal: checker time of one run, ms. */
export const CHECKER_GOAL_MS = 2000;
const TASKS = 10_000;
const LOGS = 10_000;
const PER_TX = 500;

interface RunFigures {
  seen: number;
  matched: number;
  unmatched: number;
  wallMs: number;
  rpcMs: number;
  ownMs: number;
}

interface BackendFigures {
  label: string;
  first: RunFigures;
  second: RunFigures;
  paid: number;
  stored: number;
}

const amountOf = (i: number) => 50_000_000n + BigInt(i) * 7919n;

/** Inserts the tasks on the database `env` selects, runs the checker twice, reports. */
async function measure(
  ctx: BenchContext,
  label: string,
  env: Record<string, string | undefined>,
): Promise<BackendFigures> {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const { resetConfig } = await import("../../lib/config.js");
  resetConfig();
  const { getDatabase, getDb, closeDatabase } = await import("../../lib/db/client.js");
  const { tasks, chainTransfers } = await import("../../lib/db/schema/index.js");
  const { checkPayments } = await import("../../lib/jobs/check-payments.js");
  const { sql, eq } = await import("drizzle-orm");
  const database = await getDatabase();
  const db = await getDb();
  try {
    ctx.log(`checker: inserting ${TASKS} tasks awaiting payment (${database.driver})`);
    const now = Date.now();
    for (let i = 0; i < TASKS; i += 1000) {
      await db.insert(tasks).values(
        Array.from({ length: Math.min(1000, TASKS - i) }, (_, k) => ({
          id: `TASK-BENCH-${i + k}`,
          serviceType: "SVC-01" as const,
          status: (i + k) % 2 ? ("counter_offered" as const) : ("accepted_pending_payment" as const),
          locationAddress: "Laval",
          taskDescription: "Benchmark task",
          requesterContact: "bench@example.com",
          reviewDeadline: new Date(now + 86_400_000),
          executionDeadline: new Date(now + 3 * 86_400_000),
          priceCad: 100,
          paymentMethod: "usdc" as const,
          paymentUsdcMicro: amountOf(i + k),
          paymentExpiresAt: new Date(now + 48 * 3_600_000),
        })),
      );
    }
    const once = async (what: string): Promise<RunFigures> => {
      ctx.log(`checker: ${what} run (${database.driver})`);
      const t = performance.now();
      const outcome = await checkPayments();
      const wallMs = performance.now() - t;
      if (!outcome.ok) throw new Error(`checker failed: ${outcome.error}`);
      const d = outcome.details as Record<string, number>;
      return {
        seen: d.transfers_seen!,
        matched: d.matched!,
        unmatched: d.unmatched!,
        wallMs,
        rpcMs: d.rpc_ms!,
        ownMs: wallMs - d.rpc_ms!,
      };
    };
    const first = await once("first");
    const second = await once("second");
    const [paid] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(tasks)
      .where(eq(tasks.status, "paid"));
    const [stored] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(chainTransfers);
    return { label, first, second, paid: paid?.n ?? 0, stored: stored?.n ?? 0 };
  } finally {
    await closeDatabase();
  }
}

async function run(ctx: BenchContext): Promise<Section> {
  const matchedWanted = Math.min(LOGS, Number(process.env.BENCH_CHECKER_MATCHED ?? 9000));
  const wallet = "0x00000000000000000000000000000000be4c4000";
  const pgAdmin = process.env.BENCH_PG_URL?.trim() || DEFAULT_PG_URL;
  const { startLocalChain, ACCOUNTS } = await import("../../scripts/dev/local-chain.js");
  ctx.log("checker: starting the local chain and deploying TestUSDC");
  const chain = await startLocalChain(31337);
  const results: BackendFigures[] = [];
  let pgSkipped: string | undefined;
  let sendMs = 0;
  try {
    const token = await chain.deployToken();
    await chain.mint(token, ACCOUNTS.payer, 10n ** 15n);
    Object.assign(process.env, {
      ETHEREUM_RPC_URL: chain.url,
      ETHEREUM_CHAIN_ID: "31337",
      ETHEREUM_USDC_CONTRACT: token,
      ETHEREUM_WALLET: wallet,
      ETHEREUM_CONFIRMATIONS: "1",
      ETHEREUM_START_BLOCK: "0",
      BASE_RPC_URL: "",
      BASE_WALLET: "",
      CHECKER_MAX_BLOCKS_PER_RUN: "100000",
      // The outbox (webhooks, e-mails) is its own job: keep its background passes out of the timing.
      OUTBOX_KICK: "false",
    });
    ctx.log(`checker: sending ${LOGS} transfers (${matchedWanted} exact), ${PER_TX} per transaction`);
    const amounts = Array.from({ length: LOGS }, (_, i) =>
      i < matchedWanted ? amountOf(i) : 1_000_000n + BigInt(i),
    );
    const chainStarted = performance.now();
    for (let i = 0; i < LOGS; i += PER_TX) {
      await chain.batchTransfer(token, ACCOUNTS.payer, wallet, amounts.slice(i, i + PER_TX));
    }
    sendMs = performance.now() - chainStarted;

    // The embedded default of `npm start`: PGlite on a data directory (a fresh one, removed after).
    const dataDir = mkdtempSync(path.join(tmpdir(), "ptes-bench-checker-"));
    try {
      results.push(
        await measure(ctx, "embedded (PGlite, data directory)", {
          DATABASE_URL: undefined,
          DATA_DIR: dataDir,
        }),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    if (pgAdmin === "skip") pgSkipped = "BENCH_PG_URL=skip";
    else {
      let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
      try {
        scratch = await createScratchDatabase(pgAdmin, "ptes_bench");
      } catch (error) {
        pgSkipped = `no PostgreSQL at ${new URL(pgAdmin).host} (${error instanceof Error ? error.message : String(error)})`;
        ctx.log(`checker: PostgreSQL skipped: ${pgSkipped}`);
      }
      if (scratch) {
        try {
          results.push(await measure(ctx, "PostgreSQL (node-postgres)", { DATABASE_URL: scratch.url }));
        } finally {
          await scratch.drop();
        }
      }
    }
  } finally {
    await chain.close();
  }

  const rows = results.flatMap((r) =>
    (
      [
        ["first (all new)", r.first],
        ["second (same blocks)", r.second],
      ] as const
    ).map(([what, f]) => [
      r.label,
      what,
      num(f.seen),
      num(f.matched),
      num(f.unmatched),
      num(f.wallMs),
      num(f.rpcMs),
      num(f.ownMs),
    ]),
  );
  const verdicts = results.map(
    (r) => `${r.label}: **${r.first.ownMs <= CHECKER_GOAL_MS ? "PASS" : "FAIL"}** (${num(r.first.ownMs)} ms)`,
  );
  const body = [
    `${TASKS.toLocaleString("en-US")} open tasks, ${LOGS.toLocaleString("en-US")} Transfer logs ` +
      `(${matchedWanted.toLocaleString("en-US")} exact payments) in ${LOGS / PER_TX} transactions on a local Hardhat chain ` +
      `(putting them on chain took ${num(sendMs / 1000, 1)} s, not measured); the same logs are checked against each database.`,
    "",
    table(["Database", "Run", "Logs seen", "Matched", "Unmatched", "Wall ms", "RPC ms", "Checker ms"], rows),
    "",
    results
      .map(
        (r) =>
          `${r.label}: tasks paid ${num(r.paid)}; transfer rows ${num(r.stored)} (the second run added none).`,
      )
      .join(" "),
    ...(pgSkipped ? ["", `PostgreSQL not measured: ${pgSkipped}.`] : []),
    "",
    `Goal: checker time (wall − RPC) of one run over 10,000 tasks and 10,000 logs ≤ ${num(CHECKER_GOAL_MS)} ms — ` +
      `${verdicts.join("; ")}.`,
    "",
    "- Matched logs are paid in batches of `CHECKER_PAY_BATCH` (1,000) through the state machine's batch path " +
      "(`applyTransitionBatch`: one transaction per batch; the tasks locked `FOR UPDATE` in id order and " +
      "checked against the transition table; one `UPDATE … FROM jsonb_to_recordset(…)`; the `task.paid` events and " +
      "the `matched` transfer rows written with one multi-row statement each). Two batches run at once on separate " +
      "connections on PostgreSQL; PGlite, one connection in the same thread, runs them one after another. " +
      "Unmatched logs are inserted the same way.",
    "- The second run re-reads the re-scan window (`CHECKER_RESCAN_BLOCKS`) and finds every log already stored.",
  ].join("\n");
  return {
    name: "checker",
    title: "Payment checker: 10,000 tasks × 10,000 transfers",
    command: "npm run bench -- checker",
    body,
  };
}

export const checkerBenchmark: Benchmark = {
  name: "checker",
  title: "Payment checker: 10,000 tasks × 10,000 transfers",
  description:
    "one payment-checker run over 10,000 open tasks and 10,000 logs on a local chain, PGlite and PostgreSQL",
  run,
};

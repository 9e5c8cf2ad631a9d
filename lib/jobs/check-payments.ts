/**
 * The payment checker's run (api/cron/check-payments, every minute; docs/payments.md "Payments"):
 * counts the tasks awaiting payment (`pending_checked`, shown by /api/status), then scans
 * every configured network once (lib/payments/scan-network.ts), records the matches it
 * finds as payments (the task state layer's `recordPayments`, handed to the scan: one
 * transaction per batch, with the transfer rows) and records the run in `job_runs`.
 *
 * A network whose RPC fails, times out or answers garbage keeps its cursor; the other
 * networks are still scanned, and the run is recorded as an error (so /api/status shows
 * the checker `degraded`) with its details. Details: `pending_checked`,
 * `networks_scanned`, `transfers_seen`, `matched`, `unmatched`, `late`, `reorged`,
 * `rpc_ms`, per-network results and `errors`.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { OPEN_PAYMENT_STATUSES } from "../db/schema/enums.js";
import { tasks } from "../db/schema/index.js";
import { networkConfigs } from "../payments/networks.js";
import { type NetworkScanResult, scanNetwork } from "../payments/scan-network.js";
import { recordPayments } from "../tasks/state/record-payment.js";
import { JobError, type JobResult, runJob } from "./run-job.js";

/** Runs the checker once. Never throws for a network failure: it is recorded (ok=false). */
export function checkPayments(): Promise<JobResult> {
  return runJob("check-payments", async () => {
    const config = getConfig();
    const db = await getDb();
    const [row] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(tasks)
      .where(and(eq(tasks.sandbox, false), inArray(tasks.status, [...OPEN_PAYMENT_STATUSES])));
    const limits = {
      blockRange: config.CHECKER_BLOCK_RANGE,
      maxBlocksPerRun: config.CHECKER_MAX_BLOCKS_PER_RUN,
      rescanBlocks: config.CHECKER_RESCAN_BLOCKS,
      payBatch: config.CHECKER_PAY_BATCH,
    };
    const networks: NetworkScanResult[] = [];
    const errors: { network: string; error: string }[] = [];
    for (const net of networkConfigs(config)) {
      try {
        networks.push(await scanNetwork(net, limits, recordPayments));
      } catch (error) {
        errors.push({ network: net.name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    const sum = (k: "transfers_seen" | "matched" | "unmatched" | "late" | "reorged" | "rpc_ms") =>
      networks.reduce((n, r) => n + r[k], 0);
    const details = {
      pending_checked: row?.n ?? 0,
      networks_scanned: networks.length,
      transfers_seen: sum("transfers_seen"),
      matched: sum("matched"),
      unmatched: sum("unmatched"),
      late: sum("late"),
      reorged: sum("reorged"),
      rpc_ms: sum("rpc_ms"),
      networks,
      errors,
    };
    if (errors.length) {
      throw new JobError(errors.map((e) => `${e.network}: ${e.error.split("\n")[0]}`).join("; "), details);
    }
    return details;
  });
}

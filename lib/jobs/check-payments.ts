/**
 * The payment checker's run (api/cron/check-payments, every minute). It records how
 * many tasks await payment (`pending_checked`, shown by /api/status). Scanning the
 * chains for USDC transfers is added by the payments work; until then
 * `networks_scanned` is 0 and nothing is matched.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { tasks } from "../db/schema/index.js";
import { type JobResult, runJob } from "./run-job.js";

/** Runs the checker once. */
export function checkPayments(): Promise<JobResult> {
  return runJob("check-payments", async () => {
    const db = await getDb();
    const [row] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(tasks)
      .where(
        and(eq(tasks.sandbox, false), inArray(tasks.status, ["accepted_pending_payment", "counter_offered"])),
      );
    return { pending_checked: row?.n ?? 0, networks_scanned: 0, matched: 0 };
  });
}

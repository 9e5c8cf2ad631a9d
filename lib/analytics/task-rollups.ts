/**
 * Housekeeping of the task roll-ups' append-only counters (`tasks_paid_daily`,
 * `tasks_created_daily`, `tasks_org_daily`; lib/db/schema/task-rollups.ts, docs/decisions.md 23):
 * every change to the tasks appends signed rows, which readers sum; folding each key's rows into one
 * keeps what they sum small.
 */
import { sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { rowsOf } from "../db/rows.js";

/**
 * Folds the appended rows of each counter key into one row and drops keys that sum to 0, through
 * the database function `task_rollup_compact` (migration 0029_task_rollup_triggers). The sums the
 * analytics read do not change; rows appended meanwhile stay for the next run. Run by the
 * expire-payments job every 5 minutes.
 * @returns the appended rows folded (0 when nothing changed since the last run)
 */
export async function compactTaskRollups(): Promise<number> {
  const db = await getDb();
  const [row] = rowsOf<{ appended: number }>(await db.execute(sql`select task_rollup_compact() as appended`));
  return Number(row?.appended ?? 0);
}

/**
 * The only trace of a refused submission: a counter per UTC day, rules version and reason code
 * (`policy_counters`), next to the activity log's row of the request (HTTP status 422). The
 * refused text itself is never stored.
 */
import { sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { policyCounters } from "../db/schema/index.js";

/**
 * Adds one refusal for each of `reasonCodes` under rules `version`, on the UTC day of `now`.
 * One statement (insert, or add one on conflict), so concurrent refusals never lose a count.
 * @throws the database's errors
 */
export async function countRefusal(
  version: string,
  reasonCodes: readonly string[],
  now = new Date(),
): Promise<void> {
  if (reasonCodes.length === 0) return;
  const db = await getDb();
  const day = now.toISOString().slice(0, 10);
  await db
    .insert(policyCounters)
    .values(reasonCodes.map((reasonCode) => ({ day, version, reasonCode, count: 1 })))
    .onConflictDoUpdate({
      target: [policyCounters.day, policyCounters.version, policyCounters.reasonCode],
      set: { count: sql`${policyCounters.count} + 1` },
    });
}

/** The refusal counts, one row per day, version and reason code, newest day first. */
export async function refusalCounts(): Promise<
  { day: string; version: string; reasonCode: string; count: number }[]
> {
  const db = await getDb();
  return db.select().from(policyCounters).orderBy(sql`${policyCounters.day} desc`, policyCounters.reasonCode);
}

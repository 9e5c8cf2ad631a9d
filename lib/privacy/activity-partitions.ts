/**
 * The monthly partitions of `activity_log` (migration 0026, docs/decisions.md 22, docs/privacy.md
 * "Retention"). The table is partitioned by range of `at`, one partition per UTC month named
 * `activity_log_YYYY_MM`, plus `activity_log_default` for rows no month holds (a month not yet
 * created, a clock far off).
 *
 * - {@link ensureActivityPartitions} (the hourly privacy-retention job) creates the current month's
 *   and the next 2 months' partitions ahead of their rows. A month whose rows already sit in the
 *   default partition (the job did not run for a while) is created apart, those rows are moved into
 *   it and it is attached, in one transaction; the parent is only locked SHARE UPDATE EXCLUSIVE, so
 *   inserts go on.
 * - {@link dropExpiredActivityPartitions} drops every month whose whole range is before the
 *   retention cutoff: one `DROP TABLE`, whatever its size. Dropping locks the parent ACCESS
 *   EXCLUSIVE for an instant; a long reader holding it off makes the drop give up after
 *   {@link PARTITION_LOCK_TIMEOUT_MS} (the next hourly run tries again) rather than queue every
 *   insert behind it.
 *
 * Months are told apart by name only: a table attached under another name is never dropped here.
 */
import { sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { rowsOf } from "../db/rows.js";
import type { Db } from "../db/types.js";

/** The partitioned table. */
const PARENT = "activity_log";
/** Its DEFAULT partition (migration 0026). */
export const DEFAULT_ACTIVITY_PARTITION = "activity_log_default";
/** Months created ahead of the current one by {@link ensureActivityPartitions}. */
export const PARTITION_MONTHS_AHEAD = 2;
/** How long creating or dropping a partition waits for a lock before giving up, ms. */
export const PARTITION_LOCK_TIMEOUT_MS = 3_000;

const MONTHLY = /^activity_log_(\d{4})_(\d{2})$/;

/** One monthly partition: its table name and its range of `at`, [from, to). */
export interface ActivityPartition {
  name: string;
  from: Date;
  to: Date;
}

/**
 * The monthly partition holding instant `at`: UTC month bounds.
 * @param at any instant
 * @param offset months to add (negative: earlier months)
 */
export function activityPartitionFor(at: Date, offset = 0): ActivityPartition {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
  const name = `${PARENT}_${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, "0")}`;
  return { name, from, to };
}

/** The SQLSTATE of the first database error in `error`'s cause chain, if any. */
function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Lock wait given up (55P03), or a table created meanwhile by another caller (42P07). */
const GAVE_WAY = new Set(["55P03", "42P07"]);

/**
 * The monthly partitions attached to `activity_log`, oldest first, and whether the DEFAULT one is.
 * @returns partitions whose name is not `activity_log_YYYY_MM` are left out
 */
export async function listActivityPartitions(
  db?: Db,
): Promise<{ months: ActivityPartition[]; hasDefault: boolean }> {
  const handle = db ?? (await getDb());
  const names = rowsOf<{ name: string }>(
    await handle.execute(sql`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ${PARENT}::regclass`),
  ).map((r) => r.name);
  const months = names
    .map((name) => MONTHLY.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => activityPartitionFor(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1))))
    .sort((a, b) => a.from.getTime() - b.from.getTime());
  return { months, hasDefault: names.includes(DEFAULT_ACTIVITY_PARTITION) };
}

/** `'YYYY-MM-DD HH:MM:SS+00'`: a partition bound literal independent of the session's time zone. */
function bound(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace("T", " ")}+00`;
}

/**
 * Creates `partition` apart, moves into it the rows of its range held by the DEFAULT partition,
 * and attaches it, in one transaction.
 * @returns false when it gave way (a lock not granted in time, or created meanwhile)
 */
async function createPartition(db: Db, partition: ActivityPartition, hasDefault: boolean): Promise<boolean> {
  const table = sql.identifier(partition.name);
  const from = bound(partition.from);
  const to = bound(partition.to);
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`));
      await tx.execute(sql`create table ${table} (like ${sql.identifier(PARENT)} including defaults)`);
      if (hasDefault) {
        await tx.execute(sql`
          with moved as (
            delete from ${sql.identifier(DEFAULT_ACTIVITY_PARTITION)}
            where at >= ${from}::timestamptz and at < ${to}::timestamptz returning *
          ) insert into ${table} select * from moved`);
      }
      await tx.execute(
        sql`alter table ${sql.identifier(PARENT)} attach partition ${table} for values from (${sql.raw(`'${from}'`)}) to (${sql.raw(`'${to}'`)})`,
      );
    });
    return true;
  } catch (error) {
    if (GAVE_WAY.has(sqlState(error) ?? "")) return false;
    throw error;
  }
}

/**
 * Creates the monthly partitions of `activity_log` from `monthsBack` months before `now`'s UTC
 * month to {@link PARTITION_MONTHS_AHEAD} months after it, where missing (see the module comment).
 * Harmless to rerun.
 * @param now the instant whose month is the current one
 * @param options `monthsBack` (default 0: from the current month), `monthsAhead` (default 2)
 * @returns the names of the partitions created, and how many could not be for a lock not granted
 *   in time (left to the next run)
 * @throws a database error other than a lock timeout
 */
export async function ensureActivityPartitions(
  now = new Date(),
  options: { monthsBack?: number; monthsAhead?: number } = {},
): Promise<{ created: string[]; deferred: number }> {
  const db = await getDb();
  const { months, hasDefault } = await listActivityPartitions(db);
  const existing = new Set(months.map((m) => m.name));
  const created: string[] = [];
  let deferred = 0;
  const back = options.monthsBack ?? 0;
  const ahead = options.monthsAhead ?? PARTITION_MONTHS_AHEAD;
  for (let offset = -back; offset <= ahead; offset++) {
    const partition = activityPartitionFor(now, offset);
    if (existing.has(partition.name)) continue;
    if (await createPartition(db, partition, hasDefault)) created.push(partition.name);
    else deferred++;
  }
  return { created, deferred };
}

/**
 * Drops every monthly partition of `activity_log` whose whole range ends at or before `cutoff`
 * (docs/privacy.md "Retention"), oldest first, each with its row count taken first.
 * @param cutoff rows with `at` before it are past retention
 * @returns partitions dropped, rows they held, and whether one was left for a lock not granted in
 *   {@link PARTITION_LOCK_TIMEOUT_MS} (the next run tries again)
 * @throws a database error other than a lock timeout
 */
export async function dropExpiredActivityPartitions(
  cutoff: Date,
): Promise<{ partitions_dropped: number; rows_dropped: number; deferred: boolean }> {
  const db = await getDb();
  const { months } = await listActivityPartitions(db);
  let dropped = 0;
  let rows = 0;
  for (const partition of months.filter((m) => m.to.getTime() <= cutoff.getTime())) {
    const table = sql.identifier(partition.name);
    try {
      const n = await db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`));
        const [count] = rowsOf<{ n: number | string }>(
          await tx.execute(sql`select count(*) as n from ${table}`),
        );
        await tx.execute(sql`drop table ${table}`);
        return Number(count?.n ?? 0);
      });
      dropped++;
      rows += n;
    } catch (error) {
      if (sqlState(error) !== "55P03") throw error;
      return { partitions_dropped: dropped, rows_dropped: rows, deferred: true };
    }
  }
  return { partitions_dropped: dropped, rows_dropped: rows, deferred: false };
}

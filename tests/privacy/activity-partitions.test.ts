/**
 * The activity log partitioned by month (issue 32 item 6, docs/decisions.md 22): the table is a
 * range-partitioned one with a DEFAULT partition; the privacy-retention job creates the coming
 * months' partitions, moving rows the DEFAULT partition already holds for them; retention drops a
 * month entirely past the cutoff in one statement, deletes the rest past it (the cutoff's month,
 * the DEFAULT partition) in batches, and a rerun does nothing. On PostgreSQL, a drop held off by a
 * reader gives way and leaves a backlog. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { activityLog, privacyAudit } from "../../lib/db/schema/index.js";
import { privacyRetention } from "../../lib/jobs/privacy-retention.js";
import {
  activityPartitionFor,
  DEFAULT_ACTIVITY_PARTITION,
  dropExpiredActivityPartitions,
  ensureActivityPartitions,
  listActivityPartitions,
  PARTITION_LOCK_TIMEOUT_MS,
} from "../../lib/privacy/activity-partitions.js";
import { purgeExpiredPersonalData } from "../../lib/privacy/retention.js";
import { defaultBackend, POSTGRES_ONLY, useTestDatabase } from "../helpers/db.js";
import { rollupDiff } from "../helpers/rollups.js";

const { handle } = useTestDatabase();

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await getDb();
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * Inserts one activity row per instant, tagged `requestId`, of an agent of one organisation (so
 * both daily roll-ups count them); returns nothing.
 */
async function insertAt(tag: string, ...instants: string[]): Promise<void> {
  const db = await getDb();
  await db.insert(activityLog).values(
    instants.map((at, i) => ({
      at: new Date(at),
      requestId: `${tag}_${i}`,
      method: "GET",
      endpoint: "/partition-test",
      status: 200,
      latencyMs: 1,
      agentModel: "partition-model",
      agentName: "partition-agent",
      orgId: "org_partition",
      identityValid: true,
    })),
  );
}

/** The partition (table name) holding each row tagged `tag`, by request id. */
async function whereRows(tag: string): Promise<Record<string, string>> {
  const found = await rows<{ request_id: string; part: string }>(
    sql`select request_id, tableoid::regclass::text as part from activity_log where request_id like ${`${tag}_%`}`,
  );
  return Object.fromEntries(found.map((r) => [r.request_id, r.part]));
}

async function tableExists(name: string): Promise<boolean> {
  const [row] = await rows<{ t: string | null }>(sql`select to_regclass(${name})::text as t`);
  return row?.t != null;
}

describe("activity log partitioned by month", () => {
  it("is a range-partitioned table on `at` with a DEFAULT partition, this month's and the next 2", async () => {
    const [parted] = await rows<{ strategy: string; key: string }>(sql`
      select p.partstrat as strategy, pg_get_partkeydef(p.partrelid) as key
      from pg_partitioned_table p where p.partrelid = 'activity_log'::regclass`);
    expect(parted).toEqual({ strategy: "r", key: "RANGE (at)" });
    const [pk] = await rows<{ def: string }>(sql`
      select pg_get_constraintdef(oid) as def from pg_constraint
      where conrelid = 'activity_log'::regclass and contype = 'p'`);
    expect(pk!.def).toBe("PRIMARY KEY (at, id)");
    const { months, hasDefault } = await listActivityPartitions();
    expect(hasDefault).toBe(true);
    // The migration made its month's and the next 2 when this file's database was made: with
    // PGlite a template made at the start of the run, so a month may have ended since. Its month
    // is this one, or (only then) the one before, whose "next 2" stop short of this one's.
    const now = new Date();
    const names = months.map((m) => m.name);
    const made = names.includes(activityPartitionFor(now, 2).name) ? now : activityPartitionFor(now, -1).from;
    for (const offset of [0, 1, 2]) expect(names).toContain(activityPartitionFor(made, offset).name);
    // Every partition has the parent's indexes (created through the partitioned indexes).
    const [indexes] = await rows<{ n: number }>(sql`
      select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
      join pg_index x on x.indrelid = c.oid where i.inhparent = 'activity_log'::regclass`);
    expect(indexes!.n).toBe((months.length + 1) * 3);
  });

  it("names months by UTC bounds", () => {
    expect(activityPartitionFor(new Date("2026-12-31T23:30:00-05:00"))).toEqual({
      name: "activity_log_2027_01",
      from: new Date("2027-01-01T00:00:00Z"),
      to: new Date("2027-02-01T00:00:00Z"),
    });
    expect(activityPartitionFor(new Date("2026-01-15T00:00:00Z"), -1).name).toBe("activity_log_2025_12");
  });

  it("the job creates the coming months' partitions, moving rows the DEFAULT partition holds; rerun is harmless", async () => {
    const now = new Date("2031-03-10T00:00:00Z");
    // A row dated in May 2031 lands in the DEFAULT partition: no month holds it yet.
    await insertAt("ahead", "2031-05-20T08:00:00Z", "2031-09-01T00:00:00Z");
    expect(await whereRows("ahead")).toEqual({
      ahead_0: DEFAULT_ACTIVITY_PARTITION,
      ahead_1: DEFAULT_ACTIVITY_PARTITION,
    });
    const run = await privacyRetention(now);
    expect(run.ok).toBe(true);
    expect(run.details!.partitions_created).toEqual([
      "activity_log_2031_03",
      "activity_log_2031_04",
      "activity_log_2031_05",
    ]);
    expect(await whereRows("ahead")).toEqual({
      ahead_0: "activity_log_2031_05",
      ahead_1: DEFAULT_ACTIVITY_PARTITION,
    });
    const again = await privacyRetention(now);
    expect(again.details!.partitions_created).toEqual([]);
    expect(await ensureActivityPartitions(now)).toEqual({ created: [], deferred: 0 });
    // Inserts through the parent reach the new month; ids keep coming from the one sequence.
    await insertAt("ahead_new", "2031-04-02T00:00:00Z");
    expect(await whereRows("ahead_new")).toEqual({ ahead_new_0: "activity_log_2031_04" });
    const [ids] = await rows<{ n: number; d: number }>(
      sql`select count(*)::int as n, count(distinct id)::int as d from activity_log`,
    );
    expect(ids!.d).toBe(ids!.n);
  });

  it("retention drops months entirely past the cutoff, deletes the rest past it in batches, DEFAULT included", async () => {
    const db = await getDb();
    const now = new Date("2026-06-15T12:00:00Z"); // cutoff (365 days): 2025-06-15T12:00Z
    const made = await ensureActivityPartitions(now, { monthsBack: 14 });
    expect(made.created).toContain("activity_log_2025_04");
    await insertAt("gone", "2025-04-01T00:00:00Z", "2025-04-18T00:00:00Z", "2025-04-30T23:59:59Z");
    await insertAt("gone_may", "2025-05-31T00:00:00Z", "2025-05-01T00:00:00Z");
    await insertAt("boundary_old", "2025-06-01T00:00:00Z", "2025-06-15T11:59:00Z");
    await insertAt("boundary_kept", "2025-06-15T12:01:00Z");
    await insertAt("ancient", "2019-01-01T00:00:00Z", "2019-02-01T00:00:00Z");
    await insertAt("recent", "2026-06-10T00:00:00Z");
    expect(Object.values(await whereRows("ancient"))).toEqual([
      DEFAULT_ACTIVITY_PARTITION,
      DEFAULT_ACTIVITY_PARTITION,
    ]);
    const before = (await listActivityPartitions()).months.length;

    const first = await purgeExpiredPersonalData(now, { batchRows: 1 });
    // The dropped months held 4 Toronto days (Mar 31, Apr 18, Apr 30, May 30) in 4 ISO weeks:
    // their rows of both daily roll-ups and of the weekly one go with them (4 × 3); the rows
    // deleted in batches left through the triggers.
    expect(first).toEqual({
      activity_rows_deleted: 9,
      partitions_dropped: 2,
      rollup_rows_deleted: 12,
      proof_files_deleted: 0,
      retention_backlog: false,
    });
    expect(await rollupDiff()).toMatchObject({ agents: 0, weeks: 0, endpoints: 0 });
    expect(await tableExists("activity_log_2025_04")).toBe(false);
    expect(await tableExists("activity_log_2025_05")).toBe(false);
    expect(await tableExists("activity_log_2025_06")).toBe(true);
    expect((await listActivityPartitions()).months.length).toBe(before - 2);
    const left = (await db.select({ r: activityLog.requestId }).from(activityLog)).map((r) => r.r);
    expect(left).toEqual(expect.arrayContaining(["boundary_kept_0", "recent_0"]));
    for (const tag of ["gone_", "gone_may_", "boundary_old_", "ancient_"]) {
      expect(left.filter((r) => r?.startsWith(tag))).toEqual([]);
    }
    const audits = await db.select().from(privacyAudit).where(eq(privacyAudit.action, "retention_purge"));
    // The audit row records the counts the purge returned.
    expect(audits.at(-1)!.details).toEqual(first);

    const second = await purgeExpiredPersonalData(now, { batchRows: 1 });
    expect(second).toEqual({
      activity_rows_deleted: 0,
      partitions_dropped: 0,
      rollup_rows_deleted: 0,
      proof_files_deleted: 0,
      retention_backlog: false,
    });
    expect(
      await db.select().from(privacyAudit).where(eq(privacyAudit.action, "retention_purge")),
    ).toHaveLength(audits.length);
  });

  it("the retention job reports the partitions it dropped", async () => {
    const now = new Date("2033-08-20T00:00:00Z");
    await ensureActivityPartitions(now, { monthsBack: 13 });
    await insertAt("job_gone", "2032-07-04T00:00:00Z");
    const run = await privacyRetention(now);
    expect(run.ok).toBe(true);
    // Every earlier month of this file's database goes too (its tests' dates are all before).
    expect(run.details).toMatchObject({ retention_backlog: false });
    expect(run.details!.partitions_dropped).toBeGreaterThanOrEqual(1);
    expect(run.details!.activity_rows_deleted).toBeGreaterThanOrEqual(1);
    expect(await tableExists("activity_log_2032_07")).toBe(false);
    expect(await whereRows("job_gone")).toEqual({});
  });

  describe.skipIf(defaultBackend() !== "pg")(`a drop held off by a reader${POSTGRES_ONLY}`, () => {
    it(`gives way after ${PARTITION_LOCK_TIMEOUT_MS} ms and leaves the month to the next run`, async () => {
      const now = new Date("2036-02-10T00:00:00Z");
      await ensureActivityPartitions(now, { monthsBack: 14 });
      await insertAt("held", "2034-12-05T00:00:00Z");
      const pool = (handle().db as unknown as { $client: import("pg").Pool }).$client;
      const reader = await pool.connect();
      try {
        await reader.query("begin");
        await reader.query("select count(*) from activity_log");
        const cutoff = new Date(now.getTime() - 365 * 86_400_000);
        const held = await dropExpiredActivityPartitions(cutoff);
        expect(held).toEqual({ partitions_dropped: 0, rows_dropped: 0, deferred: true });
        await reader.query("rollback");
        const purged = await purgeExpiredPersonalData(now);
        expect(purged.partitions_dropped).toBeGreaterThanOrEqual(1);
        expect(await tableExists("activity_log_2034_12")).toBe(false);
      } finally {
        reader.release();
      }
    });
  });
});

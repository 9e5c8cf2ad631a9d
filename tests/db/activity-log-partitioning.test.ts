import { describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER, pgliteOptions } from "../../lib/db/client.js";
import { createScratchDatabase } from "../../lib/db/scratch-database.js";
import { activityPartitionFor } from "../../lib/privacy/activity-partitions.js";
import { availableBackends } from "../helpers/db.js";
import { useMigrationsBefore } from "../helpers/migrations.js";

const migrationsBefore = useMigrationsBefore();

/**
 * Each test migrates a fresh database through every migration, twice: seconds idle, several times
 * that on a loaded 2-core machine. The limit only guards against a hang.
 */
const MIGRATE_MS = 180_000;

/** A database to migrate by folder and query, on `backend`. */
interface Subject {
  migrate(folder: string): Promise<void>;
  query<T>(text: string): Promise<T[]>;
  close(): Promise<void>;
}

/** A database on `backend` migrated with the migrations of `folder`. */
async function open(backend: "pglite" | "pg", folder: string): Promise<Subject> {
  if (backend === "pglite") {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const client = new PGlite(await pgliteOptions());
    const db = drizzle(client);
    const subject: Subject = {
      migrate: (to) => migrate(db as never, { migrationsFolder: to }),
      query: async <T>(text: string) => (await client.query<T>(text)).rows,
      close: () => client.close(),
    };
    await subject.migrate(folder);
    return subject;
  }
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, "ptes_partition", folder);
  const pool = new pg.Pool({ connectionString: scratch.url, max: 1 });
  const db = drizzle(pool);
  return {
    migrate: (to) => migrate(db as never, { migrationsFolder: to }),
    query: async <T>(text: string) => (await pool.query(text)).rows as T[],
    async close() {
      await pool.end();
      await scratch.drop();
    },
  };
}

describe.each(availableBackends().filter((b) => b !== "neon") as ("pglite" | "pg")[])(
  "activity_log partitioning migration on %s",
  (backend) => {
    it(
      "moves every row into its month's partition, keeps ids and the sequence, names the indexes as drizzle does",
      async () => {
        const db = await open(backend, migrationsBefore("_activity_log_partitioned"));
        try {
          // 14 months of rows up to now, one 20 years old and one a year ahead.
          await db.query(`
          insert into activity_log (at, request_id, method, endpoint, status, latency_ms)
          select now() - (g || ' days')::interval, 'req_' || g, 'GET', '/partition-test', 200, 1
          from generate_series(0, 420, 3) g`);
          await db.query(`
          insert into activity_log (at, request_id, method, endpoint, status, latency_ms) values
            (now() - interval '20 years', 'req_ancient', 'GET', '/partition-test', 200, 1),
            (now() + interval '1 year', 'req_ahead', 'GET', '/partition-test', 200, 1)`);
          const before = await db.query<{ id: string; at: string; request_id: string }>(
            "select id::text, at::text, request_id from activity_log order by id",
          );

          // The migration makes the months up to 2 ahead of its own now(), at or after this instant
          // (taken first, so that a month's end passing during the test does not move the check).
          const migratedFrom = new Date();
          await db.migrate(MIGRATIONS_FOLDER);

          const after = await db.query<{ id: string; at: string; request_id: string; part: string }>(
            "select id::text, at::text, request_id, tableoid::regclass::text as part from activity_log order by id",
          );
          expect(after.map(({ part: _, ...r }) => r)).toEqual(before);
          for (const row of after) {
            const expected =
              row.request_id === "req_ancient" || row.request_id === "req_ahead"
                ? "activity_log_default"
                : activityPartitionFor(new Date(row.at.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")))
                    .name;
            expect(row.part, row.request_id).toBe(expected);
          }
          const parts = await db.query<{ name: string }>(
            "select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'activity_log'::regclass",
          );
          // The oldest row's month (420 days back) to 2 months ahead, and the DEFAULT one.
          expect(parts.length).toBeGreaterThanOrEqual(16);
          expect(parts.map((p) => p.name)).toContain(activityPartitionFor(migratedFrom, 2).name);

          const [seq] = await db.query<{ owner: string | null }>(
            "select pg_get_serial_sequence('activity_log', 'id') as owner",
          );
          expect(seq!.owner).toBe("public.activity_log_id_seq");
          const [next] = await db.query<{ id: string }>(
            "insert into activity_log (method, endpoint, status, latency_ms) values ('GET', '/x', 200, 1) returning id::text as id",
          );
          expect(BigInt(next!.id)).toBeGreaterThan(BigInt(before.at(-1)!.id));

          const indexes = await db.query<{ name: string }>(
            "select indexname as name from pg_indexes where tablename = 'activity_log' order by 1",
          );
          expect(indexes.map((i) => i.name)).toEqual([
            "activity_log_api_key_id_at_idx",
            "activity_log_at_id_pk",
            "activity_log_org_id_at_idx",
          ]);
          expect(await db.query("select to_regclass('activity_log_unpartitioned') as t")).toEqual([
            { t: null },
          ]);
        } finally {
          await db.close();
        }
      },
      MIGRATE_MS,
    );

    it(
      "keys rows by (at, id), indexes only the rows with a key or an organization, and every reader still uses an index",
      async () => {
        const db = await open(backend, MIGRATIONS_FOLDER);
        try {
          for (const name of ["activity_log_api_key_id_at_idx", "activity_log_org_id_at_idx"]) {
            const [def] = await db.query<{ def: string }>(
              `select pg_get_indexdef('${name}'::regclass) as def`,
            );
            expect(def!.def).toMatch(/WHERE \((api_key|org)_id IS NOT NULL\)$/);
          }
          // 3,000 rows in the 50 minutes before `at`, the middle of this month (the migration made
          // its partition), every tenth naming a key, every seventh an organization. The rows and
          // the readers' time bounds are pinned to `at`, not to now(): in a month's first hour,
          // "the last 50 minutes" or "an hour ago" would reach into another month's partition.
          const month = activityPartitionFor(new Date());
          const at = `'${new Date(month.from.getTime() + 14 * 86_400_000).toISOString()}'::timestamptz`;
          await db.query(`
          insert into activity_log (at, api_key_id, org_id, method, endpoint, status, latency_ms)
          select ${at} - (g || ' seconds')::interval,
                 case when g % 10 = 0 then 'key_' || (g % 30) end,
                 case when g % 7 = 0 then 'org_' || (g % 5) end, 'GET', '/api/estimate', 200, 1
          from generate_series(1, 3000) g`);
          await db.query("vacuum analyze activity_log");
          const part = month.name;
          const entries = async (index: string) =>
            Number(
              (
                await db.query<{ n: number }>(
                  `select reltuples as n from pg_class where relname = '${part}_${index}'`,
                )
              )[0]?.n,
            );
          expect(await entries("api_key_id_at_idx")).toBe(300);
          expect(await entries("org_id_at_idx")).toBe(428);
          expect(await entries("pkey")).toBe(3000);
          expect(await entries("at_idx")).toBeNaN(); // gone: the primary key leads with `at`

          // The readers' shapes: the volume alert and the organization's export (one value and a
          // time range), the privacy export and erasure (the keys of an account, a join, then pages
          // by key), retention (oldest first, the oldest day).
          const readers = [
            [
              "api_key_id_at_idx",
              `select count(*) from activity_log where api_key_id = 'key_10' and at >= ${at} - interval '1 day'`,
            ],
            [
              "org_id_at_idx",
              `select count(*) from activity_log where org_id = 'org_3' and at >= ${at} - interval '1 day'`,
            ],
            [
              "api_key_id_at_idx",
              "select count(*) from activity_log where api_key_id in (select id from api_keys where account_id = 'acct')",
            ],
            [
              "api_key_id_at_idx",
              "select count(*) from activity_log where api_key_id in ('key_10', 'key_20')",
            ],
            [
              "pkey",
              `select id from activity_log where (at, id) > (${at} - interval '1 hour', 5) order by at, id limit 10`,
            ],
            [
              "pkey",
              `select id, at from activity_log where at < ${at} - interval '1 hour' order by at limit 10`,
            ],
            ["pkey", "select min(at) from activity_log"],
          ] as const;
          for (const [index, query] of readers) {
            const counted = await db.query<{ count: string }>(query);
            await db.query("set enable_seqscan = off");
            try {
              const plan = (await db.query<{ "QUERY PLAN": string }>(`explain ${query}`)).map(
                (r) => r["QUERY PLAN"],
              );
              expect(plan.join("\n"), query).toContain(`${part}_${index}`);
              expect(await db.query(query), query).toEqual(counted);
            } finally {
              await db.query("reset enable_seqscan");
            }
          }
        } finally {
          await db.close();
        }
      },
      MIGRATE_MS,
    );
  },
);

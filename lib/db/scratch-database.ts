/**
 * Throwaway PostgreSQL databases for tests and benchmarks: created on the server of an
 * admin URL, migrated with drizzle's node-postgres migrator, dropped afterwards.
 * Not used by the service itself.
 */
import { randomBytes } from "node:crypto";
import { MIGRATIONS_FOLDER } from "./client.js";
import * as schema from "./schema/index.js";

/** A created database: its URL and the means to drop it. */
export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * Creates `<prefix>_<random>` on the server of `adminUrl` and migrates it with the migrations of
 * `migrationsFolder` (all of them by default; a test of a data migration passes a copy that stops
 * before it).
 * @throws whatever the server answers (unreachable, no permission); a failed migration drops the database first.
 */
export async function createScratchDatabase(
  adminUrl: string,
  prefix = "ptes_scratch",
  migrationsFolder = MIGRATIONS_FOLDER,
): Promise<ScratchDatabase> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 15_000 });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = () => run(`drop database if exists ${name} with (force)`);
  try {
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    try {
      await migrate(drizzle(pool, { schema }), { migrationsFolder });
    } finally {
      await pool.end();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: url.toString(), name, drop };
}

/**
 * The database handle: one drizzle instance per process, chosen from configuration.
 *
 * - `DATABASE_URL` unset (or `DATABASE_DRIVER=pglite`): embedded PGlite persisted under
 *   `DATA_DIR` (`memory://` keeps it in memory), migrated automatically at open. PGlite
 *   has no cross-process lock, so a lock file guards the directory.
 * - `postgres://…`: node-postgres pool; `*.neon.tech` hosts (or `DATABASE_DRIVER=neon`):
 *   the Neon serverless driver over WebSockets, both guarded and time-bounded by
 *   lib/db/pool-guard.ts. Migrations: `npm run db:migrate`.
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PGliteOptions } from "@electric-sql/pglite";
import { type Config, ConfigError, getConfig } from "../config.js";
import { ambientTransaction } from "./ambient.js";
import {
  boundedPoolOptions,
  type EventedPool,
  guardConnections,
  type PoolBounds,
  poolBounds,
} from "./pool-guard.js";

import type { Db, Schema } from "./types.js";

/** The pool bounds (lib/db/pool-guard.ts), exported here too: openPg, openNeon and openDatabase take them. */
export { boundedPoolOptions, isQueryTimeout, type PoolBounds, poolBounds } from "./pool-guard.js";
/** The database types (lib/db/types.ts), exported here too: most code imports them with the client. */
export type { Db, Schema, Tx } from "./types.js";

/**
 * The table definitions, imported when a database is opened rather than with this module, so
 * that importing the client (most endpoints do, through the handler wrapper) costs no
 * drizzle-orm/pg-core load before the first query (cold start, docs/performance.md).
 */
const loadSchema = (): Promise<Schema> => import("./schema/index.js");

/** An open database with the means to close it. */
export interface DatabaseHandle {
  db: Db;
  driver: "pglite" | "pg" | "neon";
  close(): Promise<void>;
}

/** Folder of drizzle-kit's migrations. */
export const MIGRATIONS_FOLDER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../drizzle");

let current: Promise<DatabaseHandle> | undefined;

/** Which driver `config` selects. */
export function selectDriver(config: Config): DatabaseHandle["driver"] {
  if (config.DATABASE_DRIVER === "pglite" || !config.DATABASE_URL) return "pglite";
  if (config.DATABASE_DRIVER !== "auto") return config.DATABASE_DRIVER;
  const host = safeHost(config.DATABASE_URL);
  return host.endsWith(".neon.tech") ? "neon" : "pg";
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    throw new ConfigError("DATABASE_URL: not a valid postgres:// URL");
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the embedded database's directory lock or explains who holds it. */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = path.join(dir, "pglite.lock");
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, "utf8").trim());
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) {
      throw new ConfigError(
        `DATA_DIR: the embedded database in ${dir} is open in another process (pid ${pid}); ` +
          "stop it, or set DATA_DIR to another directory, or DATABASE_URL to a PostgreSQL server",
      );
    }
  }
  writeFileSync(lockFile, String(process.pid));
  return () => {
    try {
      if (readFileSync(lockFile, "utf8").trim() === String(process.pid)) rmSync(lockFile);
    } catch {
      // already gone
    }
  };
}

/**
 * The options every embedded database opens with:
 * - the `pg_trgm` extension (the task list's text search, migration 0019), which PGlite ships as a
 *   contrib module to load, not as a library on disk;
 * - `file_extend_method = write_zeros` (PostgreSQL 18), added to PGlite's own start parameters.
 *   PostgreSQL extends a table by more than eight pages at once (COPY, bulk inserts) with
 *   `posix_fallocate`, which PGlite's in-memory file system emulates by allocating the whole file
 *   anew and copying it: each batch of activity rows cost time in proportion to the table's size
 *   (COPY of 20,000 rows: 2.8 µs a row into an empty table, 12 µs at 500,000 rows). Written zeros
 *   grow the file geometrically instead: 2.8 µs a row at any size (docs/performance.md, issue 30).
 */
export async function pgliteOptions(): Promise<PGliteOptions> {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
  ]);
  return {
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, "-c", "file_extend_method=write_zeros"],
  };
}

/** Opens the embedded database and applies migrations. */
export async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const inMemory = dataDir === "memory://";
  const unlock = inMemory ? () => {} : lockDataDir(path.resolve(dataDir));
  try {
    const options = await pgliteOptions();
    const client = inMemory
      ? new PGlite(options)
      : new PGlite(path.join(path.resolve(dataDir), "pglite"), options);
    await client.waitReady;
    const db = drizzle(client, { schema: await loadSchema() }) as unknown as Db;
    await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    return {
      db,
      driver: "pglite",
      async close() {
        await client.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/**
 * Opens a node-postgres pool on `url` with at most `max` connections, every wait bounded
 * by `bounds` (default: DB_QUERY_TIMEOUT_MS; see `boundedPoolOptions`).
 */
export async function openPg(
  url: string,
  max: number,
  bounds: PoolBounds = poolBounds(),
): Promise<DatabaseHandle> {
  const pg = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const pool = new pg.default.Pool({ connectionString: url, max, ...boundedPoolOptions(bounds) });
  guardConnections(pool as unknown as EventedPool, "postgres");
  const db = drizzle(pool, { schema: await loadSchema() }) as unknown as Db;
  return { db, driver: "pg", close: () => pool.end() };
}

/**
 * Opens a Neon serverless pool on `url` (at most `max` connections, waits bounded as for
 * `openPg`). `wsProxy` (host:port of a plain-ws proxy such as websockify) lets it reach an
 * ordinary PostgreSQL, as CI does.
 */
export async function openNeon(
  url: string,
  max: number,
  wsProxy?: string,
  bounds: PoolBounds = poolBounds(),
): Promise<DatabaseHandle> {
  const neon = await import("@neondatabase/serverless");
  const { drizzle } = await import("drizzle-orm/neon-serverless");
  const ws = (await import("ws")).default;
  neon.neonConfig.webSocketConstructor = ws;
  if (wsProxy) {
    neon.neonConfig.wsProxy = () => wsProxy;
    neon.neonConfig.useSecureWebSocket = false;
    neon.neonConfig.pipelineTLS = false;
    neon.neonConfig.pipelineConnect = false;
  }
  const { keepAlive: _k, keepAliveInitialDelayMillis: _d, ...options } = boundedPoolOptions(bounds);
  const pool = new neon.Pool({ connectionString: url, max, ...options });
  guardConnections(pool as unknown as EventedPool, "neon");
  const db = drizzle(pool, { schema: await loadSchema() }) as unknown as Db;
  return { db, driver: "neon", close: () => pool.end() };
}

/**
 * Opens the database `config` describes. `bounds` overrides the query bound of a networked
 * pool (`{ queryTimeoutMs: 0 }` for migrations); the embedded PGlite runs in the process and
 * has no network to wait on.
 */
export async function openDatabase(
  config: Config = getConfig(),
  bounds: PoolBounds = poolBounds(config),
): Promise<DatabaseHandle> {
  const driver = selectDriver(config);
  if (driver === "pglite") return openPglite(config.DATA_DIR);
  const url = config.DATABASE_URL!;
  if (driver === "neon") return openNeon(url, config.DATABASE_POOL_MAX, config.NEON_WS_PROXY, bounds);
  return openPg(url, config.DATABASE_POOL_MAX, bounds);
}

/** The process's database handle, opened on first use. A failed open is retried next call. */
export function getDatabase(): Promise<DatabaseHandle> {
  if (!current) {
    current = openDatabase().catch((error) => {
      current = undefined;
      throw error;
    });
  }
  return current;
}

/**
 * The handle queries should use: the ambient transaction when the caller runs inside one
 * (an `Idempotency-Key` request, lib/db/ambient.ts), else the process's drizzle instance.
 */
export async function getDb(): Promise<Db> {
  return ambientTransaction() ?? (await getDatabase()).db;
}

/**
 * The process's drizzle instance, never the ambient transaction: for per-handle caches and
 * for work that must not join the current request's transaction.
 */
export async function getRootDb(): Promise<Db> {
  return (await getDatabase()).db;
}

/** Replaces the process's database (tests); pass undefined to forget it. */
export function setDatabase(handle: DatabaseHandle | undefined): void {
  current = handle ? Promise.resolve(handle) : undefined;
}

/** Closes the process's database if one is open. */
export async function closeDatabase(): Promise<void> {
  const handle = current;
  current = undefined;
  if (handle) await (await handle).close();
}

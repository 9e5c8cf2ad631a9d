/**
 * The database handle: one drizzle instance per process, chosen from configuration.
 *
 * - `DATABASE_URL` unset (or `DATABASE_DRIVER=pglite`): embedded PGlite persisted under
 *   `DATA_DIR` (`memory://` keeps it in memory), migrated automatically at open. PGlite
 *   has no cross-process lock, so a lock file guards the directory.
 * - `postgres://…`: node-postgres pool; `*.neon.tech` hosts (or `DATABASE_DRIVER=neon`):
 *   the Neon serverless driver over WebSockets. Migrations: `npm run db:migrate`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { type Config, ConfigError, getConfig } from "../config.js";
import * as schema from "./schema/index.js";

export type Schema = typeof schema;
/** The drizzle database type shared by every driver. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle, usable wherever `Db` is. */
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

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

/** Opens the embedded database and applies migrations. */
export async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const inMemory = dataDir === "memory://";
  const unlock = inMemory ? () => {} : lockDataDir(path.resolve(dataDir));
  try {
    const client = inMemory ? new PGlite() : new PGlite(path.join(path.resolve(dataDir), "pglite"));
    await client.waitReady;
    const db = drizzle(client, { schema }) as unknown as Db;
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

/** What `guardConnections` needs of a node-postgres or Neon pool. */
interface EventedPool {
  on(event: "error", listener: (error: Error) => void): unknown;
  on(
    event: "connect",
    listener: (client: { on(event: "error", listener: (error: Error) => void): unknown }) => void,
  ): unknown;
}

/**
 * Logs, instead of crashing on, a connection the server ends (restart, idle timeout,
 * `pg_terminate_backend`). node-postgres listens for errors only on idle pooled clients; a
 * client checked out between two statements of a transaction emits an `error` event that,
 * unheard, kills the process (node-postgres docs, "Pooling": error handling). With a listener
 * on every client, the next statement fails instead and the request gets 503 STORAGE_ERROR.
 */
function guardConnections(pool: EventedPool, label: string): void {
  const log = (error: Error) => console.error(`${label} connection error:`, error.message);
  pool.on("error", log);
  pool.on("connect", (client) => {
    client.on("error", log);
  });
}

/** Opens a node-postgres pool on `url`. */
export async function openPg(url: string, max: number): Promise<DatabaseHandle> {
  const pg = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const pool = new pg.default.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
  guardConnections(pool, "postgres");
  const db = drizzle(pool, { schema }) as unknown as Db;
  return { db, driver: "pg", close: () => pool.end() };
}

/**
 * Opens a Neon serverless pool on `url`. `wsProxy` (host:port of a plain-ws proxy such
 * as websockify) lets it reach an ordinary PostgreSQL, as CI does.
 */
export async function openNeon(url: string, max: number, wsProxy?: string): Promise<DatabaseHandle> {
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
  const pool = new neon.Pool({ connectionString: url, max });
  guardConnections(pool, "neon");
  const db = drizzle(pool, { schema }) as unknown as Db;
  return { db, driver: "neon", close: () => pool.end() };
}

/** Opens the database `config` describes. */
export async function openDatabase(config: Config = getConfig()): Promise<DatabaseHandle> {
  const driver = selectDriver(config);
  if (driver === "pglite") return openPglite(config.DATA_DIR);
  const url = config.DATABASE_URL!;
  if (driver === "neon") return openNeon(url, config.DATABASE_POOL_MAX, config.NEON_WS_PROXY);
  return openPg(url, config.DATABASE_POOL_MAX);
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

/** The process's drizzle instance. */
export async function getDb(): Promise<Db> {
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

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
import type { PGliteOptions } from "@electric-sql/pglite";
import { type Config, ConfigError, getConfig } from "../config.js";
import { describeError } from "../log-error.js";
import { ambientTransaction } from "./ambient.js";

import type { Db, Schema } from "./types.js";

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
 * The options every embedded database opens with: the `pg_trgm` extension (the task list's text
 * search, migration 0019), which PGlite ships as a contrib module to load, not as a library on disk.
 */
export async function pgliteOptions(): Promise<PGliteOptions> {
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  return { extensions: { pg_trgm } };
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
 * Time bounds of a networked pool (node-postgres or Neon), from `DB_QUERY_TIMEOUT_MS`.
 * `0` turns every bound off (migrations, whose statements may legitimately run long).
 */
export interface PoolBounds {
  /** Client-side bound of one query (and of a checkout or a new connection), ms; 0 = none. */
  queryTimeoutMs: number;
}

/** The bounds the configuration asks for. */
export function poolBounds(config: Config = getConfig()): PoolBounds {
  return { queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS };
}

/**
 * The pool options that bound every wait on the database (issue 20 item 3), for a query
 * bound of `t` ms:
 *
 * - `query_timeout` = t: the client gives up on a query after t (a partition where packets
 *   vanish never answers; TCP alone would wait up to ~15 minutes of retransmissions);
 * - `statement_timeout` = 80 % of t, sent at connect: on a healthy network the server
 *   cancels a slow statement (or a lock wait) first, answers SQLSTATE 57014 and the
 *   connection stays usable;
 * - `idle_in_transaction_session_timeout` = 2 t: the server ends a session whose client
 *   vanished mid-transaction, so its row locks are released;
 * - `connectionTimeoutMillis` = t: a new connection, or a wait for a free pooled one;
 * - TCP keep-alive (first probe after 10 s idle) so that idle connections to a vanished
 *   server are eventually found dead by the kernel too (node-postgres only; Neon's
 *   WebSocket has none to set).
 */
export function boundedPoolOptions(bounds: PoolBounds): Record<string, number | boolean> {
  const t = bounds.queryTimeoutMs;
  if (t <= 0) return { connectionTimeoutMillis: 5000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 };
  return {
    query_timeout: t,
    statement_timeout: Math.max(1, Math.floor(t * 0.8)),
    idle_in_transaction_session_timeout: 2 * t,
    connectionTimeoutMillis: t,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/** The parts of a node-postgres / Neon client this module touches. */
interface PooledClient {
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "end", listener: () => void): unknown;
  removeListener(event: "end", listener: () => void): unknown;
  query: (...args: unknown[]) => unknown;
  /** Set by the pool on checkout; an error removes the client from the pool. */
  release: (error?: Error | boolean) => void;
  /** node-postgres' connection; its `stream` is a net.Socket, or Neon's WebSocket-backed shim. */
  connection?: { stream?: { destroy?: () => void; ws?: { terminate?: () => void } } };
}

type ConnectCallback = (
  error: Error | undefined,
  client?: PooledClient,
  done?: PooledClient["release"],
) => void;

/** What `guardConnections` needs of a node-postgres or Neon pool. */
interface EventedPool {
  connect: (callback?: ConnectCallback) => Promise<PooledClient> | undefined;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect" | "acquire" | "remove", listener: (client: PooledClient) => void): unknown;
  on(event: "release", listener: (error: Error | undefined, client: PooledClient) => void): unknown;
}

/** True for the error node-postgres (and Neon's fork of it) raises when `query_timeout` passes. */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === "Query read timeout";
}

/**
 * Closes a client's connection at once: the socket is destroyed (Neon: its WebSocket is
 * terminated without the closing handshake, which a partition would never answer). The
 * client then fails its queued queries ("Connection terminated unexpectedly"), stops being
 * queryable, and the pool drops it instead of lending it again.
 */
function sever(client: PooledClient): void {
  const stream = client.connection?.stream;
  try {
    stream?.destroy?.();
    stream?.ws?.terminate?.();
  } catch {
    // already closed
  }
}

/**
 * Makes the pool's connections safe to lose:
 *
 * - logs, instead of crashing on, a connection the server ends (restart, idle timeout,
 *   `pg_terminate_backend`). node-postgres listens for errors only on idle pooled clients; a
 *   client checked out between two statements of a transaction emits an `error` event that,
 *   unheard, kills the process (node-postgres docs, "Pooling": error handling). With a
 *   listener on every client, the next statement fails instead and the request gets 503
 *   STORAGE_ERROR;
 * - when a query passes `query_timeout`, node-postgres answers it but keeps the connection,
 *   still waiting for the lost reply: every later query on it would queue behind that reply
 *   and time out too, and the pool would lend it again. So the timed-out connection is
 *   severed, and so is every connection idle in the pool at that moment: a query that got
 *   no answer means the network to the server is suspect, and an idle connection from
 *   before a partition may be dead without knowing it. Fresh connections replace them;
 * - a checked-out client whose connection ends is given back to the pool at once (with the
 *   error, so the pool drops it), and its later `release()` does nothing. Drizzle's
 *   transaction runs BEGIN before its try/finally, so a BEGIN that fails would otherwise
 *   never release its client: each one would leak a pool slot until the pool is empty and
 *   every request waits for a connection that never comes.
 */
function guardConnections(pool: EventedPool, label: string): void {
  const log = (error: Error) => console.error(`${label} connection error: ${describeError(error)}`);
  const idle = new Set<PooledClient>();
  const onTimeout = (client: PooledClient) => {
    sever(client);
    for (const other of [...idle]) {
      idle.delete(other);
      sever(other);
    }
  };
  pool.on("error", log);
  pool.on("connect", (client) => {
    client.on("error", log);
    const query = client.query;
    client.query = function boundedQuery(this: PooledClient, ...args: unknown[]) {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (error: unknown, result: unknown) => {
          if (isQueryTimeout(error)) onTimeout(client);
          return (callback as (e: unknown, r: unknown) => unknown)(error, result);
        };
      }
      const result = query.apply(this, args);
      if (result && typeof (result as Promise<unknown>).then === "function") {
        (result as Promise<unknown>).then(undefined, (error: unknown) => {
          if (isQueryTimeout(error)) onTimeout(client);
        });
      }
      return result;
    };
  });
  const adopt = (client: PooledClient): PooledClient => {
    const release = client.release;
    let released = false;
    const onEnd = () => {
      if (released) return;
      released = true;
      release(new Error("connection ended while checked out"));
    };
    client.once("end", onEnd);
    client.release = (error) => {
      if (released) return;
      released = true;
      client.removeListener("end", onEnd);
      release(error);
    };
    return client;
  };
  const connect = pool.connect;
  pool.connect = function guardedConnect(this: EventedPool, callback?: ConnectCallback) {
    if (typeof callback === "function") {
      return connect.call(this, (error, client) => {
        if (!client) return callback(error);
        const adopted = adopt(client);
        return callback(error, adopted, adopted.release);
      });
    }
    return (connect.call(this) as Promise<PooledClient>).then(adopt);
  };
  pool.on("acquire", (client) => idle.delete(client));
  pool.on("release", (_error, client) => idle.add(client));
  pool.on("remove", (client) => idle.delete(client));
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

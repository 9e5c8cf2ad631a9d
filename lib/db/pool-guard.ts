/**
 * The guard of a networked pool (node-postgres or Neon): the time bounds every wait on the
 * database gets from `DB_QUERY_TIMEOUT_MS`, and `guardConnections`, which keeps a lost or
 * timed-out connection from crashing the process, poisoning the pool or leaking a pool slot.
 * lib/db/client.ts opens the pools with both; the embedded PGlite has no network and needs neither.
 */
import { type Config, getConfig } from "../config.js";
import { describeError } from "../log-error.js";

/**
 * Time bounds of a networked pool (node-postgres or Neon), from `DB_QUERY_TIMEOUT_MS`.
 * `0` turns every bound off (migrations, whose statements may legitimately run long).
 */
export interface PoolBounds {
  /** Client-side bound of one query (and of a checkout or a new connection), ms; 0 = none. */
  queryTimeoutMs: number;
  /**
   * Server-side bound of one statement (`statement_timeout`), ms; default (and always in the
   * service: `poolBounds` never sets it) 80 % of `queryTimeoutMs`. Tests set it far below the
   * client's bound, so that the server's cancel is certain to answer before the client's timer
   * fires, however loaded the machine. Ignored when `queryTimeoutMs` is 0.
   */
  statementTimeoutMs?: number;
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
 * - `statement_timeout` = 80 % of t (or `bounds.statementTimeoutMs`), sent at connect: on a
 *   healthy network the server cancels a slow statement (or a lock wait) first, answers
 *   SQLSTATE 57014 and the connection stays usable;
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
    statement_timeout: bounds.statementTimeoutMs ?? Math.max(1, Math.floor(t * 0.8)),
    idle_in_transaction_session_timeout: 2 * t,
    connectionTimeoutMillis: t,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/** The parts of a node-postgres / Neon client the guard touches. */
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
export interface EventedPool {
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
export function guardConnections(pool: EventedPool, label: string): void {
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

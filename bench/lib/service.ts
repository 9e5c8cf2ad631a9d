/**
 * The service itself, in-process: the database opened first, then the local host of
 * `npm start` without crons. Library modules are imported only after the environment
 * is set, since the configuration is parsed once per process. The per-key and per-IP
 * rate limits are raised (100,000,000 a minute by default) so that load
 * runs measure the limiter's cost instead of its 429s.
 */
import type { RunningServer } from "./bare-server.js";

/** Options of `startService`. */
export interface ServiceOptions {
  /** Project root (holds api/, public/, vercel.json). */
  root: string;
  /** A postgres:// URL; unset: in-memory embedded PGlite (`DATA_DIR=memory://`). */
  databaseUrl?: string;
  /** RATE_LIMIT_KEY_PER_MIN and RATE_LIMIT_ANON_PER_MIN; default `BENCH_RATE_LIMIT_PER_MIN`. */
  rateLimitPerMin?: number;
}

/** Requests per minute per key and per IP the benchmarks run under. */
export const BENCH_RATE_LIMIT_PER_MIN = 100_000_000;

/** The running service and the database driver it uses. */
export interface RunningService extends RunningServer {
  driver: string;
  /** The driver's client under drizzle: the PGlite instance, or node-postgres' pool. */
  client: unknown;
  /** The node-postgres pool's size (`DATABASE_POOL_MAX`). */
  poolMax: number;
  /** Writes the activity rows queued so far (`flushActivity`); resolves once they are in the database. */
  flush(): Promise<void>;
}

/** Opens the database, starts the local host on 127.0.0.1 port 0, and resolves once it listens. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  if (options.databaseUrl) {
    process.env.DATABASE_URL = options.databaseUrl;
  } else {
    delete process.env.DATABASE_URL;
    process.env.DATA_DIR = "memory://";
  }
  const perMin = String(options.rateLimitPerMin ?? BENCH_RATE_LIMIT_PER_MIN);
  process.env.RATE_LIMIT_KEY_PER_MIN = perMin;
  process.env.RATE_LIMIT_ANON_PER_MIN = perMin;
  const { getConfig, resetConfig } = await import("../../lib/config.js");
  resetConfig();
  const { closeDatabase, getDatabase } = await import("../../lib/db/client.js");
  const { startLocalHost } = await import("../../scripts/local-host.js");
  const { flushActivity, resetActivityBatching } = await import("../../lib/activity/record-activity.js");
  resetActivityBatching();
  const database = await getDatabase();
  const host = await startLocalHost({
    root: options.root,
    port: 0,
    host: "127.0.0.1",
    crons: false,
    log: () => {},
  });
  return {
    url: host.url,
    driver: database.driver,
    client: (database.db as unknown as { $client: unknown }).$client,
    poolMax: getConfig().DATABASE_POOL_MAX,
    flush: flushActivity,
    async close() {
      await host.close();
      await flushActivity();
      await closeDatabase();
    },
  };
}

/**
 * The equal-work peer of the `http` benchmark (issue 30 item 4): what a competent team would write
 * on the same stack for the estimate, doing the same work as our endpoint. Hono 4 on
 * `@hono/node-server`, and per request:
 *
 * - a request id (`hono/request-id`: `X-Request-Id`, a random UUID) and CORS headers
 *   (`hono/cors`, any origin, the same headers exposed as ours);
 * - a per-IP rate limit with `@upstash/ratelimit` (sliding window, as ours), `RateLimit-*` headers,
 *   429 when refused. Its backend is the one ours uses in the same run: ours counts in-process
 *   when Upstash is not configured (the embedded profile, and the benchmark's), so the peer's
 *   `Ratelimit` talks to {@link InProcessRedis}, an in-process stand-in that runs the library's
 *   sliding-window script (the same arithmetic, `EVALSHA` then `EVAL` on `NOSCRIPT`, as Redis);
 * - the query validated with zod, the estimate computed (`estimateAnswer`, shared with the Hono +
 *   zod route);
 * - one activity-log row inserted with drizzle into the same `activity_log` table of the same
 *   database as ours (in-memory PGlite: the service's own instance, through the peer's own drizzle
 *   instance, since a second process cannot open an in-memory PGlite; PostgreSQL: its own
 *   node-postgres pool of the same size on the same database). The insert is not awaited by the
 *   response (what `waitUntil` does on Vercel, as ours writes after the response); `drain()`
 *   waits for the inserts still running, so a run can count them.
 */
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { type RequestIdVariables, requestId } from "hono/request-id";
import { activityLog } from "../../lib/db/schema/index.js";
import type { RunningServer } from "./bare-server.js";
import { estimateAnswer } from "./peers.js";

/** Where the peer writes its rows: the service's PGlite instance, or a PostgreSQL URL and pool size. */
export type PeerDatabase = { kind: "pglite"; client: unknown } | { kind: "pg"; url: string; poolMax: number };

/** The running peer; `drain` resolves once every insert started so far has ended. */
export interface EqualWorkPeer extends RunningServer {
  drain(): Promise<void>;
  /** Rows inserted and inserts that failed so far. */
  readonly written: number;
  readonly failed: number;
}

/** A marker of `@upstash/ratelimit`'s single-region sliding-window limit script (2.x). */
const SLIDING_WINDOW_MARKER = "local percentageInCurrent = ( now % window ) / window";

/**
 * An in-process stand-in for the Redis `@upstash/ratelimit` talks to: `evalsha`/`eval` of the
 * library's sliding-window limit script, run in JavaScript on a Map (keys expire as the script's
 * `PEXPIRE` says). An unknown hash answers `NOSCRIPT` as Redis does, so the library sends the
 * script once with `EVAL`; any other script is refused.
 */
export class InProcessRedis {
  private readonly values = new Map<string, { value: number; expiresAt: number }>();
  private readonly known = new Set<string>();

  /** Runs a script already sent with `eval` (by its SHA-1), or answers NOSCRIPT. */
  async evalsha(hash: string, keys: string[], args: unknown[]): Promise<[number, number]> {
    if (!this.known.has(hash)) throw new Error("NOSCRIPT No matching script. Please use EVAL.");
    return this.slidingWindow(keys, args);
  }

  /** Runs `script` (only the sliding-window limit script is known) and remembers its SHA-1. */
  async eval(script: string, keys: string[], args: unknown[]): Promise<[number, number]> {
    if (!script.includes(SLIDING_WINDOW_MARKER)) throw new Error("ERR script not supported in process");
    this.known.add(createHash("sha1").update(script).digest("hex"));
    return this.slidingWindow(keys, args);
  }

  private get(key: string, now: number): number {
    const entry = this.values.get(key);
    if (!entry) return 0;
    if (entry.expiresAt <= now) {
      this.values.delete(key);
      return 0;
    }
    return entry.value;
  }

  /** The script's arithmetic: KEYS current/previous window, ARGV tokens, now (ms), window (ms), increment. */
  private slidingWindow(keys: string[], args: unknown[]): [number, number] {
    const [currentKey, previousKey] = keys as [string, string];
    const tokens = Number(args[0]);
    const now = Number(args[1]);
    const window = Number(args[2]);
    const incrementBy = Number(args[3]);
    const clock = Date.now();
    const current = this.get(currentKey, clock);
    const previous = Math.floor((1 - (now % window) / window) * this.get(previousKey, clock));
    if (incrementBy > 0 && previous + current >= tokens) return [-1, tokens];
    const value = current + incrementBy;
    const entry = this.values.get(currentKey);
    if (entry) entry.value = value;
    else this.values.set(currentKey, { value, expiresAt: clock + window * 2 + 1000 });
    return [tokens - (value + previous), tokens];
  }
}

/** Exposed headers of the peer's CORS answer: the ones ours exposes for this endpoint. */
const EXPOSED = ["X-Request-Id", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

/**
 * Starts the equal-work peer on 127.0.0.1, port 0: `GET /estimate` (see the module comment).
 * @param database where the activity rows go (the same database as the service's in the run)
 * @param perIpPerMin requests a minute per IP (the service's `RATE_LIMIT_ANON_PER_MIN` in the run)
 */
export async function startEqualWorkPeer(
  database: PeerDatabase,
  perIpPerMin: number,
): Promise<EqualWorkPeer> {
  let db: {
    insert: (table: typeof activityLog) => {
      values: (row: typeof activityLog.$inferInsert) => Promise<unknown>;
    };
  };
  let closeDb: () => Promise<void> = async () => {};
  if (database.kind === "pglite") {
    const { drizzle } = await import("drizzle-orm/pglite");
    db = drizzle(database.client as never) as unknown as typeof db;
  } else {
    const pg = (await import("pg")).default;
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const pool = new pg.Pool({ connectionString: database.url, max: database.poolMax });
    pool.on("error", (error) => console.error("equal-work peer: idle connection lost:", error.message));
    db = drizzle(pool) as unknown as typeof db;
    closeDb = () => pool.end();
  }
  const ratelimit = new Ratelimit({
    redis: new InProcessRedis() as unknown as Redis,
    limiter: Ratelimit.slidingWindow(perIpPerMin, "60 s"),
    prefix: "peer:rl",
    analytics: false,
  });
  const pending = new Set<Promise<unknown>>();
  let written = 0;
  let failed = 0;

  const app = new Hono<{ Variables: RequestIdVariables }>();
  app.use(requestId());
  app.use(cors({ origin: "*", exposeHeaders: EXPOSED }));
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const insert = db
      .insert(activityLog)
      .values({
        at: new Date(),
        requestId: c.get("requestId"),
        apiKeyId: null,
        ip: getConnInfo(c).remote.address ?? "unknown",
        method: c.req.method,
        endpoint: c.req.path,
        status: c.res.status,
        latencyMs: Math.round(performance.now() - started),
      })
      .then(
        () => {
          written++;
        },
        (error: unknown) => {
          if (failed++ === 0) console.error("equal-work peer: activity insert failed:", error);
        },
      )
      .finally(() => pending.delete(insert));
    pending.add(insert);
  });
  app.use(async (c, next) => {
    const ip = getConnInfo(c).remote.address ?? "unknown";
    const limit = await ratelimit.limit(ip);
    c.header("RateLimit-Limit", String(limit.limit));
    c.header("RateLimit-Remaining", String(limit.remaining));
    c.header("RateLimit-Reset", String(Math.max(0, Math.ceil((limit.reset - Date.now()) / 1000))));
    if (!limit.success) {
      c.header("Retry-After", String(Math.max(1, Math.ceil((limit.reset - Date.now()) / 1000))));
      return c.json({ error: { code: "RATE_LIMITED" }, request_id: c.get("requestId") }, 429);
    }
    await next();
  });
  app.get("/estimate", (c) => {
    const answer = estimateAnswer(c.req.query(), c.get("requestId"));
    c.header("Cache-Control", "no-store");
    return c.json(answer.body, answer.status);
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const drain = async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    drain,
    get written() {
      return written;
    },
    get failed() {
      return failed;
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as import("node:http").Server).closeAllConnections();
      });
      await drain();
      await closeDb();
    },
  };
}

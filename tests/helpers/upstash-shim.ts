/**
 * Test-only loopback server that speaks the Upstash Redis REST protocol in front of a real Redis,
 * so `@upstash/redis` and `@upstash/ratelimit` run their production code paths against real data.
 *
 * Protocol (as `@upstash/redis` 1.39 uses it):
 * - every request is `POST` with `Authorization: Bearer <token>` (or `?_token=`); otherwise 401 `{"error":"Unauthorized"}`;
 * - `POST /` with `["CMD", ...args]` → 200 `{"result": ...}`, or 400 `{"error":"ERR ..."}` when Redis rejects the command;
 * - `POST /pipeline` with `[[...], [...]]` → 200 `[{"result": ...} | {"error": "..."}, ...]` (not atomic);
 * - `POST /multi-exec` with `[[...], [...]]` → the same array, run inside MULTI/EXEC; a transaction Redis
 *   discards as a whole (EXECABORT) answers 400 `{"error": "EXECABORT ..."}`;
 * - with `Upstash-Encoding: base64` every string in `result` (also nested in arrays) is base64 of the raw
 *   bytes, except the exact string `OK`; integers and nulls stay as they are. Errors are never encoded.
 *
 * Lua scripts: `@upstash/ratelimit` 2.x scripts start with `#!lua flags=allow-key-locking`, an Upstash-only
 * flag stock Redis rejects (`ERR Unexpected flag in script shebang: allow-key-locking`). The shim blanks that
 * first line, remembers sha1(original) → rewritten script, and runs `EVALSHA <original sha>` as `EVAL` of
 * the rewritten script; an unknown sha is passed through so Redis answers the exact
 * `NOSCRIPT No matching script. Please use EVAL.` and the client falls back to `EVAL`.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis as IORedis } from "ioredis";

/** What the shim does with each request. */
export type UpstashShimMode = "normal" | "hang" | "error";

/** A running shim; see {@link startUpstashShim}. */
export interface UpstashShim {
  /** Base URL to give `new Redis({ url })`, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  /** Bearer token the shim requires. */
  token: string;
  /** Number of HTTP requests received so far (including rejected and hanging ones). */
  readonly requests: number;
  /**
   * `normal`: serve requests. `hang`: accept requests and never answer (Redis stopped answering).
   * `error`: answer every request with HTTP 500 `{"error":"ERR upstash-shim: injected failure"}`.
   */
  setMode(mode: UpstashShimMode): void;
  /** Closes the HTTP server (destroying open and hanging sockets) and the Redis connection. */
  close(): Promise<void>;
}

/** Options for {@link startUpstashShim}. */
export interface UpstashShimOptions {
  /** Redis to forward to; default `$REDIS_URL` or `redis://127.0.0.1:6379`. */
  redisUrl?: string;
  /** Bearer token to require; default random. */
  token?: string;
}

type Arg = string | Buffer;
type Outcome = { result: unknown } | { error: string };

/** One command after script rewriting: what to send to Redis, and how to map the reply back. */
type Prepared =
  | { kind: "send"; args: Arg[]; mapReply?: (reply: unknown) => unknown }
  | { kind: "fail"; error: string };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Commands that would break the single shared connection (subscriber mode, DB switch, …). */
const REFUSED = new Set([
  "SUBSCRIBE",
  "PSUBSCRIBE",
  "SSUBSCRIBE",
  "UNSUBSCRIBE",
  "PUNSUBSCRIBE",
  "SUNSUBSCRIBE",
  "MONITOR",
  "QUIT",
  "RESET",
  "SELECT",
  "AUTH",
  "HELLO",
  "MULTI",
  "EXEC",
  "DISCARD",
  "WATCH",
  "UNWATCH",
  "SHUTDOWN",
  "FLUSHALL",
  "FLUSHDB",
]);

function sha1(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex");
}

/** Replaces an Upstash shebang line (`#!lua flags=...`) with an empty line, keeping line numbers. */
function stripShebang(script: string): string {
  if (!script.startsWith("#!")) return script;
  const nl = script.indexOf("\n");
  return nl === -1 ? "" : script.slice(nl);
}

/** Turns a reply from ioredis `callBuffer` into the JSON Upstash would send. */
function encodeReply(reply: unknown, base64: boolean): unknown {
  if (reply === null || reply === undefined) return null;
  if (Buffer.isBuffer(reply)) {
    if (!base64) return reply.toString("utf8");
    const text = reply.toString("latin1");
    return text === "OK" ? "OK" : reply.toString("base64");
  }
  if (typeof reply === "string") {
    if (!base64 || reply === "OK") return reply;
    return Buffer.from(reply, "utf8").toString("base64");
  }
  if (typeof reply === "number") return reply;
  if (typeof reply === "bigint") return Number(reply);
  if (Array.isArray(reply)) return reply.map((item) => encodeReply(item, base64));
  if (reply instanceof Error) return encodeReply(reply.message, base64);
  if (reply instanceof Map) return [...reply].flat().map((item) => encodeReply(item, base64));
  if (typeof reply === "object")
    return Object.entries(reply)
      .flat()
      .map((item) => encodeReply(item, base64));
  return reply;
}

/**
 * Upper-cases the command name: ioredis applies its reply transformers (HGETALL → object, ZRANGE
 * WITHSCORES → pairs, …) by exact lower-case name, and the shim must see Redis's raw reply shape.
 */
function commandName(name: Arg | undefined): string {
  return String(name).toUpperCase();
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Validates one JSON command and converts its arguments to strings as the Upstash server would. */
function parseCommand(raw: unknown): Arg[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new HttpError(400, "ERR command must be a non-empty JSON array");
  }
  return raw.map((arg) => {
    if (typeof arg === "string") return arg;
    if (typeof arg === "number" || typeof arg === "boolean") return String(arg);
    if (arg === null) return "null";
    throw new HttpError(400, "ERR command arguments must be strings or numbers");
  });
}

function parseBatch(raw: unknown): Arg[][] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new HttpError(400, "ERR pipeline body must be a non-empty JSON array of commands");
  }
  return raw.map(parseCommand);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Starts an Upstash-REST-compatible server on `127.0.0.1` (random port) that forwards to a real Redis.
 * Resolves once both the HTTP server listens and the Redis connection is ready.
 */
export async function startUpstashShim(options: UpstashShimOptions = {}): Promise<UpstashShim> {
  const token = options.token ?? randomBytes(18).toString("base64url");
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  // RESP2, as Upstash answers: under ioredis 6's default RESP3, Redis itself would answer some
  // commands in another shape (ZRANGE … WITHSCORES as [member, score] pairs instead of one flat list).
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, protocol: 2 });
  let lastRedisError: unknown;
  redis.on("error", (err: unknown) => {
    lastRedisError = err; // commands report their own errors; this only keeps ioredis quiet
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect(); // stop ioredis from reconnecting in the background
    throw lastRedisError ?? err;
  }

  /** sha1 of a script as the client sent it → the script Redis can run. */
  const scripts = new Map<string, string>();
  let mode: UpstashShimMode = "normal";
  let requests = 0;

  const learn = (original: string): string => {
    const runnable = stripShebang(original);
    scripts.set(sha1(original), runnable);
    return runnable;
  };

  const prepare = (args: Arg[]): Prepared => {
    const name = String(args[0]).toUpperCase();
    if (REFUSED.has(name))
      return { kind: "fail", error: `ERR Command is not allowed: ${name.toLowerCase()}` };
    if ((name === "EVAL" || name === "EVAL_RO") && args.length >= 2) {
      return { kind: "send", args: [name, learn(String(args[1])), ...args.slice(2)] };
    }
    if ((name === "EVALSHA" || name === "EVALSHA_RO") && args.length >= 2) {
      const script = scripts.get(String(args[1]).toLowerCase());
      // Unknown sha: let Redis answer (NOSCRIPT, or run a script loaded some other way).
      if (script === undefined) return { kind: "send", args };
      return { kind: "send", args: [name === "EVALSHA" ? "EVAL" : "EVAL_RO", script, ...args.slice(2)] };
    }
    if (name === "SCRIPT" && args.length >= 2) {
      const sub = String(args[1]).toUpperCase();
      if (sub === "LOAD" && args.length === 3) {
        const original = String(args[2]);
        const sha = sha1(original);
        return { kind: "send", args: ["SCRIPT", "LOAD", learn(original)], mapReply: () => sha };
      }
      if (sub === "EXISTS") {
        const shas = args.slice(2).map((s) => String(s).toLowerCase());
        return {
          kind: "send",
          args,
          mapReply: (reply) =>
            Array.isArray(reply) ? reply.map((v, i) => (scripts.has(shas[i] ?? "") ? 1 : v)) : reply,
        };
      }
      if (sub === "FLUSH") {
        const mapReply = (reply: unknown) => {
          scripts.clear();
          return reply;
        };
        return { kind: "send", args, mapReply };
      }
    }
    return { kind: "send", args };
  };

  const runOne = async (args: Arg[], base64: boolean): Promise<Outcome> => {
    const prepared = prepare(args);
    if (prepared.kind === "fail") return { error: prepared.error };
    const [name, ...rest] = prepared.args;
    try {
      const reply = await redis.callBuffer(commandName(name), ...rest);
      const mapped = prepared.mapReply ? prepared.mapReply(reply) : reply;
      return { result: encodeReply(mapped, base64) };
    } catch (err) {
      return { error: errorMessage(err) };
    }
  };

  const runPipeline = async (commands: Arg[][], base64: boolean): Promise<Outcome[]> => {
    const prepared = commands.map(prepare);
    const pipeline = redis.pipeline();
    for (const p of prepared) {
      if (p.kind === "send") {
        const [name, ...rest] = p.args;
        pipeline.callBuffer(commandName(name), ...rest);
      }
    }
    const replies = (await pipeline.exec()) ?? [];
    let next = 0;
    return prepared.map((p) => {
      if (p.kind === "fail") return { error: p.error };
      const [err, reply] = replies[next++] ?? [new Error("ERR missing pipeline reply"), null];
      if (err) return { error: errorMessage(err) };
      return { result: encodeReply(p.mapReply ? p.mapReply(reply) : reply, base64) };
    });
  };

  const runMulti = async (commands: Arg[][], base64: boolean): Promise<Outcome[]> => {
    const prepared = commands.map(prepare);
    const refused = prepared.find((p) => p.kind === "fail");
    if (refused?.kind === "fail") throw new HttpError(400, refused.error);
    const multi = redis.multi();
    for (const p of prepared) {
      if (p.kind === "send") {
        const [name, ...rest] = p.args;
        multi.callBuffer(commandName(name), ...rest);
      }
    }
    let replies: [Error | null, unknown][];
    try {
      replies = (await multi.exec()) ?? [];
    } catch (err) {
      // EXECABORT (a command was rejected while queuing): the whole transaction is discarded.
      throw new HttpError(400, errorMessage(err));
    }
    return prepared.map((p, i) => {
      const [err, reply] = replies[i] ?? [new Error("ERR missing transaction reply"), null];
      if (err) return { error: errorMessage(err) };
      const mapped = p.kind === "send" && p.mapReply ? p.mapReply(reply) : reply;
      return { result: encodeReply(mapped, base64) };
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const auth = req.headers.authorization ?? "";
    const given = auth.startsWith("Bearer ") ? auth.slice(7) : url.searchParams.get("_token");
    if (given !== token) return send(res, 401, { error: "Unauthorized" });
    if (mode === "error") return send(res, 500, { error: "ERR upstash-shim: injected failure" });
    if (req.method !== "POST" && req.method !== "PUT") return send(res, 405, { error: "Method Not Allowed" });

    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (err) {
      return send(res, 400, { error: `ERR failed to parse JSON request body: ${errorMessage(err)}` });
    }
    const path = url.pathname.replace(/\/+$/, "");
    if (path === "") {
      const outcome = await runOne(parseCommand(body), base64);
      return send(res, "error" in outcome ? 400 : 200, outcome);
    }
    if (path === "/pipeline") return send(res, 200, await runPipeline(parseBatch(body), base64));
    if (path === "/multi-exec") return send(res, 200, await runMulti(parseBatch(body), base64));
    return send(res, 404, { error: `ERR upstash-shim: unsupported path ${url.pathname}` });
  };

  const server: Server = createServer((req, res) => {
    requests++;
    if (mode === "hang") {
      // Consume the body so the client thinks the request was delivered, then never answer.
      req.resume();
      return;
    }
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof HttpError) return send(res, err.status, { error: err.message });
      send(res, 500, { error: `ERR upstash-shim: ${errorMessage(err)}` });
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get requests() {
      return requests;
    },
    setMode(next) {
      mode = next;
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}

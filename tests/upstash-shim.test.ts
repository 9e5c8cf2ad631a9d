/**
 * Runs the real `@upstash/redis` and `@upstash/ratelimit` clients against the Upstash REST shim
 * (tests/helpers/upstash-shim.ts), which forwards to the Redis on 127.0.0.1:6379.
 */
import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { Redis as IORedis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstashShim, type UpstashShim } from "./helpers/upstash-shim.js";
import { startInsideWindow } from "./helpers/windows.js";

const PREFIX = `ptes-test:upstash-shim:${randomUUID()}:`;
const key = (name: string) => `${PREFIX}${name}`;

let shim: UpstashShim;
let faulty: UpstashShim;
let redis: Redis;
let direct: IORedis;

beforeAll(async () => {
  [shim, faulty] = await Promise.all([startUpstashShim(), startUpstashShim()]);
  redis = new Redis({ url: shim.url, token: shim.token, enableTelemetry: false });
  direct = new IORedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: true });
  await direct.connect();
});

afterAll(async () => {
  const keys = await direct.keys(`${PREFIX}*`);
  if (keys.length > 0) await direct.del(...keys);
  await direct.quit();
  await Promise.all([shim?.close(), faulty?.close()]);
});

describe("upstash shim: @upstash/redis commands", () => {
  it("round-trips strings, non-ASCII text and JSON values", async () => {
    const text = "Montréal — café ☕ 日本語 🚀";
    const obj = { a: 1, list: ["x", "é"], nested: { ok: true, none: null } };
    expect(await redis.set(key("text"), text)).toBe("OK");
    expect(await redis.set(key("obj"), obj)).toBe("OK");
    expect(await redis.set(key("ok"), "OK")).toBe("OK");
    expect(await redis.get<string>(key("text"))).toBe(text);
    expect(await redis.get(key("obj"))).toEqual(obj);
    expect(await redis.get(key("ok"))).toBe("OK");
    expect(await redis.get(key("missing"))).toBeNull();
    // What the client sent really is in Redis, byte for byte.
    expect(await direct.get(key("text"))).toBe(text);
    expect(JSON.parse((await direct.get(key("obj"))) ?? "null")).toEqual(obj);
  });

  it("increments", async () => {
    expect(await redis.incr(key("counter"))).toBe(1);
    expect(await redis.incr(key("counter"))).toBe(2);
    expect(await redis.incrby(key("counter"), 10)).toBe(12);
  });

  it("set with nx + ex only sets once and applies the TTL", async () => {
    expect(await redis.set(key("lock"), "first", { nx: true, ex: 60 })).toBe("OK");
    expect(await redis.set(key("lock"), "second", { nx: true, ex: 60 })).toBeNull();
    expect(await redis.get(key("lock"))).toBe("first");
    const ttl = await redis.ttl(key("lock"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it("runs a pipeline, reporting per-command errors", async () => {
    const p = redis.pipeline();
    p.set(key("p1"), "a");
    p.incr(key("p2"));
    p.get(key("p1"));
    p.lrange(key("nolist"), 0, -1);
    expect(await p.exec()).toEqual(["OK", 1, "a", []]);

    const bad = redis.pipeline();
    bad.set(key("p3"), "not a number");
    bad.incr(key("p3"));
    await expect(bad.exec()).rejects.toThrow(/Command 2 \[ incr \] failed: ERR value is not an integer/);

    const kept = redis.pipeline();
    kept.incr(key("p3"));
    kept.get(key("p3"));
    const results = await kept.exec({ keepErrors: true });
    expect(results[0]?.error).toMatch(/^ERR value is not an integer/);
    expect(results[1]).toEqual({ error: undefined, result: "not a number" });
  });

  it("runs a MULTI/EXEC transaction", async () => {
    const tx = redis.multi();
    tx.set(key("m1"), "x");
    tx.incr(key("m2"));
    tx.incr(key("m2"));
    tx.hset(key("m3"), { field: "välue" });
    tx.hgetall(key("m3"));
    expect(await tx.exec()).toEqual(["OK", 1, 2, 1, { field: "välue" }]);
  });

  it("auto-pipelining (default) batches concurrent commands: one request for writes, one for reads", async () => {
    await redis.set(key("ap0"), "zero");
    const before = shim.requests;
    const results = await Promise.all([
      redis.set(key("ap1"), "1"),
      redis.incr(key("ap2")),
      redis.hset(key("ap3"), { a: "x", b: "ÿ" }),
      redis.get(key("ap0")),
      redis.exists(key("ap0"), key("nope")),
      redis.strlen(key("ap0")),
    ]);
    expect(results).toEqual(["OK", 1, 2, "zero", 1, 4]);
    expect(shim.requests - before).toBe(2);
    // A failing command rejects alone; its batch neighbours still succeed.
    const [bad, good] = await Promise.allSettled([redis.incr(key("ap0")), redis.incr(key("ap2"))]);
    expect(bad.status === "rejected" && String(bad.reason)).toMatch(
      /Command failed: ERR value is not an integer/,
    );
    expect(good).toEqual({ status: "fulfilled", value: 2 });
    expect(await redis.hgetall(key("ap3"))).toEqual({ a: "x", b: "ÿ" });
  });

  it("without auto-pipelining sends one request per command", async () => {
    const plain = new Redis({
      url: shim.url,
      token: shim.token,
      enableAutoPipelining: false,
      enableTelemetry: false,
    });
    const before = shim.requests;
    const results = await Promise.all([
      plain.set(key("np1"), "é"),
      plain.incr(key("np2")),
      plain.get(key("np1")),
    ]);
    expect(results).toEqual(["OK", 1, "é"]);
    expect(shim.requests - before).toBe(3);
    // A single-command error arrives as HTTP 400 {error} and rejects the call.
    await expect(plain.incr(key("np1"))).rejects.toThrow(/ERR value is not an integer/);
  });

  it("works without base64 response encoding too", async () => {
    const utf8 = new Redis({
      url: shim.url,
      token: shim.token,
      responseEncoding: false,
      enableTelemetry: false,
    });
    expect(await utf8.set(key("enc"), "naïve 🚀")).toBe("OK");
    expect(await utf8.get(key("enc"))).toBe("naïve 🚀");
    expect(await utf8.mget(key("enc"), key("nothing"))).toEqual(["naïve 🚀", null]);
  });

  it("rejects a wrong token", async () => {
    const wrong = new Redis({ url: shim.url, token: "wrong-token", enableTelemetry: false });
    await expect(wrong.get(key("text"))).rejects.toThrow(/Unauthorized/);
  });

  it("answers the raw protocol: 401, bad JSON, NOSCRIPT", async () => {
    const post = (path: string, body: string, token = shim.token) =>
      fetch(`${shim.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body });
    const unauth = await post("/", '["PING"]', "nope");
    expect(unauth.status).toBe(401);
    expect(await unauth.json()).toEqual({ error: "Unauthorized" });
    const badJson = await post("/", "[not json");
    expect(badJson.status).toBe(400);
    expect((await badJson.json()).error).toMatch(/^ERR /);
    const noscript = await post("/", JSON.stringify(["EVALSHA", "0".repeat(40), 0]));
    expect(noscript.status).toBe(400);
    expect(await noscript.json()).toEqual({ error: "NOSCRIPT No matching script. Please use EVAL." });
    const pipe = await post("/pipeline", JSON.stringify([["PING"], ["GET"]]));
    expect(pipe.status).toBe(200);
    expect(await pipe.json()).toEqual([
      { result: "PONG" },
      { error: "ERR wrong number of arguments for 'get' command" },
    ]);
  });

  it("answers multi-exec: per-command errors at EXEC, 400 when Redis discards the transaction", async () => {
    const post = (body: unknown) =>
      fetch(`${shim.url}/multi-exec`, {
        method: "POST",
        headers: { authorization: `Bearer ${shim.token}`, "upstash-encoding": "base64" },
        body: JSON.stringify(body),
      });
    const ok = await post([
      ["SET", key("mx"), "v"],
      ["INCR", key("mx")],
      ["GET", key("mx")],
    ]);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([
      { result: "OK" },
      { error: "ERR value is not an integer or out of range" },
      { result: Buffer.from("v").toString("base64") },
    ]);
    const aborted = await post([["SET", key("mx"), "w"], ["NOSUCHCOMMAND"]]);
    expect(aborted.status).toBe(400);
    expect((await aborted.json()).error).toMatch(/^EXECABORT/);
    expect(await direct.get(key("mx"))).toBe("v");
  });

  it("handles large bodies", async () => {
    const big = "é".repeat(1_500_000);
    expect(await redis.set(key("big"), big)).toBe("OK");
    expect(await redis.get(key("big"))).toBe(big);
  });

  it("serves EVALSHA of a shebang script after SCRIPT LOAD, with the client's sha", async () => {
    const script = "#!lua flags=allow-key-locking\nreturn {KEYS[1], ARGV[1], 42}";
    const sha = await redis.scriptLoad(script);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await redis.evalsha(sha, [key("k")], ["v"])).toEqual([key("k"), "v", 42]);
    expect(await redis.scriptExists(sha)).toEqual([1]);
  });
});

/**
 * The limiters count in 10 s windows aligned to the epoch: four calls across a window's edge
 * would see a fresh window (one more success than counted). Each test starts with at least
 * 5 s of its window left (waiting for the next one otherwise, up to 5.2 s), far more than its
 * handful of local round trips take on a loaded machine.
 */
const WINDOW_S = 10;
const NEED_MS = 5000;

describe("upstash shim: @upstash/ratelimit", () => {
  it("slidingWindow(3, 10 s): 3 successes, then a failure", async () => {
    await startInsideWindow(WINDOW_S, NEED_MS);
    const limiter = new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(3, "10 s"),
      prefix: key("rl-sliding"),
    });
    const results = [];
    for (let i = 0; i < 4; i++) {
      const r = await limiter.limit("agent-1");
      await r.pending;
      results.push(r);
    }
    expect(results.map((r) => r.success)).toEqual([true, true, true, false]);
    expect(results.slice(0, 3).map((r) => r.remaining)).toEqual([2, 1, 0]);
    for (const r of results) {
      expect(r.limit).toBe(3);
      expect(r.reset).toBeGreaterThan(Date.now());
      expect(r.reason).toBeUndefined();
    }
    // A different identifier is not affected.
    expect((await limiter.limit("agent-2")).success).toBe(true);
  });

  it("fixedWindow(3, 10 s): 3 successes, then a failure", async () => {
    await startInsideWindow(WINDOW_S, NEED_MS);
    // Without auto-pipelining, to exercise the single-command EVALSHA → NOSCRIPT (HTTP 400) → EVAL path.
    const plain = new Redis({
      url: shim.url,
      token: shim.token,
      enableAutoPipelining: false,
      enableTelemetry: false,
    });
    const limiter = new Ratelimit({
      redis: plain,
      limiter: Ratelimit.fixedWindow(3, "10 s"),
      prefix: key("rl-fixed"),
    });
    const before = shim.requests;
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.limit("agent-1"));
    // EVALSHA → NOSCRIPT → EVAL once; afterwards the shim knows the sha and EVALSHA alone succeeds.
    expect(shim.requests - before).toBe(5);
    expect(results.map((r) => r.success)).toEqual([true, true, true, false]);
    expect(results.slice(0, 3).map((r) => r.remaining)).toEqual([2, 1, 0]);
    for (const r of results) {
      expect(r.limit).toBe(3);
      expect(r.reset).toBeGreaterThan(Date.now());
    }
    expect(await direct.keys(`${key("rl-fixed")}*`)).not.toHaveLength(0);
  });
});

describe("upstash shim: faults", () => {
  it("hang: ratelimit gives up after its timeout and fails open with reason 'timeout'", async () => {
    faulty.setMode("hang");
    try {
      const hung = new Redis({ url: faulty.url, token: faulty.token, enableTelemetry: false });
      const limiter = new Ratelimit({
        redis: hung,
        limiter: Ratelimit.slidingWindow(3, "10 s"),
        prefix: key("rl-hang"),
        timeout: 300,
      });
      const before = faulty.requests;
      const started = Date.now();
      const r = await limiter.limit("agent-1");
      const elapsed = Date.now() - started;
      // reason "timeout" says the limiter's own 300 ms bound ended the call (the shim never
      // answers); it waited for it rather than failing at once. No upper bound on the time: that
      // would measure the machine, not the limiter.
      expect(r).toMatchObject({ success: true, reason: "timeout", limit: 0, remaining: 0, reset: 0 });
      expect(elapsed).toBeGreaterThanOrEqual(250);
      // The request was sent (the limiter's bound does not cancel it): it reaches the shim, maybe
      // only after the 300 ms on a loaded machine.
      await expect.poll(() => faulty.requests, { timeout: 10_000 }).toBeGreaterThan(before);
    } finally {
      faulty.setMode("normal");
    }
  });

  it("hang: a plain command with a client-side timeout rejects", async () => {
    faulty.setMode("hang");
    try {
      // The signal must be a *function*: a plain AbortSignal makes the client swallow the abort (below).
      const hung = new Redis({
        url: faulty.url,
        token: faulty.token,
        enableTelemetry: false,
        signal: () => AbortSignal.timeout(200),
      });
      await expect(hung.get(key("text"))).rejects.toThrow(/timeout|abort/i);

      // Surprise: with `signal: AbortSignal` (not a function), @upstash/redis turns the abort into a fake
      // 200 `{result: reason}`: without auto-pipelining the command *resolves* (here to null)…
      const swallowed = new Redis({
        url: faulty.url,
        token: faulty.token,
        enableTelemetry: false,
        enableAutoPipelining: false,
        signal: AbortSignal.timeout(200),
      });
      await expect(swallowed.get(key("text"))).resolves.toBeNull();
      // …and with auto-pipelining it rejects, but only with a TypeError from parsing that fake body.
      const mangled = new Redis({
        url: faulty.url,
        token: faulty.token,
        enableTelemetry: false,
        signal: AbortSignal.timeout(200),
      });
      await expect(mangled.get(key("text"))).rejects.toThrow(TypeError);
    } finally {
      faulty.setMode("normal");
    }
  });

  it("error: every call rejects, then recovers in normal mode", async () => {
    const client = new Redis({ url: faulty.url, token: faulty.token, enableTelemetry: false });
    faulty.setMode("error");
    try {
      await expect(client.get(key("text"))).rejects.toThrow(/injected failure/);
      const limiter = new Ratelimit({
        redis: client,
        limiter: Ratelimit.fixedWindow(3, "10 s"),
        prefix: key("rl-error"),
        // The shim's error comes at once: a short bound could win the race on a loaded machine
        // and turn the rejection into a "timeout" success. This one only guards against a hang.
        timeout: 10_000,
      });
      await expect(limiter.limit("agent-1")).rejects.toThrow(/injected failure/);
    } finally {
      faulty.setMode("normal");
    }
    expect(await client.set(key("after-error"), "ok again")).toBe("OK");
    expect(await client.get(key("after-error"))).toBe("ok again");
  });
});

/**
 * Rate limits through the HTTP wrapper, on both backends: the embedded one and the
 * production one (@upstash/ratelimit + @upstash/redis) against a loopback server
 * speaking Upstash's REST protocol in front of the real Redis on 127.0.0.1:6379.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as createKey, GET as listKeys } from "../../api/api-keys.js";
import { GET as estimate } from "../../api/estimate.js";
import { resetConfig } from "../../lib/config.js";
import { MemoryLimiter, resetLimiters } from "../../lib/ratelimit/limiter.js";
import { useTestDatabase } from "../helpers/db.js";
import { envOverrides } from "../helpers/env.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";
import { startInsideWindow } from "../helpers/windows.js";

useTestDatabase();

const LIMITS = {
  RATE_LIMIT_ANON_PER_MIN: "3",
  RATE_LIMIT_KEY_PER_MIN: "5",
  KEY_CREATIONS_PER_IP_PER_HOUR: "2",
  // Generous for the counting tests: a busy 2-core CI machine has taken more than 300 ms for
  // the shim + Redis round trips of one key creation (two limiters), answered 503. The
  // "stops answering" test below lowers it to keep itself short.
  RATE_LIMIT_TIMEOUT_MS: "5000",
};

// The counts below assume one window. The memory backend counts on a fixed clock, 10 s into a
// minute and an hour (Retry-After exact); @upstash/ratelimit reads the real clock itself, so the
// Upstash tests start well inside a minute window instead (beforeEach).
const FIXED_NOW = Date.UTC(2026, 0, 5, 0, 0, 10);
let limiterClock: (() => number) | undefined;
/** The limiters' time: the fixed clock on the memory backend, the real one on Upstash. */
const limiterNow = () => limiterClock?.() ?? Date.now();

const { set: setEnv, restore: restoreEnv } = envOverrides(() => {
  resetConfig();
  resetLimiters(limiterClock);
});

afterAll(() => {
  limiterClock = undefined;
  restoreEnv();
});

/**
 * Expects the Retry-After of `res` to count to the end of the `windowSeconds` window the request
 * was counted in, `before` and `after` being the limiters' time around the request: an exact
 * value on the fixed clock, a range as narrow as the request was fast on the real one.
 */
function expectRetryAfterToWindowEnd(
  res: Response,
  windowSeconds: number,
  before: number,
  after: number,
): void {
  const windowMs = windowSeconds * 1000;
  const end = (Math.floor(before / windowMs) + 1) * windowMs;
  expect(after, "the request was counted inside one window").toBeLessThan(end);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((end - after) / 1000)));
  expect(retryAfter).toBeLessThanOrEqual(Math.ceil((end - before) / 1000));
  expect(res.headers.get("ratelimit-reset")).toBe(String(retryAfter));
}

const fromIp = (ip: string, extra: Record<string, string> = {}) => ({
  headers: { "x-local-socket-ip": ip, ...extra },
});
const randomIp = () => `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;

let shim: UpstashShim | undefined;
afterAll(async () => {
  await shim?.close();
});

describe.each(["memory", "upstash"] as const)("rate limits on the %s backend", (backend) => {
  beforeAll(async () => {
    if (backend === "upstash") {
      shim ??= await startUpstashShim();
      limiterClock = undefined;
      setEnv({ ...LIMITS, UPSTASH_REDIS_REST_URL: shim.url, UPSTASH_REDIS_REST_TOKEN: shim.token });
    } else {
      limiterClock = () => FIXED_NOW;
      setEnv({ ...LIMITS, UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined });
    }
  });
  beforeEach(async () => {
    shim?.setMode("normal");
    // On the real clock, start well inside a minute window, not at its edge: 15 s left, over ten
    // times what one of these tests takes on a busy 2-core machine (the wait is at most 15.2 s).
    if (backend === "upstash") await startInsideWindow(60, 15_000);
  }, 25_000);

  it("allows 3 anonymous requests per minute per IP, then 429 with Retry-After and RateLimit headers", async () => {
    const ip = randomIp();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { res } = await call(estimate, "/api/estimate?hours=1", fromIp(ip));
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("3");
      remaining.push(res.headers.get("ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const before = limiterNow();
    const { res, body } = await call(estimate, "/api/estimate?hours=1", fromIp(ip));
    const after = limiterNow();
    expectEnvelope(body, res, 429, "RATE_LIMITED");
    expectRetryAfterToWindowEnd(res, 60, before, after);
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    // Another IP is unaffected.
    expect((await call(estimate, "/api/estimate?hours=1", fromIp(randomIp()))).res.status).toBe(200);
  });

  it("counts per key (60/min by default, 5 here), independently of the IP", async () => {
    const key = await makeKey();
    for (let i = 0; i < 5; i++) {
      const { res } = await call(listKeys, "/api/api-keys", fromIp(randomIp(), keyHeaders(key)));
      expect(res.status).toBe(200);
    }
    const { res, body } = await call(listKeys, "/api/api-keys", fromIp(randomIp(), keyHeaders(key)));
    expect(expectEnvelope(body, res, 429, "RATE_LIMITED").message).toMatch(/per API key/);
  });

  it("allows 2 key creations per IP per hour here (3 by default)", async () => {
    const ip = randomIp();
    for (let i = 0; i < 2; i++) {
      const { res } = await call(createKey, "/api/api-keys", {
        method: "POST",
        ...fromIp(ip),
        json: { name: `k${i}`, contact: "rl@example.com" },
      });
      expect(res.status).toBe(201);
    }
    const before = limiterNow();
    const { res, body } = await call(createKey, "/api/api-keys", {
      method: "POST",
      ...fromIp(ip),
      json: { name: "k3", contact: "rl@example.com" },
    });
    const after = limiterNow();
    const error = expectEnvelope(body, res, 429, "RATE_LIMITED");
    expect(error.message).toMatch(/API keys per IP per hour/);
    // Retry-After counts to the end of the current one-hour window (sliding-window reset).
    expectRetryAfterToWindowEnd(res, 3600, before, after);
  });

  if (backend === "upstash") {
    it("fails closed with 503 STORAGE_ERROR when Redis stops answering", async () => {
      setEnv({ RATE_LIMIT_TIMEOUT_MS: "300" });
      try {
        shim!.setMode("hang");
        const started = Date.now();
        const { res, body } = await call(estimate, "/api/estimate?hours=1", fromIp(randomIp()));
        expectEnvelope(body, res, 503, "STORAGE_ERROR");
        expect(res.headers.get("retry-after")).toBeTruthy();
        // Under the 5 s the other tests allow (a request waiting on that timeout takes at least
        // 5 s): the lowered timeout is what answered. Not a speed claim: it takes ~0.3 s, so the
        // bound stays far from it even on a busy machine.
        expect(Date.now() - started).toBeLessThan(5000);
      } finally {
        setEnv({ RATE_LIMIT_TIMEOUT_MS: LIMITS.RATE_LIMIT_TIMEOUT_MS });
      }
    });

    it("fails closed with 503 STORAGE_ERROR when Redis answers errors", async () => {
      shim!.setMode("error");
      const { res, body } = await call(estimate, "/api/estimate?hours=1", fromIp(randomIp()));
      expectEnvelope(body, res, 503, "STORAGE_ERROR");
    });
  }
});

describe("MemoryLimiter", () => {
  it("slides: the previous window's count weighs in proportionally", async () => {
    let now = 60_000 * 10; // start of a window
    const limiter = new MemoryLimiter("anon", 10, 60_000, () => now);
    for (let i = 0; i < 10; i++) expect((await limiter.limit("a")).success).toBe(true);
    expect((await limiter.limit("a")).success).toBe(false);
    now += 60_000 + 15_000; // 25% into the next window: 75% of 10 still counts
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await limiter.limit("a")).success);
    expect(results).toEqual([true, true, true, false]);
    now += 60_000 * 2; // two windows later: clean slate
    expect((await limiter.limit("a")).remaining).toBe(9);
  });
});

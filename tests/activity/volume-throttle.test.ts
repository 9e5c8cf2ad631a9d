/**
 * The volume alert's check throttle (lib/activity/volume-alert.ts `takeDueSubjects`, issue 47
 * item 3): a subject (an API key, an organization) is checked at most once a minute. With Upstash
 * (the production profile; here the Upstash REST shim in front of the real Redis on
 * 127.0.0.1:6379) across every instance; without it, per process (the local profile's one
 * process). Redis failing: this process's throttle decides, the reason logged, nothing thrown.
 * The alert itself: activity.test.ts; two real instances:
 * tests/integration/shared-state-two-instances.test.ts.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CHECK_INTERVAL_MS, resetVolumeThrottle, takeDueSubjects } from "../../lib/activity/volume-alert.js";
import { resetConfig } from "../../lib/config.js";
import type { NewActivityLogEntry } from "../../lib/db/schema/index.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { resetSharedStoreLog } from "../../lib/ratelimit/shared-store.js";
import { envOverrides } from "../helpers/env.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";

const { set: setEnv, restore: restoreEnv } = envOverrides(() => {
  resetConfig();
  resetLimiters();
});

let shim: UpstashShim | undefined;
afterAll(async () => {
  restoreEnv();
  await shim?.close();
});

/** One request's activity entry of a fresh key (and organization): the shared store outlives runs. */
function entryOfNewKey(): NewActivityLogEntry {
  const id = randomBytes(8).toString("hex");
  return { apiKeyId: `key_test_${id}`, orgId: `org_test_${id}` } as NewActivityLogEntry;
}

const subjectIds = (subjects: { id: string }[]) => subjects.map((s) => s.id).sort();

describe.each(["memory", "upstash"] as const)("the volume-alert throttle on the %s store", (store) => {
  beforeAll(async () => {
    if (store === "upstash") {
      shim ??= await startUpstashShim();
      setEnv({
        RATE_LIMIT_TIMEOUT_MS: "5000",
        UPSTASH_REDIS_REST_URL: shim.url,
        UPSTASH_REDIS_REST_TOKEN: shim.token,
      });
    } else {
      setEnv({ UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined });
    }
  });
  beforeEach(() => {
    shim?.setMode("normal");
    resetVolumeThrottle();
    resetSharedStoreLog();
  });

  it(`checks a subject once a minute${store === "upstash" ? " across every instance" : " in this process"}`, async () => {
    const entry = entryOfNewKey();
    const now = Date.now();
    expect(subjectIds(await takeDueSubjects([entry, entry], now))).toEqual(
      [entry.apiKeyId, entry.orgId].sort(),
    );
    expect(await takeDueSubjects([entry], now + 1)).toEqual([]);
    // Another subject is due on its own.
    const other = entryOfNewKey();
    expect(subjectIds(await takeDueSubjects([entry, other], now + 2))).toEqual(
      [other.apiKeyId, other.orgId].sort(),
    );
    resetVolumeThrottle(); // another instance: its memory is empty
    const elsewhere = await takeDueSubjects([entry], now + 3);
    if (store === "upstash") {
      expect(elsewhere).toEqual([]);
      // The shared mark lapses by itself after the interval.
      const redis = new Redis({ url: shim!.url, token: shim!.token });
      const ttl = await redis.pttl(`ptes:va:api_key:${entry.apiKeyId}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(CHECK_INTERVAL_MS);
    } else {
      expect(subjectIds(elsewhere)).toEqual([entry.apiKeyId, entry.orgId].sort());
      // ... and this process checks it again once the interval has passed.
      expect(await takeDueSubjects([entry], now + 3 + CHECK_INTERVAL_MS - 1)).toEqual([]);
      expect(await takeDueSubjects([entry], now + 3 + CHECK_INTERVAL_MS)).toHaveLength(2);
    }
  });

  if (store === "upstash") {
    it("Redis failing: this process's throttle decides, the reason is logged, nothing is thrown", async () => {
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        shim!.setMode("error");
        const entry = entryOfNewKey();
        const now = Date.now();
        expect(await takeDueSubjects([entry], now)).toHaveLength(2);
        expect(await takeDueSubjects([entry], now + 1)).toEqual([]);
        const lines = logged.mock.calls.map((c) => c.join(" "));
        expect(
          lines.some((l) =>
            /\[shared-state\] volume alert: Redis failed .*own once-a-minute throttle/.test(l),
          ),
        ).toBe(true);
      } finally {
        logged.mockRestore();
        shim!.setMode("normal");
      }
    });
  }
});

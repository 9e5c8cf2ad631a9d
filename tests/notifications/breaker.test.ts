/**
 * The webhook circuit breaker's state machine (lib/webhooks/breaker.ts, issue 47 item 1) on both
 * stores: this process's memory (the local profile) and Upstash Redis (the production profile),
 * here the Upstash REST shim in front of the real Redis on 127.0.0.1:6379, so `@upstash/redis`
 * runs its production code. Times are given to the breaker (`at`, epoch ms), never waited for.
 *
 * On Upstash, a fresh instance is this process with its memory forgotten (`resetBreakers`): what
 * it still sees came from the shared store. Redis failing (errors, no answer): this process's own
 * breaker decides, the reason is logged, nothing is thrown. Deliveries themselves: fairness.test.ts,
 * shared-host.test.ts (one probe claimed), tests/integration/shared-state-two-instances.test.ts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { getConfig, resetConfig } from "../../lib/config.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { resetSharedStoreLog } from "../../lib/ratelimit/shared-store.js";
import { admitEndpoints, openedSince, recordBreaker, resetBreakers } from "../../lib/webhooks/breaker.js";
import { envOverrides } from "../helpers/env.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";

const COOLDOWN_MS = 60_000;
const ENV: Record<string, string> = {
  WEBHOOK_BREAKER_FAILURES: "3",
  WEBHOOK_BREAKER_COOLDOWN_SECONDS: String(COOLDOWN_MS / 1000),
  // Generous: a busy 2-core machine has taken over 300 ms for one shim + Redis round trip.
  RATE_LIMIT_TIMEOUT_MS: "5000",
};
const { set: setEnv, restore: restoreEnv } = envOverrides(() => {
  resetConfig();
  resetLimiters();
});

let shim: UpstashShim | undefined;
afterAll(async () => {
  restoreEnv();
  await shim?.close();
});

/** A fresh endpoint key: the shared store outlives test runs. */
const newEndpoint = () => `wh_test_${randomBytes(8).toString("hex")}`;

/** Feeds `n` failures of `endpoint` at `at`. */
async function fail(endpoint: string, n: number, at: number): Promise<void> {
  for (let i = 0; i < n; i++) await recordBreaker(endpoint, false, getConfig(), at);
}

describe.each(["memory", "upstash"] as const)("the webhook breaker on the %s store", (store) => {
  beforeAll(async () => {
    if (store === "upstash") {
      shim ??= await startUpstashShim();
      setEnv({ ...ENV, UPSTASH_REDIS_REST_URL: shim.url, UPSTASH_REDIS_REST_TOKEN: shim.token });
    } else {
      setEnv({ ...ENV, UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined });
    }
  });
  beforeEach(() => {
    shim?.setMode("normal");
    resetBreakers();
    resetSharedStoreLog();
  });

  it("opens at the threshold of consecutive failures, for the cool-down; a success in between starts the count again", async () => {
    const e = newEndpoint();
    const t = Date.now();
    await fail(e, 2, t);
    await recordBreaker(e, true, getConfig(), t);
    await fail(e, 2, t);
    expect((await admitEndpoints(getConfig(), t)).skip).not.toContain(e);
    await fail(e, 1, t);
    const open = await admitEndpoints(getConfig(), t + 1);
    expect(open.skip).toContain(e);
    expect(open.probe).not.toContain(e);
    expect((await admitEndpoints(getConfig(), t + COOLDOWN_MS - 1)).skip).toContain(e);
  });

  it(`${store === "upstash" ? "counts every instance's failures and opens for every instance" : "keeps the state in this process only (the local profile's one process)"}`, async () => {
    const e = newEndpoint();
    const t = Date.now();
    await fail(e, 2, t);
    resetBreakers(); // another instance (or this one restarted): its memory is empty
    await fail(e, 1, t);
    const admission = await admitEndpoints(getConfig(), t + 1);
    if (store === "upstash") expect(admission.skip).toContain(e);
    else expect(admission.skip).not.toContain(e);
  });

  it("half-open after the cool-down: one probe of all workers; unused it is given back; its failure re-opens, its success closes", async () => {
    const e = newEndpoint();
    const t = Date.now();
    await fail(e, 3, t);
    const after = t + COOLDOWN_MS + 1;
    const a = await admitEndpoints(getConfig(), after);
    // (toContain: the shared store may hold other runs' endpoints.)
    expect(a.probe).toContain(e);
    expect(a.skip).not.toContain(e);
    // Another worker meanwhile: the probe is out, so it leaves the endpoint alone.
    const b = await admitEndpoints(getConfig(), after);
    expect(b.skip).toContain(e);
    expect(b.probe).not.toContain(e);
    // The claim found nothing of it to send: the probe is given back and the next worker takes it.
    await a.release(new Set());
    const c = await admitEndpoints(getConfig(), after);
    expect(c.probe).toContain(e);
    await c.release(new Set([e])); // used: kept until its outcome
    expect((await admitEndpoints(getConfig(), after)).skip).toContain(e);
    // The probe failed: open again for a whole cool-down from its outcome.
    await fail(e, 1, after);
    expect((await admitEndpoints(getConfig(), after + COOLDOWN_MS - 1)).skip).toContain(e);
    // The next probe succeeds: closed, failures forgotten.
    const later = after + COOLDOWN_MS + 1;
    const d = await admitEndpoints(getConfig(), later);
    expect(d.probe).toContain(e);
    await recordBreaker(e, true, getConfig(), later);
    const closed = await admitEndpoints(getConfig(), later);
    expect(closed.skip).not.toContain(e);
    expect(closed.probe).not.toContain(e);
    await fail(e, 2, later);
    expect((await admitEndpoints(getConfig(), later + 1)).skip).not.toContain(e);
  });

  it("names the claimed endpoints whose circuit opened after the admission (their deliveries go back unattempted)", async () => {
    const [e, closed] = [newEndpoint(), newEndpoint()];
    const t = Date.now();
    await fail(e, 2, t);
    expect((await admitEndpoints(getConfig(), t)).skip).not.toContain(e);
    // Another worker's third failure lands between this worker's admission and its claim.
    await fail(e, 1, t);
    expect(await openedSince([e, closed], getConfig(), t)).toEqual([e]);
    expect(await openedSince([e], getConfig(), t + COOLDOWN_MS)).toEqual([]);
  });

  it("is off at WEBHOOK_BREAKER_FAILURES=0: nothing recorded, nothing left out", async () => {
    setEnv({ WEBHOOK_BREAKER_FAILURES: "0" });
    const requestsBefore = shim?.requests ?? 0;
    try {
      const e = newEndpoint();
      await fail(e, 10, Date.now());
      const admission = await admitEndpoints(getConfig());
      expect(admission).toMatchObject({ skip: [], probe: [] });
      expect(shim?.requests ?? 0).toBe(requestsBefore); // not even asked
    } finally {
      setEnv({ WEBHOOK_BREAKER_FAILURES: ENV.WEBHOOK_BREAKER_FAILURES });
    }
  });

  if (store === "upstash") {
    it.each(["error", "hang"] as const)(
      "Redis failing (%s): this process's own breaker decides, the reason is logged, nothing is thrown",
      async (mode) => {
        // A short bound for the hanging store, so the test does not wait 5 s per call.
        if (mode === "hang") setEnv({ RATE_LIMIT_TIMEOUT_MS: "300" });
        const logged = vi.spyOn(console, "error").mockImplementation(() => {});
        try {
          const e = newEndpoint();
          const t = Date.now();
          shim!.setMode(mode);
          await fail(e, 3, t);
          const admission = await admitEndpoints(getConfig(), t + 1);
          expect(admission.skip).toEqual([e]);
          const lines = logged.mock.calls.map((c) => c.join(" "));
          expect(
            lines.some((l) => /\[shared-state\] webhook breaker: Redis failed .*own breaker/.test(l)),
          ).toBe(true);
          // Once a minute at most, not once per call.
          expect(lines.filter((l) => l.includes("webhook breaker"))).toHaveLength(1);
        } finally {
          logged.mockRestore();
          shim!.setMode("normal");
          setEnv({ RATE_LIMIT_TIMEOUT_MS: ENV.RATE_LIMIT_TIMEOUT_MS });
        }
      },
    );
  }
});

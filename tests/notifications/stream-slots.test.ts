/**
 * Event-stream slots per credential (lib/stream/stream-slots.ts, issue 47 item 2) on both stores:
 * this process's memory (the local profile) and Upstash Redis (the production profile), here the
 * Upstash REST shim in front of the real Redis on 127.0.0.1:6379. Lease ends are given to the
 * store (`now`, epoch ms), never waited for.
 *
 * - at most STREAM_MAX_PER_CREDENTIAL per credential, on Upstash whichever instance holds them;
 * - a slot whose instance died (no renewal, no release) comes back at the end of its lease; the
 *   heartbeat's renewal keeps a live stream's slot;
 * - Redis failing: taking a slot fails closed (StorageError → 503 STORAGE_ERROR over HTTP, never
 *   500); renewing or releasing one is logged and never throws;
 * - over HTTP, a slot held elsewhere counts against the streams this instance opens.
 * Two real instances: tests/integration/shared-state-two-instances.test.ts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { getConfig, resetConfig } from "../../lib/config.js";
import { DomainError, StorageError } from "../../lib/errors.js";
import { authenticateKey } from "../../lib/keys/authenticate.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { resetSharedStoreLog } from "../../lib/ratelimit/shared-store.js";
import { resetStreamSlots, type StreamSlot, takeStreamSlot } from "../../lib/stream/stream-slots.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { envOverrides } from "../helpers/env.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import { submitTask, validTask } from "../helpers/tasks.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";

useTestDatabase();

const LEASE_MS = 10_000;
const ENV: Record<string, string> = {
  STREAM_MAX_PER_CREDENTIAL: "2",
  STREAM_SLOT_LEASE_SECONDS: String(LEASE_MS / 1000),
  STREAM_HEARTBEAT_SECONDS: "1",
  STREAM_POLL_MS: "100",
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

/** A fresh credential: the shared store outlives test runs. */
const newHolder = () => `key:test_${randomBytes(8).toString("hex")}`;

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

function expectTooMany(error: unknown): void {
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe("RATE_LIMITED");
  expect((error as DomainError).message).toMatch(/STREAM_MAX_PER_CREDENTIAL/);
}

describe.each(["memory", "upstash"] as const)("stream slots on the %s store", (store) => {
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
    resetStreamSlots();
    resetSharedStoreLog();
  });

  it("holds at most STREAM_MAX_PER_CREDENTIAL per credential; a released slot comes back; another credential has its own", async () => {
    const holder = newHolder();
    const slots: StreamSlot[] = [];
    for (let i = 0; i < 2; i++) slots.push(await takeStreamSlot(holder, getConfig()));
    expectTooMany(await rejection(takeStreamSlot(holder, getConfig())));
    await takeStreamSlot(newHolder(), getConfig());
    await slots[0]!.release();
    await slots[0]!.release(); // idempotent: gives back one slot, not two
    slots.push(await takeStreamSlot(holder, getConfig()));
    expectTooMany(await rejection(takeStreamSlot(holder, getConfig())));
  });

  it(`${store === "upstash" ? "counts the slots every instance holds" : "counts this process's slots only (the local profile's one process)"}`, async () => {
    const holder = newHolder();
    for (let i = 0; i < 2; i++) await takeStreamSlot(holder, getConfig());
    resetStreamSlots(); // another instance: its memory holds nothing
    const taken = await rejection(takeStreamSlot(holder, getConfig()));
    if (store === "upstash") expectTooMany(taken);
    else expect(taken).toBeUndefined();
  });

  if (store === "upstash") {
    it("gives back a dead instance's slots at the end of their lease; a renewed slot is kept", async () => {
      const holder = newHolder();
      const t = Date.now();
      const kept = await takeStreamSlot(holder, getConfig(), t);
      await takeStreamSlot(holder, getConfig(), t); // its instance dies: never renewed nor released
      expectTooMany(await rejection(takeStreamSlot(holder, getConfig(), t + LEASE_MS - 1)));
      // The live stream's heartbeat renewed its slot; the dead one's lapsed.
      await kept.renew(t + LEASE_MS / 2);
      const back = await takeStreamSlot(holder, getConfig(), t + LEASE_MS + 1);
      expectTooMany(await rejection(takeStreamSlot(holder, getConfig(), t + LEASE_MS + 1)));
      // Past the renewed lease too (its instance died as well): both come back.
      await back.release();
      await takeStreamSlot(holder, getConfig(), t + LEASE_MS + LEASE_MS / 2 + 1);
      await takeStreamSlot(holder, getConfig(), t + LEASE_MS + LEASE_MS / 2 + 1);
    });

    it.each(["error", "hang"] as const)(
      "Redis failing (%s): taking fails closed with a StorageError; renewing and releasing are logged, never thrown",
      async (mode) => {
        if (mode === "hang") setEnv({ RATE_LIMIT_TIMEOUT_MS: "300" });
        const logged = vi.spyOn(console, "error").mockImplementation(() => {});
        try {
          const holder = newHolder();
          const slot = await takeStreamSlot(holder, getConfig());
          shim!.setMode(mode);
          const error = await rejection(takeStreamSlot(holder, getConfig()));
          expect(error).toBeInstanceOf(StorageError);
          await slot.renew();
          await slot.release();
          const lines = logged.mock.calls.map((c) => c.join(" "));
          expect(lines.some((l) => /\[shared-state\] stream slots: Redis failed .*lease/.test(l))).toBe(true);
        } finally {
          logged.mockRestore();
          shim!.setMode("normal");
          setEnv({ RATE_LIMIT_TIMEOUT_MS: ENV.RATE_LIMIT_TIMEOUT_MS });
        }
      },
    );
  }
});

describe("GET /api/tasks/stream with the slots in Upstash", () => {
  let host: LocalHost;
  let owner: string;
  const aborts: AbortController[] = [];

  beforeAll(async () => {
    shim ??= await startUpstashShim();
    setEnv({ ...ENV, UPSTASH_REDIS_REST_URL: shim.url, UPSTASH_REDIS_REST_TOKEN: shim.token });
    host = await startTestHost();
    owner = await makeKey(["audit_only", "task_create"]);
  });
  afterAll(async () => {
    for (const a of aborts) a.abort();
    await host?.close();
  });

  async function open(taskId: string): Promise<Response> {
    const abort = new AbortController();
    aborts.push(abort);
    return fetch(`${host.url}/api/tasks/stream?task_id=${encodeURIComponent(taskId)}`, {
      headers: { "x-api-key": owner },
      signal: abort.signal,
    });
  }

  it("counts a slot another instance holds; with Redis failing answers 503 STORAGE_ERROR, never 500", async () => {
    const { body: task } = await submitTask(validTask, { "x-api-key": owner });
    const { keyId } = await authenticateKey(owner);
    // Another instance holds one of the key's two slots.
    const elsewhere = await takeStreamSlot(`key:${keyId}`, getConfig());
    expect((await open(task.task_id)).status).toBe(200);
    const refused = await open(task.task_id);
    const error = expectEnvelope(await refused.json(), refused, 429, "RATE_LIMITED");
    expect(error.message).toMatch(/STREAM_MAX_PER_CREDENTIAL/);
    // That instance closes its stream: the slot is this one's to take.
    await elsewhere.release();
    expect((await open(task.task_id)).status).toBe(200);

    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      shim!.setMode("error");
      const down = await open(task.task_id);
      expectEnvelope(await down.json(), down, 503, "STORAGE_ERROR");
      expect(down.headers.get("retry-after")).toBeTruthy();
    } finally {
      logged.mockRestore();
      shim!.setMode("normal");
    }
  });
});

/**
 * Fair webhook delivery (issue 20 item 4), against real loopback HTTP receivers:
 *
 * - head of line: 100 receivers that accept a request and never answer, plus one healthy
 *   receiver of another key whose event is committed last: the healthy one gets its
 *   delivery before any hanging request has timed out (asserted by order: no hanging
 *   connection has been given up when the healthy request arrives, not by a stopwatch), and
 *   once the timeout has elapsed every hanging attempt is recorded (`attempts`,
 *   `attempted_at`, the timeout as `last_error`);
 * - one endpoint with a long backlog (60 deliveries of one key to one dead receiver):
 *   never more than WEBHOOK_ENDPOINT_CONCURRENCY requests open to it, another key's
 *   healthy receiver served before the first dead attempt times out (by order again), and
 *   every request the dead receiver saw is recorded;
 * - the circuit breaker: after WEBHOOK_BREAKER_FAILURES consecutive failures an endpoint's
 *   due deliveries are left unattempted and uncounted until its circuit closes.
 * Endpoints sharing a host: shared-host.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, count, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as createWebhook } from "../../api/webhooks.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { deliveries, taskEvents } from "../../lib/db/schema/index.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { prefixedId } from "../../lib/ids.js";
import { authenticateKey } from "../../lib/keys/authenticate.js";
import { resetBreakers } from "../../lib/webhooks/breaker.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { type Receiver, startReceiver } from "./receiver.js";

useTestDatabase();

const EVENT = "billing.low_balance";

/**
 * A loopback server that reads each request and never answers; counts the requests, and the
 * connections the sender gave up on (closed by its timeout).
 */
interface HangingReceiver {
  url: string;
  received: number;
  closed: number;
  close(): Promise<void>;
}

async function hangingReceiver(): Promise<HangingReceiver> {
  const r: HangingReceiver = { url: "", received: 0, closed: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    r.received += 1;
    res.on("close", () => {
      r.closed += 1;
    });
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

const closers: (() => Promise<void>)[] = [];

function setEnv(env: Record<string, string>) {
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  resetConfig();
}

const ENV_KEYS = [
  "ALLOW_PRIVATE_CALLBACKS",
  "OUTBOX_KICK",
  "WEBHOOK_TIMEOUT_MS",
  "WEBHOOK_BREAKER_FAILURES",
  "WEBHOOK_ENDPOINT_CONCURRENCY",
];

beforeAll(() => setEnv({ ALLOW_PRIVATE_CALLBACKS: "true", OUTBOX_KICK: "false" }));
beforeEach(() => resetBreakers());
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => {
  for (const k of ENV_KEYS) delete process.env[k];
  resetConfig();
});

async function webhookFor(key: string, url: string) {
  const { res, body } = await call(createWebhook, "/api/webhooks", {
    method: "POST",
    headers: keyHeaders(key),
    json: { url, events: [EVENT] },
  });
  expect(res.status).toBe(201);
  return body.webhook_id as string;
}

/** Commits one event of `key` (fanned out to its subscribed webhooks by the outbox). */
async function commitEvent(key: string) {
  const { keyId } = await authenticateKey(key);
  const db = await getDb();
  await db
    .insert(taskEvents)
    .values({ id: prefixedId("evt"), type: EVENT, apiKeyId: keyId, payload: { balance_cad: 1 } });
}

async function deliveriesOf(webhookIds: string[]) {
  const db = await getDb();
  return db.select().from(deliveries).where(inArray(deliveries.webhookId, webhookIds));
}

async function healthyKey(): Promise<{ key: string; receiver: Receiver; webhookId: string }> {
  const receiver = await startReceiver();
  closers.push(() => receiver.close());
  const key = await makeKey(["audit_only", "task_create"]);
  return { key, receiver, webhookId: await webhookFor(key, `${receiver.url}/ok`) };
}

/** Bound of one attempt to a hanging receiver of the first test, ms (the setting's maximum). */
const HUNDRED_TIMEOUT_MS = 10_000;

describe("a hundred hanging receivers", () => {
  // The largest bound the setting allows: the healthy delivery must come first, and the wider the
  // gap, the less a loaded machine (101 requests started at once on one event loop) matters.
  beforeAll(() => setEnv({ WEBHOOK_TIMEOUT_MS: String(HUNDRED_TIMEOUT_MS), WEBHOOK_BREAKER_FAILURES: "5" }));

  it("do not delay another key's healthy receiver, and every hanging attempt is recorded", async () => {
    const hanging = await Promise.all(Array.from({ length: 100 }, hangingReceiver));
    for (const h of hanging) closers.push(() => h.close());
    // 20 keys with 5 webhooks each (the per-key limit), one event each, committed first.
    const hookIds: string[] = [];
    for (let k = 0; k < 20; k++) {
      const key = await makeKey(["audit_only", "task_create"]);
      for (const h of hanging.slice(k * 5, k * 5 + 5)) hookIds.push(await webhookFor(key, `${h.url}/hang`));
      await commitEvent(key);
    }
    const healthy = await healthyKey();
    await commitEvent(healthy.key);

    const started = Date.now();
    const pass = processOutbox();
    // Order, not a stopwatch: when the healthy request arrives (waitFor resumes in that very turn
    // of the event loop), hanging requests are in flight and not one has been given up yet. A
    // worker that waited for the hanging batch would deliver it only after their timeout. The
    // 60 s only guards against a hang.
    await healthy.receiver.waitFor(1, 60_000);
    expect(hanging.reduce((n, h) => n + h.received, 0)).toBeGreaterThan(0);
    expect(hanging.reduce((n, h) => n + h.closed, 0)).toBe(0);
    const [ok] = await deliveriesOf([healthy.webhookId]);

    const result = await pass;
    expect(Date.now() - started).toBeGreaterThanOrEqual(HUNDRED_TIMEOUT_MS);
    expect(result.delivered).toBe(1);
    expect(result.retrying).toBe(100);
    expect(hanging.map((h) => h.received)).toEqual(Array(100).fill(1));
    const rows = await deliveriesOf(hookIds);
    expect(rows).toHaveLength(100);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: null, lockedUntil: null });
      expect(row.attemptedAt).toHaveLength(1);
      expect(row.lastError).toMatch(new RegExp(`timed out after ${HUNDRED_TIMEOUT_MS} ms`));
      expect(row.nextAttemptAt.getTime() - row.attemptedAt[0]!.getTime()).toBe(30_000);
    }
    const [done] = await deliveriesOf([healthy.webhookId]);
    expect(done).toMatchObject({ status: "delivered", attempts: 1, lastHttpStatus: 200 });
    expect(ok?.eventId).toBe(done!.eventId);
    // The pass takes the 10 s bound at least; 120 s leaves room for a loaded 2-core machine.
  }, 120_000);
});

describe("one endpoint with a long backlog", () => {
  beforeAll(() =>
    setEnv({
      WEBHOOK_TIMEOUT_MS: "3000",
      WEBHOOK_BREAKER_FAILURES: "0",
      WEBHOOK_ENDPOINT_CONCURRENCY: "4",
    }),
  );

  it("gets at most its cap in flight; another key is served at once; every request is recorded", async () => {
    const dead = await hangingReceiver();
    closers.push(() => dead.close());
    const key = await makeKey(["audit_only", "task_create"]);
    const deadHook = await webhookFor(key, `${dead.url}/dead`);
    for (let i = 0; i < 60; i++) await commitEvent(key);
    const healthy = await healthyKey();
    await commitEvent(healthy.key);

    const db = await getDb();
    try {
      // In flight, as the worker counts it: the endpoint's claimed rows (status `delivering`),
      // sampled through the pass. (The receiver's open sockets are no measure of it: a timed-out
      // request's socket closes on the receiver's side a moment after the worker has let go of it
      // and claimed the next one.)
      let maxInFlight = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const [row] = await db
            .select({ n: count() })
            .from(deliveries)
            .where(and(eq(deliveries.webhookId, deadHook), eq(deliveries.status, "delivering")));
          maxInFlight = Math.max(maxInFlight, row!.n);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const pass = processOutbox({ budgetMs: 4000 });
      // Served before the first dead attempt timed out: by order (no dead connection given up
      // when the healthy request arrives), not by a stopwatch; the 30 s only guards a hang.
      await healthy.receiver.waitFor(1, 30_000);
      expect(dead.closed).toBe(0);
      await pass;
      sampling = false;
      await sampler;

      expect(maxInFlight).toBeLessThanOrEqual(4);
      expect(maxInFlight).toBeGreaterThan(0);
      expect(dead.received).toBeGreaterThanOrEqual(4);
      const rows = await deliveriesOf([deadHook]);
      expect(rows).toHaveLength(60);
      const recorded = rows.reduce((n, r) => n + r.attemptedAt.length, 0);
      expect(recorded).toBe(dead.received);
      expect(rows.filter((r) => r.status === "delivering")).toHaveLength(0);
      for (const r of rows.filter((x) => x.attempts > 0))
        expect(r.lastError).toMatch(/timed out after 3000 ms/);
    } finally {
      // The rest of the backlog is not this file's concern any more (nor the next test's).
      await db.update(deliveries).set({ status: "cancelled" }).where(eq(deliveries.webhookId, deadHook));
    }
    // Two rounds of 3 s attempts after 61 commits: 60 s leaves room for a loaded 2-core machine.
  }, 60_000);
});

describe("the circuit breaker", () => {
  beforeAll(() =>
    setEnv({
      // The receiver answers at once; the bound only keeps a stalled machine from turning its
      // prompt 503 into a timeout (no last_http_status), so it is the setting's maximum.
      WEBHOOK_TIMEOUT_MS: "10000",
      WEBHOOK_BREAKER_FAILURES: "3",
      WEBHOOK_ENDPOINT_CONCURRENCY: "1",
    }),
  );

  it("stops sending to a failing endpoint and leaves its due deliveries unattempted and uncounted", async () => {
    const failing = await startReceiver(() => ({ status: 503 }));
    closers.push(() => failing.close());
    const key = await makeKey(["audit_only", "task_create"]);
    const hook = await webhookFor(key, `${failing.url}/down`);
    for (let i = 0; i < 6; i++) await commitEvent(key);
    const result = await processOutbox();
    // The pass made the deliveries (due at once) and ended here: a row still due is due by now.
    const passEnded = Date.now();
    // Three real attempts opened the circuit; the other three were not attempted, nor counted.
    expect(result.retrying).toBe(3);
    expect(failing.requests).toHaveLength(3);
    const rows = await deliveriesOf([hook]);
    const tried = rows.filter((r) => r.attempts > 0);
    expect(tried).toHaveLength(3);
    for (const r of tried) {
      expect(r).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: 503 });
      expect(r.nextAttemptAt.getTime() - r.attemptedAt[0]!.getTime()).toBe(30_000);
    }
    const untried = rows.filter((r) => r.attempts === 0);
    expect(untried).toHaveLength(3);
    for (const r of untried) {
      expect(r).toMatchObject({
        status: "pending",
        lastHttpStatus: null,
        lastError: null,
        lockedUntil: null,
      });
      expect(r.attemptedAt).toEqual([]);
      expect(r.nextAttemptAt.getTime()).toBeLessThanOrEqual(passEnded); // still due, not pushed back 30 s
    }

    // After the cool-down (here: forgotten), attempts are real again and a success closes it.
    resetBreakers();
    failing.respond = () => ({ status: 200 });
    const db = await getDb();
    await db
      .update(deliveries)
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(deliveries.webhookId, hook));
    const again = await processOutbox();
    expect(again.delivered).toBe(6);
    expect(failing.requests).toHaveLength(9);
  }, 30_000);
});

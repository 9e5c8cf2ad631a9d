/**
 * Endpoints sharing a host (issue 25 item 10), against one real loopback HTTP server whose
 * `/r/hang` path reads each request and never answers and whose `/r/ok` path answers 200:
 * tenant A's webhook is the dead `/r/hang`, tenant B's the healthy `/r/ok`, on the same
 * `scheme://host:port`.
 *
 * - fairness is per endpoint: with 30 deliveries queued for A first, B's delivery arrives
 *   while A's attempts still hang, and is recorded delivered;
 * - the breaker is per endpoint: once A's circuit is open, A's due deliveries are not attempted
 *   and not counted (attempts 0, no `attempted_at`, still due), while B's new deliveries on the
 *   same host are sent and recorded delivered, never as failed;
 * - per-task callbacks are fair per task owner: one owner's backlog of callbacks to a host
 *   takes at most WEBHOOK_ENDPOINT_CONCURRENCY, another owner's callback to the same host is
 *   claimed beside it;
 * - a half-open endpoint (issue 47) gets one delivery claimed, its probe, however many workers
 *   claim; a claim given back because the circuit opened meanwhile leaves the delivery due with
 *   nothing recorded.
 */
import { eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as createWebhook } from "../../api/webhooks.js";
import { getConfig, resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { deliveries, taskEvents } from "../../lib/db/schema/index.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { prefixedId } from "../../lib/ids.js";
import { authenticateKey } from "../../lib/keys/authenticate.js";
import { resetBreakers } from "../../lib/webhooks/breaker.js";
import { claimDueDeliveries, unclaimDeliveries } from "../../lib/webhooks/claim-deliveries.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { submitTask, validTask } from "../helpers/tasks.js";
import { type Receiver, startReceiver } from "./receiver.js";

useTestDatabase();

const EVENT = "billing.low_balance";
/** Bound of one attempt here, ms: A's requests hang this long before they are recorded failed. */
const TIMEOUT_MS = 5000;

const ENV: Record<string, string> = {
  ALLOW_PRIVATE_CALLBACKS: "true",
  OUTBOX_KICK: "false",
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_BREAKER_FAILURES: "3",
  WEBHOOK_ENDPOINT_CONCURRENCY: "4",
};

beforeAll(() => {
  Object.assign(process.env, ENV);
  resetConfig();
});
afterAll(() => {
  for (const k of Object.keys(ENV)) delete process.env[k];
  resetConfig();
});
beforeEach(() => resetBreakers());

let host: Receiver | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
  // What a test left due is not the next one's concern.
  const db = await getDb();
  await db
    .update(deliveries)
    .set({ status: "cancelled", lockedUntil: null })
    .where(inArray(deliveries.status, ["pending", "delivering"]));
});

/** One server for both tenants: `/r/hang` never answers, everything else answers 200. */
async function sharedHost(): Promise<Receiver> {
  host = await startReceiver((req) => (req.path.startsWith("/r/hang") ? { hang: true } : {}));
  return host;
}

async function webhookFor(key: string, url: string): Promise<string> {
  const { res, body } = await call(createWebhook, "/api/webhooks", {
    method: "POST",
    headers: keyHeaders(key),
    json: { url, events: [EVENT] },
  });
  expect(res.status).toBe(201);
  return body.webhook_id as string;
}

/** Commits one event of `key` (fanned out to its webhook by the outbox). */
async function commitEvent(key: string): Promise<void> {
  const { keyId } = await authenticateKey(key);
  const db = await getDb();
  await db
    .insert(taskEvents)
    .values({ id: prefixedId("evt"), type: EVENT, apiKeyId: keyId, payload: { balance_cad: 1 } });
}

async function deliveriesOf(webhookId: string) {
  const db = await getDb();
  return db.select().from(deliveries).where(eq(deliveries.webhookId, webhookId));
}

describe("a dead endpoint and a healthy one on the same host", () => {
  it("the healthy one is served while the dead one hangs; the dead one's breaker never fails it; unmade attempts are not counted", async () => {
    const server = await sharedHost();
    const keyA = await makeKey(["audit_only", "task_create"]);
    const keyB = await makeKey(["audit_only", "task_create"]);
    const hookA = await webhookFor(keyA, `${server.url}/r/hang`);
    const hookB = await webhookFor(keyB, `${server.url}/r/ok`);
    for (let i = 0; i < 30; i++) await commitEvent(keyA);
    await commitEvent(keyB);

    // 1. B's delivery arrives while A's first requests still hang (they end at TIMEOUT_MS).
    // Asserted by order, not by a stopwatch: when B's request arrives (waitFor resumes in that
    // very turn of the event loop), A's requests are there and none has been given up yet (so
    // none is recorded failed). The 60 s only guards against a hang.
    const pass = processOutbox({ budgetMs: 20_000 });
    await server.waitFor(1, 60_000, "/r/ok");
    const hangingMeanwhile = server.requests.filter((r) => r.path.startsWith("/r/hang"));
    expect(hangingMeanwhile.length).toBeGreaterThan(0);
    expect(hangingMeanwhile.every((r) => r.closedAt === undefined)).toBe(true);
    await pass;

    const [b1] = await deliveriesOf(hookB);
    expect(b1).toMatchObject({ status: "delivered", attempts: 1, lastHttpStatus: 200, lastError: null });

    // A: only real requests are counted; the breaker (3 failures) stopped the rest unattempted.
    const deadRequests = () => server.requests.filter((r) => r.path.startsWith("/r/hang")).length;
    const sent = deadRequests();
    // At least the 3 failures that open the circuit; at most 3 + 4 - 1 (each of the first two
    // failures freed one of its 4 endpoint slots for one more request before the third opened it).
    expect(sent).toBeGreaterThanOrEqual(3);
    expect(sent).toBeLessThanOrEqual(6);
    let rowsA = await deliveriesOf(hookA);
    expect(rowsA).toHaveLength(30);
    expect(rowsA.reduce((n, r) => n + r.attemptedAt.length, 0)).toBe(sent);
    expect(rowsA.reduce((n, r) => n + r.attempts, 0)).toBe(sent);
    for (const r of rowsA.filter((x) => x.attempts > 0)) {
      expect(r).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: null });
      expect(r.lastError).toMatch(new RegExp(`timed out after ${TIMEOUT_MS} ms`));
    }
    const untouched = rowsA.filter((x) => x.attempts === 0);
    expect(untouched).toHaveLength(30 - sent);
    for (const r of untouched) {
      expect(r).toMatchObject({
        status: "pending",
        lastError: null,
        lastHttpStatus: null,
        lockedUntil: null,
      });
      expect(r.attemptedAt).toEqual([]);
      expect(r.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now()); // still due
    }

    // 2. A's circuit is open: B's new deliveries on the same host are sent and delivered.
    for (let i = 0; i < 3; i++) await commitEvent(keyB);
    const second = await processOutbox({ budgetMs: 20_000 });
    await server.waitFor(4, undefined, "/r/ok"); // already there: the pass recorded them delivered
    expect(second).toMatchObject({ delivered: 3, retrying: 0, dead: 0 });
    const rowsB = await deliveriesOf(hookB);
    expect(rowsB).toHaveLength(4);
    for (const r of rowsB) {
      expect(r).toMatchObject({ status: "delivered", attempts: 1, lastHttpStatus: 200, lastError: null });
    }
    // ... and A's due deliveries were still neither attempted nor counted.
    expect(deadRequests()).toBe(sent);
    rowsA = await deliveriesOf(hookA);
    expect(rowsA.reduce((n, r) => n + r.attempts, 0)).toBe(sent);
    expect(rowsA.filter((x) => x.attempts === 0)).toHaveLength(30 - sent);
  }, 60_000);
});

/** Queues `count` due callbacks of completed sandbox tasks of `owner` to `url` (not sent). */
async function queueCallbacks(owner: string, count: number, url: string): Promise<void> {
  const db = await getDb();
  for (let i = 0; i < count; i++) {
    const { res, body: task } = await submitTask(
      validTask,
      keyHeaders(owner, { "x-service-mode": "sandbox" }),
    );
    expect(res.status).toBe(201);
    const eventId = prefixedId("evt");
    await db.insert(taskEvents).values({
      id: eventId,
      type: "task.completed",
      taskId: task.task_id,
      apiKeyId: (await authenticateKey(owner)).keyId,
      payload: {},
      dispatchedAt: new Date(),
    });
    await db.insert(deliveries).values({
      id: prefixedId("dlv"),
      eventId,
      kind: "callback",
      url,
      taskId: task.task_id,
      event: "task.completed",
      payload: { event: "task.completed", task_id: task.task_id },
    });
  }
}

describe("per-task callbacks", () => {
  it("are fair per task owner: one owner's backlog on a host does not hold back another owner's callback", async () => {
    const server = await sharedHost();
    const owners = [
      await makeKey(["audit_only", "task_create"]),
      await makeKey(["audit_only", "task_create"]),
    ];
    // Owner 0: 6 completed tasks whose callbacks go to the dead path; owner 1: one, to the healthy path.
    await queueCallbacks(owners[0]!, 6, `${server.url}/r/hang`);
    await queueCallbacks(owners[1]!, 1, `${server.url}/r/ok`);
    const claimed = await claimDueDeliveries(100, new Date(), getConfig());
    expect(claimed.filter((c) => c.url.endsWith("/r/ok"))).toHaveLength(1);
    const ownerIds = await Promise.all(owners.map(async (k) => (await authenticateKey(k)).keyId));
    const byEndpoint = new Map<string, number>();
    for (const c of claimed) byEndpoint.set(c.endpoint, (byEndpoint.get(c.endpoint) ?? 0) + 1);
    expect(Object.fromEntries(byEndpoint)).toEqual({
      [`key:${ownerIds[0]}`]: 4, // WEBHOOK_ENDPOINT_CONCURRENCY
      [`key:${ownerIds[1]}`]: 1,
    });
  });
});

describe("a half-open endpoint (issue 47)", () => {
  it("is probed with one delivery, however many workers claim: the probe's cap is 1, in flight included", async () => {
    const server = await sharedHost();
    const owner = await makeKey(["audit_only", "task_create"]);
    const other = await makeKey(["audit_only", "task_create"]);
    await queueCallbacks(owner, 6, `${server.url}/r/hang`);
    await queueCallbacks(other, 2, `${server.url}/r/ok`);
    const endpoint = `key:${(await authenticateKey(owner)).keyId}`;
    const count = (claimed: { endpoint: string }[], e: string) =>
      claimed.filter((c) => c.endpoint === e).length;
    // The worker holding the probe (breaker.ts) claims one of the six; the other endpoint its due two.
    const first = await claimDueDeliveries(100, new Date(), getConfig(), { probeEndpoints: [endpoint] });
    expect(count(first, endpoint)).toBe(1);
    expect(first).toHaveLength(3);
    // A second worker given the same probe (a stale read) claims none: the probe is in flight.
    const second = await claimDueDeliveries(100, new Date(), getConfig(), { probeEndpoints: [endpoint] });
    expect(count(second, endpoint)).toBe(0);
    // Without the probe the endpoint's own cap (4) applies again, the probe in flight included.
    const third = await claimDueDeliveries(100, new Date(), getConfig());
    expect(count(third, endpoint)).toBe(3);
  });
  it("a claim given back (another worker opened the circuit meanwhile) leaves the delivery due, nothing recorded", async () => {
    const server = await sharedHost();
    const owner = await makeKey(["audit_only", "task_create"]);
    await queueCallbacks(owner, 1, `${server.url}/r/hang`);
    const endpoint = `key:${(await authenticateKey(owner)).keyId}`;
    const claimed = (await claimDueDeliveries(100, new Date(), getConfig())).filter(
      (c) => c.endpoint === endpoint,
    );
    expect(claimed).toHaveLength(1);
    await unclaimDeliveries(claimed);
    const db = await getDb();
    const [row] = await db.select().from(deliveries).where(eq(deliveries.id, claimed[0]!.id));
    expect(row).toMatchObject({ status: "pending", attempts: 0, lockedUntil: null, lastError: null });
    expect(row!.attemptedAt).toEqual([]);
    expect(row!.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(server.requests).toHaveLength(0);
  });
});

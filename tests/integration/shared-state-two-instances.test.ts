/**
 * One service across two instances (issue 47 item 5): two `scripts/serve.ts` processes on one
 * PostgreSQL database and one Redis, reached through the Upstash REST shim (tests/helpers/
 * upstash-shim.ts) so `@upstash/redis` runs its production code, as Vercel runs many function
 * instances of one deployment. What each instance keeps must hold for both together:
 *
 * - the webhook breaker (threshold 3, a receiver that answers 503): the deliver-webhooks cron
 *   runs on A, then B, then A, one new delivery each; the three failures, made by both, open the
 *   circuit for both, so later runs on either send nothing; the receiver got exactly 3 requests,
 *   3 attempts are recorded, and every delivery left unattempted is still due with nothing
 *   recorded (attempts 0), whichever instance skipped it;
 * - the volume-alert throttle: a key checked on A is not checked again on B within the minute,
 *   even once its volume is above the alert threshold; another key, above it too, is (an alert);
 * - the stream cap (STREAM_MAX_PER_CREDENTIAL=3): 3 streams open across A and B, a fourth is 429
 *   on either; a closed one frees its slot for the other instance;
 * - an instance killed (SIGKILL) while holding stream slots: they come back within their lease
 *   (STREAM_SLOT_LEASE_SECONDS, short here), and the cap then counts the survivor's streams.
 * No step is timed: each waits for its condition, with generous guards (CI runs this under a CPU
 * hog). PGlite is one process's database, so this needs TEST_DATABASE_URL.
 */
import { Redis } from "@upstash/redis";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, getDb, openPg, setDatabase } from "../../lib/db/client.js";
import { activityLog, alerts, deliveries, taskEvents } from "../../lib/db/schema/index.js";
import { createScratchDatabase, type ScratchDatabase } from "../../lib/db/scratch-database.js";
import { prefixedId } from "../../lib/ids.js";
import { authenticateKey } from "../../lib/keys/authenticate.js";
import { POSTGRES_ONLY } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { type ServeProcess, startServeProcess } from "../helpers/serve-process.js";
import { submitTask, validTask } from "../helpers/tasks.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";
import { type Receiver, startReceiver } from "../notifications/receiver.js";

const ADMIN_URL = process.env.TEST_DATABASE_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const EVENT = "billing.low_balance";
const BREAKER_FAILURES = 3;
const STREAM_CAP = 3;

type Instance = ServeProcess;

/** Starts an instance on `databaseUrl` and the shim. */
function startInstance(databaseUrl: string, shim: UpstashShim): Promise<Instance> {
  return startServeProcess({
    DATABASE_URL: databaseUrl,
    UPSTASH_REDIS_REST_URL: shim.url,
    UPSTASH_REDIS_REST_TOKEN: shim.token,
    // Generous: a busy 2-core machine has taken over 300 ms for one shim + Redis round trip.
    RATE_LIMIT_TIMEOUT_MS: "5000",
    RATE_LIMIT_KEY_PER_MIN: "100000",
    RATE_LIMIT_ANON_PER_MIN: "100000",
    OUTBOX_KICK: "false",
    ALLOW_PRIVATE_CALLBACKS: "true",
    // The receiver fails at once (503); the bound, the setting's maximum, only keeps a stalled
    // machine from turning that answer into a timeout the receiver may not have seen. One attempt
    // in flight per endpoint, so the attempts of both instances come one after the other; the
    // circuit, once open, stays open for the whole test.
    WEBHOOK_TIMEOUT_MS: "10000",
    WEBHOOK_ENDPOINT_CONCURRENCY: "1",
    WEBHOOK_BREAKER_FAILURES: String(BREAKER_FAILURES),
    WEBHOOK_BREAKER_COOLDOWN_SECONDS: "3600",
    VOLUME_ALERT_MIN_REQUESTS: "5",
    STREAM_MAX_PER_CREDENTIAL: String(STREAM_CAP),
    STREAM_POLL_MS: "200",
    STREAM_HEARTBEAT_SECONDS: "1",
    // Short, so a killed instance's slots come back soon; six heartbeats, so a live stream on a
    // loaded machine keeps its slot.
    STREAM_SLOT_LEASE_SECONDS: "6",
  });
}

/**
 * Polls `check` every `intervalMs` until it returns a value other than undefined; throws after
 * `guardMs` (a guard against a hang only, generous for a loaded machine).
 */
async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  guardMs = 60_000,
  intervalMs = 200,
) {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

describe.skipIf(!ADMIN_URL)(
  `shared state on two instances of one database and one Redis${POSTGRES_ONLY}`,
  () => {
    let scratch: ScratchDatabase;
    let handle: DatabaseHandle;
    let shim: UpstashShim;
    let redis: Redis;
    const instances: Instance[] = [];
    const closers: (() => Promise<void>)[] = [];
    const aborts: AbortController[] = [];

    beforeAll(async () => {
      scratch = await createScratchDatabase(ADMIN_URL!, "ptes_test");
      handle = await openPg(scratch.url, 2);
      setDatabase(handle);
      shim = await startUpstashShim();
      redis = new Redis({ url: shim.url, token: shim.token });
      instances.push(
        ...(await Promise.all([startInstance(scratch.url, shim), startInstance(scratch.url, shim)])),
      );
    }, 240_000);

    afterAll(async () => {
      for (const a of aborts) a.abort();
      for (const s of instances) if (s.child.exitCode === null) s.child.kill("SIGKILL");
      await Promise.all(closers.map((close) => close()));
      await shim?.close();
      setDatabase(undefined);
      await handle?.close();
      await scratch?.drop();
    });

    /**
     * Runs the deliver-webhooks cron on `instance` (no CRON_SECRET in a development run) until a
     * run is not skipped (the job's lease is held while another instance's own cron runs it).
     */
    async function runCron(instance: Instance): Promise<Record<string, unknown>> {
      return waitFor("a deliver-webhooks run", async () => {
        const res = await fetch(`${instance.url}/api/cron/deliver-webhooks`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as Record<string, unknown>;
        return body.skipped === true ? undefined : body;
      });
    }

    it("the webhook breaker: three failures made by both instances open it for both; no instance attempts or counts the rest", async () => {
      const [a, b] = instances as [Instance, Instance];
      const receiver: Receiver = await startReceiver(() => ({ status: 503 }));
      closers.push(() => receiver.close());
      const key = await makeKey(["audit_only", "task_create"]);
      const { keyId } = await authenticateKey(key);
      const registered = await fetch(`${a.url}/api/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ url: `${receiver.url}/hook`, events: [EVENT] }),
      });
      expect(registered.status).toBe(201);
      const hookId = ((await registered.json()) as { webhook_id: string }).webhook_id;
      const db = await getDb();
      const commitEvents = async (n: number) => {
        for (let i = 0; i < n; i++) {
          await db
            .insert(taskEvents)
            .values({ id: prefixedId("evt"), type: EVENT, apiKeyId: keyId, payload: { balance_cad: 1 } });
        }
      };
      const rows = () => db.select().from(deliveries).where(eq(deliveries.webhookId, hookId));

      // One new delivery per run, on A, B, A: each run's attempt fails (the first delivery's retry
      // is 30 s away, so each run has the new one to try).
      for (const [i, instance] of [a, b, a].entries()) {
        await commitEvents(1);
        await runCron(instance);
        // Whoever ran it (an instance's own every-minute cron may have), the attempt is recorded.
        await waitFor(`attempt ${i + 1}`, async () => {
          const made = (await rows()).reduce((n, r) => n + r.attempts, 0);
          return made >= i + 1 ? made : undefined;
        });
      }
      expect(receiver.requests).toHaveLength(BREAKER_FAILURES);
      // The circuit is open in the shared store, for both.
      const openUntil = await redis.zscore("ptes:wb:open", hookId);
      expect(Number(openUntil)).toBeGreaterThan(Date.now());

      // Three more due deliveries: neither instance attempts them, nor counts them.
      await commitEvents(3);
      await runCron(b);
      await runCron(a);
      const ranAt = Date.now();
      expect(receiver.requests).toHaveLength(BREAKER_FAILURES);
      const all = await rows();
      expect(all).toHaveLength(6);
      const tried = all.filter((r) => r.attempts > 0);
      expect(tried.reduce((n, r) => n + r.attempts, 0)).toBe(BREAKER_FAILURES);
      for (const r of tried) {
        expect(r.status).toBe("pending");
        expect(r.attemptedAt).toHaveLength(r.attempts);
        expect(r).toMatchObject({ lastHttpStatus: 503, lastError: "HTTP 503" });
      }
      const untried = all.filter((r) => r.attempts === 0);
      expect(untried.length).toBeGreaterThanOrEqual(3);
      for (const r of untried) {
        expect(r).toMatchObject({
          status: "pending",
          lastHttpStatus: null,
          lastError: null,
          lockedUntil: null,
        });
        expect(r.attemptedAt).toEqual([]);
        expect(r.nextAttemptAt.getTime()).toBeLessThanOrEqual(ranAt); // still due, not pushed back
      }
    }, 300_000);

    it("the volume alert: a key checked on A is not checked again on B within the minute; another key is", async () => {
      const [a, b] = instances as [Instance, Instance];
      const db = await getDb();
      const [checked, fresh] = [await makeKey(["audit_only"]), await makeKey(["audit_only"])];
      const [checkedId, freshId] = [
        (await authenticateKey(checked)).keyId,
        (await authenticateKey(fresh)).keyId,
      ];
      const request = async (instance: Instance, key: string) => {
        const res = await fetch(`${instance.url}/api/webhooks`, { headers: { "x-api-key": key } });
        expect(res.status).toBe(200);
        await res.body?.cancel().catch(() => {});
      };

      // One request on A: A checks the key (one request: below VOLUME_ALERT_MIN_REQUESTS, no alert)
      // and marks it checked for a minute in the shared store.
      await request(a, checked);
      await waitFor("A's check of the key", async () =>
        (await redis.exists(`ptes:va:api_key:${checkedId}`)) === 1 ? true : undefined,
      );
      // Both keys are now far above the threshold (20 requests in the last hour, none before).
      for (const apiKeyId of [checkedId, freshId]) {
        await db.insert(activityLog).values(
          Array.from({ length: 20 }, () => ({
            apiKeyId,
            method: "GET",
            endpoint: "/api/webhooks",
            status: 200,
            latencyMs: 1,
            at: new Date(Date.now() - 60_000),
          })),
        );
      }
      // On B, the checked key first, then the fresh one: B writes their rows in that order and
      // checks their subjects in that order, so once the fresh key's alert exists B has decided on
      // the checked key too.
      await request(b, checked);
      await request(b, fresh);
      const alertOf = async (keyId: string) =>
        (
          await db
            .select()
            .from(alerts)
            .where(and(eq(alerts.kind, "volume_spike"), eq(alerts.subject, `API key ${keyId}`)))
        )[0];
      await waitFor("B's alert for the fresh key", () => alertOf(freshId));
      expect(await alertOf(checkedId)).toBeUndefined();
    }, 120_000);

    /** Opens a stream of `taskId` on `instance` with `key`; the response once its head arrived. */
    async function openStream(instance: Instance, taskId: string, key: string): Promise<Response> {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(`${instance.url}/api/tasks/stream?task_id=${encodeURIComponent(taskId)}`, {
        headers: { "x-api-key": key },
        signal: abort.signal,
      });
      (res as Response & { abort?: () => void }).abort = () => abort.abort();
      return res;
    }

    /** Expects `res` to be the stream cap's 429 (not another limit's). */
    async function expectCapped(res: Response): Promise<void> {
      expect(res.status).toBe(429);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("RATE_LIMITED");
      expect(body.error.message).toMatch(/STREAM_MAX_PER_CREDENTIAL/);
    }

    /** Opens streams on `instance` until one is accepted (a slot came back); the accepted response. */
    async function openWhenFree(
      instance: Instance,
      taskId: string,
      key: string,
      what: string,
    ): Promise<Response> {
      return waitFor(
        what,
        async () => {
          const res = await openStream(instance, taskId, key);
          if (res.status === 200) return res;
          await expectCapped(res);
          return undefined;
        },
        60_000,
        500,
      );
    }

    async function newTask(key: string): Promise<string> {
      const { res, body } = await submitTask(validTask, { "x-api-key": key });
      expect(res.status).toBe(201);
      return body.task_id as string;
    }

    it(`the stream cap: ${STREAM_CAP} streams of one key across both instances, the next refused on either; a closed one frees its slot for the other`, async () => {
      const [a, b] = instances as [Instance, Instance];
      const key = await makeKey(["audit_only", "task_create"]);
      const taskId = await newTask(key);
      const opened = [
        await openStream(a, taskId, key),
        await openStream(b, taskId, key),
        await openStream(a, taskId, key),
      ];
      expect(opened.map((r) => r.status)).toEqual([200, 200, 200]);
      await expectCapped(await openStream(b, taskId, key));
      await expectCapped(await openStream(a, taskId, key));
      // A closes one of its streams: once A sees the disconnect, B may open one.
      (opened[2] as Response & { abort: () => void }).abort();
      await openWhenFree(b, taskId, key, "the slot A gave back");
      await expectCapped(await openStream(a, taskId, key));
    }, 120_000);

    it("an instance killed while holding stream slots: they come back within their lease", async () => {
      const [a, b] = instances as [Instance, Instance];
      const key = await makeKey(["audit_only", "task_create"]);
      const taskId = await newTask(key);
      const opened = [
        await openStream(a, taskId, key),
        await openStream(a, taskId, key),
        await openStream(b, taskId, key),
      ];
      expect(opened.map((r) => r.status)).toEqual([200, 200, 200]);
      await expectCapped(await openStream(b, taskId, key));
      a.child.kill("SIGKILL");
      await new Promise((resolve) =>
        a.child.exitCode === null ? a.child.once("exit", resolve) : resolve(null),
      );
      // A never closes its two streams nor renews their slots: they lapse, and B gets them.
      await openWhenFree(b, taskId, key, "the first slot of the killed instance");
      await openWhenFree(b, taskId, key, "the second slot of the killed instance");
      // B's three streams are all the key holds: its heartbeats keep their slots.
      await expectCapped(await openStream(b, taskId, key));
      expect(b.output()).not.toMatch(/unhandled error/);
    }, 120_000);
  },
);

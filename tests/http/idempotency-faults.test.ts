/**
 * Idempotency-Key under database faults (docs/reliability.md "Idempotency"): the local host
 * over HTTP, the real PostgreSQL of TEST_DATABASE_URL behind tests/helpers/tcp-proxy.ts, which
 * cuts every connection on command. Skipped without TEST_DATABASE_URL.
 *
 * - Flap: clients submit tasks, each retrying its key until it gets an answer that is neither
 *   5xx nor 409, while the proxy cuts the database six times. Exactly one task per key, and
 *   every answer of a key names the same task.
 * - A request that dies without effect (connection cut while its handler waits on the
 *   distance service) leaves its key free at once: the retry runs, without a 409.
 * - Public reads sent with a valid key still answer 200 during the outage, as anonymous, with
 *   a Warning header; operations that need the key answer 503.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { type DatabaseHandle, openPg, setDatabase } from "../../lib/db/client.js";
import { createScratchDatabase, type ScratchDatabase } from "../../lib/db/scratch-database.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { type OsrmStub, startOsrmStub } from "../geo/osrm-stub.js";
import { POSTGRES_ONLY } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const ADMIN_URL = process.env.TEST_DATABASE_URL;
const ENV = {
  RATE_LIMIT_KEY_PER_MIN: "100000",
  RATE_LIMIT_ANON_PER_MIN: "100000",
  API_KEY_CACHE_TTL_MS: "0",
  DISTANCE_PROVIDER: "osrm",
  // Ends the OSRM call the "died without effect" test leaves hanging. Far above the few ms that
  // test needs to cut the database once the call has begun: with 300 ms, a busy machine could let
  // the call time out first, fall back to the gazetteer and answer 201 before the cut.
  DISTANCE_TIMEOUT_MS: "3000",
  KEY_CHECK_TIMEOUT_MS: "1500",
} as const;
/**
 * The pool's bound of one query (`boundedPoolOptions`): 20 s, so that its fallbacks stay far from
 * what the tests time — a key check that gives up after KEY_CHECK_TIMEOUT_MS rather than at the
 * query timeout, a key freed at once rather than by the server's idle-in-transaction timeout (2 ×
 * this, 40 s).
 */
const QUERY_TIMEOUT_MS = 20_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!ADMIN_URL)(`Idempotency-Key with PostgreSQL behind a faulty network${POSTGRES_ONLY}`, () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;
  let host: LocalHost;
  let osrm: OsrmStub;
  /** A direct connection (not through the proxy) for checks. */
  let direct: pg.Client;

  beforeAll(async () => {
    osrm = await startOsrmStub();
    Object.assign(process.env, ENV, { OSRM_URL: osrm.url });
    resetConfig();
    resetLimiters();
    scratch = await createScratchDatabase(ADMIN_URL!, "ptes_test");
    proxy = await startTcpProxy({ port: Number(new URL(scratch.url).port || 5432) });
    handle = await openPg(proxy.rewriteUrl(scratch.url), 10, { queryTimeoutMs: QUERY_TIMEOUT_MS });
    setDatabase(handle);
    direct = new pg.Client({ connectionString: scratch.url });
    await direct.connect();
    host = await startTestHost();
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    setDatabase(undefined);
    await handle?.close().catch(() => {});
    await proxy?.close();
    await direct?.end();
    await scratch?.drop();
    await osrm?.close();
    for (const k of [...Object.keys(ENV), "OSRM_URL"]) delete process.env[k];
    resetConfig();
    resetLimiters();
  });

  function submit(
    apiKey: string,
    idemKey: string,
    marker: string,
    address = "1000 Rue Sherbrooke O, Montréal, QC",
  ) {
    return fetch(`${host.url}/api/submit-task`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey, "idempotency-key": idemKey },
      body: JSON.stringify({
        service_type: "SVC-01",
        location_address: address,
        task_description: `Photograph the storefront (${marker}).`,
        requester_contact: "faults@example.com",
      }),
    });
  }

  async function tasksMarked(marker: string): Promise<string[]> {
    const { rows } = await direct.query<{ id: string }>(
      "select id from tasks where task_description like $1 order by id",
      [`%(${marker}).`],
    );
    return rows.map((r) => r.id);
  }

  it("creates exactly one task per key while the database connection flaps", async () => {
    const clients = 8;
    const perClient = 15;
    const keys = await Promise.all(Array.from({ length: clients }, () => makeKey(["task_create"])));
    const run = randomBytes(4).toString("hex");
    const flapping = proxy.flap(6, 400, 1000);
    // Only guards against a key that never gets an answer (a bug): the run takes ~10 s, far longer
    // on a busy 2-core machine (120 submissions through a flapping proxy); the test allows 120 s.
    const giveUpAt = Date.now() + 90_000;
    type Outcome = {
      marker: string;
      idemKey: string;
      apiKey: string;
      ids: Set<string>;
      final?: number;
      tries: number;
    };
    const outcomes: Outcome[] = [];

    const client = async (c: number) => {
      for (let i = 0; i < perClient; i++) {
        const outcome: Outcome = {
          marker: `flap-${run}-${c}-${i}`,
          idemKey: `flap-${run}-${c}-${i}`,
          apiKey: keys[c]!,
          ids: new Set(),
          tries: 0,
        };
        outcomes.push(outcome);
        while (Date.now() < giveUpAt) {
          outcome.tries++;
          let status: number;
          try {
            const res = await submit(outcome.apiKey, outcome.idemKey, outcome.marker);
            status = res.status;
            const body = (await res.json()) as { task_id?: string };
            if (body.task_id) outcome.ids.add(body.task_id);
          } catch {
            status = 599; // the host itself did not answer: retry like a 5xx
          }
          if (status < 500 && status !== 409) {
            outcome.final = status;
            break;
          }
          await sleep(100 + Math.random() * 100);
        }
        await sleep(150 + Math.random() * 150);
      }
    };
    await Promise.all([flapping, ...Array.from({ length: clients }, (_, c) => client(c))]);

    expect(outcomes).toHaveLength(clients * perClient);
    const retried = outcomes.filter((o) => o.tries > 1).length;
    expect(retried, "the flap hit some requests").toBeGreaterThan(0);
    for (const o of outcomes) {
      expect(o.final, `${o.idemKey} got an answer`).toBe(201);
      expect(o.ids.size, `${o.idemKey}: every answer names one task`).toBe(1);
      const stored = await tasksMarked(o.marker);
      expect(stored, `${o.idemKey}: exactly one task`).toEqual([...o.ids]);
    }
    // Afterwards every key replays its task.
    for (const o of outcomes.slice(0, 16)) {
      const res = await submit(o.apiKey, o.idemKey, o.marker);
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotency-replayed")).toBe("true");
      expect(((await res.json()) as { task_id: string }).task_id).toBe([...o.ids][0]);
    }
  }, 120_000);

  it("frees the key of a request that died without effect at once", async () => {
    const apiKey = await makeKey(["task_create"]);
    const marker = `died-${randomBytes(4).toString("hex")}`;
    const before = osrm.requests.length;
    osrm.setMode({ kind: "hang" });
    // Boisbriand is a gazetteer place: its distance is asked of the (hanging) OSRM stub.
    const first = submit(apiKey, marker, marker, "Boisbriand, QC");
    const reachedBy = Date.now() + 20_000; // guards against a hang only
    while (osrm.requests.length === before && Date.now() < reachedBy) await sleep(10);
    expect(osrm.requests.length).toBeGreaterThan(before);
    proxy.setMode("down"); // the request's connection dies while its handler waits
    const died = await first;
    expect(died.status).toBe(503);
    proxy.setMode("pass");
    osrm.setMode({ kind: "ok", meters: 30_000, seconds: 1500 });
    expect(await tasksMarked(marker)).toEqual([]);

    // The retry runs now, not after a lease (the idle-in-transaction timeout, 40 s here): allow
    // 10 s for the server to notice the cut (milliseconds, slower on a busy machine).
    const started = Date.now();
    let retry = await submit(apiKey, marker, marker, "Boisbriand, QC");
    while (retry.status === 409 && Date.now() - started < 10_000) {
      await sleep(50);
      retry = await submit(apiKey, marker, marker, "Boisbriand, QC");
    }
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    const { task_id } = (await retry.json()) as { task_id: string };
    expect(await tasksMarked(marker)).toEqual([task_id]);
  }, 60_000);

  it("answers public reads sent with a valid key during an outage, as anonymous with a Warning", async () => {
    const apiKey = await makeKey(["task_create", "audit_only"]);
    const get = (path: string) => fetch(`${host.url}${path}`, { headers: { "x-api-key": apiKey } });
    const healthy = await get("/api/status");
    expect(healthy.status).toBe(200);
    expect(healthy.headers.get("warning")).toBeNull();
    proxy.setMode("down");
    try {
      for (const path of ["/api/status", "/api/services", "/api/estimate?service_type=SVC-01&hours=2"]) {
        const res = await get(path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get("warning"), path).toBe('199 - "API key not checked: storage unavailable"');
      }
      const status = (await (await get("/api/status")).json()) as { status: string };
      expect(status.status).toBe("partial_outage");
      // An operation that needs the key still fails closed.
      expect((await get("/api/api-keys")).status).toBe(503);
      // A partition (no answer, no reset): the key check gives up after KEY_CHECK_TIMEOUT_MS.
      proxy.setMode("blackhole");
      const started = Date.now();
      const res = await get("/api/services");
      expect(res.status).toBe(200);
      expect(res.headers.get("warning")).toBe('199 - "API key not checked: storage unavailable"');
      // ~1.5 s; a check left to the query timeout would take 20 s. The bound sits far from both.
      expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS / 2);
    } finally {
      proxy.setMode("down"); // resets the black-holed connections
      proxy.setMode("pass");
    }
  }, 60_000);
});

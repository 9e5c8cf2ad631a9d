/**
 * kill -9 during work (docs/reliability.md "Idempotency"): a real service process on the
 * PostgreSQL of TEST_DATABASE_URL with 20 keyed submissions in flight (each waiting on a hanging
 * distance service), killed with SIGKILL, then started again. Every key, retried until it gets
 * an answer that is neither 5xx nor 409, yields exactly one task, at once: no claim of the
 * killed process blocks its key. Skipped without TEST_DATABASE_URL.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openPg, setDatabase } from "../../lib/db/client.js";
import { createScratchDatabase, type ScratchDatabase } from "../../lib/db/scratch-database.js";
import { type OsrmStub, startOsrmStub } from "../geo/osrm-stub.js";
import { POSTGRES_ONLY } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { type ServeProcess, startServeProcess } from "../helpers/serve-process.js";

const ADMIN_URL = process.env.TEST_DATABASE_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Service = ServeProcess;

/** Starts an instance on `databaseUrl`, its distances asked of the OSRM stub at `osrmUrl`. */
function startService(databaseUrl: string, osrmUrl: string): Promise<Service> {
  return startServeProcess({
    DATABASE_URL: databaseUrl,
    DISTANCE_PROVIDER: "osrm",
    OSRM_URL: osrmUrl,
    DISTANCE_TIMEOUT_MS: "30000", // the maximum: submissions stay in flight until the kill
    RATE_LIMIT_KEY_PER_MIN: "100000",
    OUTBOX_KICK: "false",
    DATABASE_POOL_MAX: "25",
  });
}

describe.skipIf(!ADMIN_URL)(`Idempotency-Key across kill -9${POSTGRES_ONLY}`, () => {
  let scratch: ScratchDatabase;
  let handle: DatabaseHandle;
  let osrm: OsrmStub;
  const services: Service[] = [];

  beforeAll(async () => {
    scratch = await createScratchDatabase(ADMIN_URL!, "ptes_test");
    handle = await openPg(scratch.url, 2);
    setDatabase(handle);
    osrm = await startOsrmStub();
  }, 120_000); // a scratch database migrated on the server: seconds idle, more on a loaded machine

  afterAll(async () => {
    for (const s of services) if (s.child.exitCode === null) s.child.kill("SIGKILL");
    setDatabase(undefined);
    await handle?.close();
    await osrm?.close();
    await scratch?.drop();
  });

  it("yields exactly one task per key when the process is killed with requests in flight", async () => {
    const apiKey = await makeKey(["task_create"]);
    const run = randomBytes(4).toString("hex");
    const keys = Array.from({ length: 20 }, (_, i) => `kill-${run}-${i}`);
    const submit = (base: string, key: string) =>
      fetch(`${base}/api/submit-task`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey, "idempotency-key": key },
        body: JSON.stringify({
          service_type: "SVC-01",
          location_address: "Boisbriand, QC", // a gazetteer place: its distance is asked of OSRM
          task_description: `Photograph the storefront (${key}).`,
          requester_contact: "kill@example.com",
        }),
      });

    const first = await startService(scratch.url, osrm.url);
    services.push(first);
    osrm.setMode({ kind: "hang" });
    const before = osrm.requests.length;
    const inFlight = keys.map((key) => submit(first.url, key).catch(() => null));
    // Until every submission waits on the distance service (a guard of 60 s, not a speed claim).
    const arrived = Date.now() + 60_000;
    while (osrm.requests.length < before + keys.length && Date.now() < arrived) await sleep(10);
    expect(osrm.requests.length - before).toBe(keys.length);
    first.child.kill("SIGKILL");
    await Promise.all(inFlight);

    osrm.setMode({ kind: "ok", meters: 30_000, seconds: 1500 });
    const second = await startService(scratch.url, osrm.url);
    services.push(second);
    const ids = new Map<string, string>();
    // Each key is retried until the restarted service answers it; the killed process's locks are
    // gone with its connections at once, so this only guards against a key blocked for good.
    const started = Date.now();
    await Promise.all(
      keys.map(async (key) => {
        while (Date.now() - started < 60_000) {
          const res = await submit(second.url, key);
          if (res.status < 500 && res.status !== 409) {
            expect(res.status).toBe(201);
            ids.set(key, ((await res.json()) as { task_id: string }).task_id);
            return;
          }
          await sleep(100);
        }
      }),
    );
    expect(ids.size).toBe(keys.length);
    const direct = new pg.Client({ connectionString: scratch.url });
    await direct.connect();
    try {
      for (const key of keys) {
        const { rows } = await direct.query<{ id: string }>(
          "select id from tasks where task_description = $1",
          [`Photograph the storefront (${key}).`],
        );
        expect(rows.map((r) => r.id)).toEqual([ids.get(key)]);
      }
    } finally {
      await direct.end();
    }
    // Two service starts (tsx) and 40 submissions on a loaded 2-core machine, each wait above a
    // guard: sized far above the ~10 s this takes on an idle one.
  }, 360_000);
});

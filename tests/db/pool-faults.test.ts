/**
 * The node-postgres pool under a connection cut (lib/db/pool-guard.ts `guardConnections`): a client
 * whose connection dies while drizzle sends BEGIN goes back to the pool instead of leaking.
 * Real PostgreSQL of TEST_DATABASE_URL behind tests/helpers/tcp-proxy.ts; skipped without it.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openPg } from "../../lib/db/client.js";
import { createScratchDatabase, type ScratchDatabase } from "../../lib/db/scratch-database.js";
import { POSTGRES_ONLY } from "../helpers/db.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const ADMIN_URL = process.env.TEST_DATABASE_URL;

describe.skipIf(!ADMIN_URL)(`pool under connection cuts${POSTGRES_ONLY}`, () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    scratch = await createScratchDatabase(ADMIN_URL!, "ptes_test");
    proxy = await startTcpProxy({ port: Number(new URL(scratch.url).port || 5432) });
    handle = await openPg(proxy.rewriteUrl(scratch.url), 1); // one connection: a leak shows at once
  }, 60_000);

  afterAll(async () => {
    await handle?.close();
    await proxy?.close();
    await scratch?.drop();
  });

  it("gets its only connection back after a cut during BEGIN", async () => {
    await handle.db.execute(sql`select 1`); // the pooled connection exists
    proxy.setMode("blackhole"); // BEGIN is sent and never answered...
    let ran = false;
    const tx = handle.db.transaction(async () => {
      ran = true;
    });
    // ...once the proxy has swallowed it (by order, not after a guessed sleep; 20 s guard a hang)...
    const sent = Date.now() + 20_000;
    while (proxy.dropped() === 0 && Date.now() < sent) await new Promise((r) => setTimeout(r, 10));
    expect(proxy.dropped()).toBeGreaterThan(0);
    proxy.setMode("down"); // ...then the connection is reset
    await expect(tx).rejects.toThrow();
    expect(ran).toBe(false);
    proxy.setMode("pass");
    // The one slot is free again: a leaked one would make this wait for a checkout until the
    // pool's bound (DB_QUERY_TIMEOUT_MS, connectionTimeoutMillis) and reject, so the query
    // resolving is the check; no stopwatch (a loaded machine would fool it).
    await expect(handle.db.execute(sql`select 1 as one`)).resolves.toBeDefined();
    await handle.db.transaction(async (t) => {
      await t.execute(sql`select 1`);
    });
  }, 60_000);
});

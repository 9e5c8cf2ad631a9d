/**
 * Test databases. `createTestDatabase("pglite")` loads the migrated template made by
 * the global setup; `createTestDatabase("pg")` makes a fresh database on the server
 * of TEST_DATABASE_URL and migrates it; `"neon"` does the same through the Neon
 * driver over TEST_NEON_WS_PROXY (websockify in front of PostgreSQL).
 * `useTestDatabase()` installs one as the process database for a test file: the real
 * PostgreSQL when TEST_DATABASE_URL is set, else PGlite.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, inject } from "vitest";
import { type DatabaseHandle, openNeon, openPg, pgliteOptions, setDatabase } from "../../lib/db/client.js";
import * as schema from "../../lib/db/schema/index.js";
import { createScratchDatabase } from "../../lib/db/scratch-database.js";

export type TestBackend = "pglite" | "pg" | "neon";

/** Backends available in this environment. */
export function availableBackends(): TestBackend[] {
  const out: TestBackend[] = ["pglite"];
  if (process.env.TEST_DATABASE_URL) out.push("pg");
  if (process.env.TEST_DATABASE_URL && process.env.TEST_NEON_WS_PROXY) out.push("neon");
  return out;
}

/**
 * Title suffix of a suite that needs a PostgreSQL server: "" where TEST_DATABASE_URL is set,
 * else the reason the suite is skipped, so a run without it says why (issue 31).
 */
export const POSTGRES_ONLY = process.env.TEST_DATABASE_URL ? "" : " (skipped: needs TEST_DATABASE_URL)";

/** The backend `useTestDatabase()` picks. */
export function defaultBackend(): TestBackend {
  return process.env.TEST_DATABASE_URL ? "pg" : "pglite";
}

/** A fresh, migrated database on `backend`. */
export async function createTestDatabase(backend: TestBackend = defaultBackend()): Promise<DatabaseHandle> {
  if (backend === "pglite") {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const template = readFileSync(inject("pgliteTemplate"));
    const client = new PGlite({ loadDataDir: new Blob([template]), ...(await pgliteOptions()) });
    await client.waitReady;
    return {
      db: drizzle(client, { schema }) as unknown as DatabaseHandle["db"],
      driver: "pglite",
      close: () => client.close(),
    };
  }
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, "ptes_test");
  const handle =
    backend === "neon"
      ? await openNeon(scratch.url, 4, process.env.TEST_NEON_WS_PROXY)
      : await openPg(scratch.url, 10);
  return {
    ...handle,
    async close() {
      await handle.close();
      await scratch.drop();
    },
  };
}

/** Installs a fresh test database as the process database for this file. */
export function useTestDatabase(backend: TestBackend = defaultBackend()): { handle: () => DatabaseHandle } {
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    setDatabase(handle);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await handle?.close();
  });
  return {
    handle: () => {
      if (!handle) throw new Error("test database not ready");
      return handle;
    },
  };
}

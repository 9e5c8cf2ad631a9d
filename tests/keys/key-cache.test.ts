import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DELETE, GET, POST } from "../../api/api-keys.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys } from "../../lib/db/schema/index.js";
import { sha256Hex } from "../../lib/ids.js";
import { authenticateKey, forgetCachedKey } from "../../lib/keys/authenticate.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";

useTestDatabase();

function setTtl(ms: number | undefined): void {
  if (ms === undefined) delete process.env.API_KEY_CACHE_TTL_MS;
  else process.env.API_KEY_CACHE_TTL_MS = String(ms);
  resetConfig();
}

/** Revokes the key behind this instance's back, as another instance would. */
async function revokeElsewhere(key: string): Promise<void> {
  const db = await getDb();
  await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(eq(apiKeys.keyHash, sha256Hex(key)));
}

afterEach(() => {
  vi.restoreAllMocks();
  setTtl(undefined);
});

describe("cache of verified API keys", () => {
  it("refuses a key at once on the instance that revoked it, though the key was just used", async () => {
    const mine = await makeKey(undefined, "cache-rev@example.com");
    // A key `mine` created, so `mine` may revoke it.
    const sibling = (
      await call(POST, "/api/api-keys", {
        method: "POST",
        headers: keyHeaders(mine),
        json: { name: "sibling", contact: "cache-rev@example.com" },
      })
    ).body.api_key as string;
    const before = await call(GET, "/api/api-keys", { headers: keyHeaders(sibling) });
    expect(before.res.status).toBe(200);
    const del = await call(DELETE, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(mine),
      json: { key_to_revoke: sibling },
    });
    expect(del.res.status).toBe(200);
    const after = await call(GET, "/api/api-keys", { headers: keyHeaders(sibling) });
    expect(expectEnvelope(after.body, after.res, 401, "UNAUTHORIZED").message).toMatch(/revoked/);
  });

  it("refuses a key that revoked itself on its next request", async () => {
    const key = await makeKey(undefined, "cache-self@example.com");
    const del = await call(DELETE, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(key),
      json: { key_to_revoke: key },
    });
    expect(del.res.status).toBe(200);
    const after = await call(GET, "/api/api-keys", { headers: keyHeaders(key) });
    expectEnvelope(after.body, after.res, 401, "UNAUTHORIZED");
  });

  it("reuses a verified key until API_KEY_CACHE_TTL_MS has passed (the cross-instance bound)", async () => {
    setTtl(5_000);
    const key = await makeKey(["audit_only"]);
    // The clock stands still from the first lookup: the ages below do not grow by however long the
    // revocation takes on a busy machine.
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now);
    const first = await authenticateKey(key);
    await revokeElsewhere(key);
    vi.spyOn(Date, "now").mockReturnValue(now + 4_000);
    await expect(authenticateKey(key)).resolves.toEqual(first);
    vi.spyOn(Date, "now").mockReturnValue(now + 5_001);
    await expect(authenticateKey(key)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("looks every request up when API_KEY_CACHE_TTL_MS is 0, even a key remembered before", async () => {
    const key = await makeKey();
    await authenticateKey(key);
    setTtl(0);
    await authenticateKey(key);
    await revokeElsewhere(key);
    await expect(authenticateKey(key)).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: expect.stringMatching(/revoked/),
    });
  });

  it("forgetCachedKey makes the next use read the database", async () => {
    const key = await makeKey();
    await authenticateKey(key);
    await revokeElsewhere(key);
    await forgetCachedKey(sha256Hex(key));
    await expect(authenticateKey(key)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("never remembers a refused key: it is looked up again on its next use", async () => {
    const key = await makeKey();
    await revokeElsewhere(key);
    await expect(authenticateKey(key)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const db = await getDb();
    await db
      .update(apiKeys)
      .set({ revokedAt: null })
      .where(eq(apiKeys.keyHash, sha256Hex(key)));
    await expect(authenticateKey(key)).resolves.toMatchObject({ scopes: ["audit_only", "task_create"] });
  });

  it("hands out a copy: changing a returned caller does not change the next one", async () => {
    const key = await makeKey(["audit_only"]);
    const first = await authenticateKey(key);
    first.scopes.push("admin");
    first.isAdmin = true;
    const second = await authenticateKey(key);
    expect(second.scopes).toEqual(["audit_only"]);
    expect(second.isAdmin).toBe(false);
  });

  it("still writes last_used_at when served from the cache, at most once a minute", async () => {
    setTtl(60_000);
    const key = await makeKey();
    const db = await getDb();
    const where = eq(apiKeys.keyHash, sha256Hex(key));
    const lastUsed = async () =>
      (await db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(where))[0]!.at;
    const now = Date.now();
    // Another instance wrote it 30 s ago: this lookup does not write, and the entry remembers that time.
    await db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(now - 30_000) })
      .where(where);
    vi.spyOn(Date, "now").mockReturnValue(now);
    await authenticateKey(key);
    // A cache hit 31 s later is more than a minute after that write: it writes again.
    vi.spyOn(Date, "now").mockReturnValue(now + 31_000);
    await authenticateKey(key);
    // The write is not awaited by the lookup: wait for it (the limit only guards against a hang;
    // vi.waitFor's default of 1 s is short for a database write on a busy machine).
    await vi.waitFor(async () => expect((await lastUsed())!.getTime()).toBe(now + 31_000), {
      timeout: 20_000,
    });
  });
});

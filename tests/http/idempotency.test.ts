/** Idempotency-Key on state-changing operations, on the database store and on Upstash Redis. */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "../../api/api-keys.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys } from "../../lib/db/schema/index.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { useTestDatabase } from "../helpers/db.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";

useTestDatabase();

let shim: UpstashShim | undefined;
afterAll(async () => {
  delete process.env.UPSTASH_REDIS_REST_URL;
  delete process.env.UPSTASH_REDIS_REST_TOKEN;
  resetConfig();
  resetLimiters();
  await shim?.close();
});

const ip = () => `203.0.113.${randomBytes(3).toString("hex")}`;

function create(name: string, key: string, from: string, extra: Record<string, string> = {}) {
  return call(POST, "/api/api-keys", {
    method: "POST",
    headers: { "idempotency-key": key, "x-local-socket-ip": from, ...extra },
    json: { name, contact: "idem@example.com" },
  });
}

async function rowsNamed(name: string): Promise<number> {
  const db = await getDb();
  return (await db.select().from(apiKeys).where(eq(apiKeys.name, name))).length;
}

describe.each(["database", "upstash"] as const)("idempotency on the %s store", (store) => {
  beforeAll(async () => {
    if (store === "upstash") {
      shim = await startUpstashShim();
      process.env.UPSTASH_REDIS_REST_URL = shim.url;
      process.env.UPSTASH_REDIS_REST_TOKEN = shim.token;
    }
    resetConfig();
    resetLimiters();
  });

  it("replays the first response byte for byte with Idempotency-Replayed", async () => {
    const from = ip();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const name = `idem-${store}-1`;
    const first = await create(name, key, from);
    expect(first.res.status).toBe(201);
    expect(first.res.headers.get("idempotency-replayed")).toBeNull();
    const second = await create(name, key, from);
    expect(second.res.status).toBe(201);
    expect(second.res.headers.get("idempotency-replayed")).toBe("true");
    expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));
    expect(second.res.headers.get("content-type")).toBe(first.res.headers.get("content-type"));
    expect(second.res.headers.get("x-request-id")).not.toBe(first.res.headers.get("x-request-id"));
    expect(await rowsNamed(name)).toBe(1);
  });

  it("refuses the same key with a different body (422 IDEMPOTENCY_KEY_REUSED)", async () => {
    const from = ip();
    const key = `k-${randomBytes(8).toString("hex")}`;
    await create(`idem-${store}-2a`, key, from);
    const { res, body } = await create(`idem-${store}-2b`, key, from);
    expectEnvelope(body, res, 422, "IDEMPOTENCY_KEY_REUSED");
    expect(await rowsNamed(`idem-${store}-2b`)).toBe(0);
  });

  it("scopes keys to the caller: another IP with the same key runs its own request", async () => {
    const key = `k-${randomBytes(8).toString("hex")}`;
    const a = await create(`idem-${store}-3`, key, ip());
    const b = await create(`idem-${store}-3`, key, ip());
    expect(b.res.headers.get("idempotency-replayed")).toBeNull();
    expect(b.body.api_key).not.toBe(a.body.api_key);
  });

  it("produces exactly one effect for 10 concurrent requests with one key", async () => {
    const from = ip();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const name = `idem-${store}-4`;
    const results = await Promise.all(Array.from({ length: 10 }, () => create(name, key, from)));
    expect(await rowsNamed(name)).toBe(1);
    const created = results.filter((r) => r.res.status === 201);
    const conflicts = results.filter((r) => r.res.status === 409);
    expect(created.length + conflicts.length).toBe(10);
    expect(new Set(created.map((r) => r.body.api_key)).size).toBe(1);
    for (const c of conflicts) expect(c.body.error.code).toBe("CONFLICT");
  });

  it("does not store requests that fail validation", async () => {
    const from = ip();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const bad = await call(POST, "/api/api-keys", {
      method: "POST",
      headers: { "idempotency-key": key, "x-local-socket-ip": from },
      json: { name: "x", contact: "nope" },
    });
    expect(bad.res.status).toBe(422);
    const good = await create(`idem-${store}-5`, key, from);
    expect(good.res.status).toBe(201);
    expect(good.res.headers.get("idempotency-replayed")).toBeNull();
  });

  it("refuses a key over 128 characters with 400 INVALID_FORMAT", async () => {
    const { res, body } = await create(`idem-${store}-6`, "k".repeat(129), ip());
    expect(expectEnvelope(body, res, 400, "INVALID_FORMAT").field).toBe("Idempotency-Key");
    expect(await rowsNamed(`idem-${store}-6`)).toBe(0);
    expect((await create(`idem-${store}-7`, "k".repeat(128), ip())).res.status).toBe(201);
  });
});

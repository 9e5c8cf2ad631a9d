/**
 * Idempotency-Key on state-changing operations (docs/reliability.md "Idempotency"): without and
 * with Upstash Redis configured (the records stay in the database either way), the effect and
 * its record in one transaction, encrypted stored answers, the redaction migration.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "../../api/api-keys.js";
import { GET as expireCron } from "../../api/cron/expire-payments.js";
import { resetConfig } from "../../lib/config.js";
import { afterCommit } from "../../lib/db/ambient.js";
import { getDb, MIGRATIONS_FOLDER } from "../../lib/db/client.js";
import { apiKeys, idempotencyKeys } from "../../lib/db/schema/index.js";
import { toErrorResponse } from "../../lib/http/handler.js";
import { runIdempotent } from "../../lib/http/idempotency.js";
import { json } from "../../lib/http/response.js";
import { isSealed, openBody } from "../../lib/idempotency/seal.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { defaultBackend, useTestDatabase } from "../helpers/db.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";

useTestDatabase();

let shim: UpstashShim | undefined;
afterAll(async () => {
  delete process.env.UPSTASH_REDIS_REST_URL;
  delete process.env.UPSTASH_REDIS_REST_TOKEN;
  delete process.env.RATE_LIMIT_TIMEOUT_MS;
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

/** A key (trusted path) to create keys with: its records are scoped to it, `key:<key_id>`. */
function creatorKey() {
  return createApiKey({ name: "idem-creator", contact: "idem@example.com", trusted: true });
}

async function rowsNamed(name: string): Promise<number> {
  const db = await getDb();
  return (await db.select().from(apiKeys).where(eq(apiKeys.name, name))).length;
}

async function recordOf(scope: string, key: string) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
  return row;
}

describe.each(["database", "upstash"] as const)("idempotency on the %s store", (store) => {
  beforeAll(async () => {
    if (store === "upstash") {
      shim = await startUpstashShim();
      process.env.UPSTASH_REDIS_REST_URL = shim.url;
      process.env.UPSTASH_REDIS_REST_TOKEN = shim.token;
      // The shim + Redis round trips of a request's limiters have taken over 300 ms on a busy 2-core
      // machine: the default bound (1 s) would answer 503 there. The largest setting, 10 s.
      process.env.RATE_LIMIT_TIMEOUT_MS = "10000";
    }
    resetConfig();
    resetLimiters();
  });

  it("replays the first response byte for byte with Idempotency-Replayed", async () => {
    // A caller with a key: an anonymous caller's new key is never replayed (idempotency-scope.test.ts).
    const from = ip();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const name = `idem-${store}-1`;
    const creator = { "x-api-key": (await creatorKey()).api_key };
    const first = await create(name, key, from, creator);
    expect(first.res.status).toBe(201);
    expect(first.res.headers.get("idempotency-replayed")).toBeNull();
    const second = await create(name, key, from, creator);
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

  it("keeps the record in the database, its body encrypted: no secret readable at rest", async () => {
    const from = ip();
    const key = `k-${randomBytes(8).toString("hex")}`;
    const creator = await creatorKey();
    const scope = `key:${creator.key_id}`;
    const headers = { "x-api-key": creator.api_key };
    const first = await create(`idem-${store}-8`, key, from, headers);
    expect(first.res.status).toBe(201);
    const row = await recordOf(scope, key);
    expect(row?.state).toBe("completed");
    const stored = row!.responseBody!;
    expect(isSealed(stored)).toBe(true);
    expect(stored).not.toContain(first.body.api_key);
    expect(JSON.stringify(row)).not.toContain(first.body.api_key);
    // Bound to its record: the ciphertext does not open for another scope or key.
    expect(JSON.parse(openBody(stored, scope, key)).api_key).toBe(first.body.api_key);
    expect(() => openBody(stored, `ip:${from}`, key)).toThrow();
    expect(() => openBody(stored, scope, `${key}x`)).toThrow();
    // The replay still returns the secret to the caller holding the key.
    const replay = await create(`idem-${store}-8`, key, from, headers);
    expect(replay.body.api_key).toBe(first.body.api_key);
  });

  it("refuses a key over 128 characters with 400 INVALID_FORMAT", async () => {
    const { res, body } = await create(`idem-${store}-6`, "k".repeat(129), ip());
    expect(expectEnvelope(body, res, 400, "INVALID_FORMAT").field).toBe("Idempotency-Key");
    expect(await rowsNamed(`idem-${store}-6`)).toBe(0);
    expect((await create(`idem-${store}-7`, "k".repeat(128), ip())).res.status).toBe(201);
  });
});

describe("runIdempotent: the effect and its record in one transaction", () => {
  const toResponse = () => json({ error: { code: "INTERNAL" } }, 500);

  it("rolls back the handler's writes on a 5xx and frees the key at once", async () => {
    const scope = `ip:${ip()}`;
    const key = `k-${randomBytes(8).toString("hex")}`;
    const name = `idem-rollback-${key}`;
    const after: string[] = [];
    const failed = await runIdempotent(
      scope,
      key,
      "fp",
      "POST /test",
      async () => {
        await createApiKey({ name, contact: "rollback@example.com", trusted: true });
        afterCommit(() => after.push("failed"));
        throw new Error("boom after the write");
      },
      toResponse,
    );
    expect(failed.status).toBe(500);
    expect(await rowsNamed(name)).toBe(0);
    expect(await recordOf(scope, key)).toBeUndefined();
    expect(after).toEqual([]);

    let runs = 0;
    const ok = await runIdempotent(
      scope,
      key,
      "fp",
      "POST /test",
      async () => {
        runs++;
        await createApiKey({ name, contact: "rollback@example.com", trusted: true });
        afterCommit(() => after.push("committed"));
        return json({ ok: true }, 201);
      },
      toResponse,
    );
    expect(ok.status).toBe(201);
    expect(runs).toBe(1);
    expect(after).toEqual(["committed"]);
    expect(await rowsNamed(name)).toBe(1);
    const replay = await runIdempotent(
      scope,
      key,
      "fp",
      "POST /test",
      async () => {
        runs++;
        return json({ ok: false }, 201);
      },
      toResponse,
    );
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(await replay.json()).toEqual({ ok: true });
    expect(runs).toBe(1);
  });

  it.skipIf(defaultBackend() !== "pg")(
    "answers a deadlock with 503 (retry) and rolls the loser back",
    async () => {
      const db = await getDb();
      const a = await createApiKey({ name: "deadlock-a", contact: "dl@example.com", trusted: true });
      const b = await createApiKey({ name: "deadlock-b", contact: "dl@example.com", trusted: true });
      // getDb() inside the handler: the request's (ambient) transaction.
      const touch = async (id: string, name: string) =>
        (await getDb()).update(apiKeys).set({ name }).where(eq(apiKeys.id, id));
      // Each transaction makes its second write only once both have made their first: the writes
      // cross whatever the machine's speed (a fixed pause could end before the other one began).
      let firstWrites = 0;
      let bothWritten!: () => void;
      const crossed = new Promise<void>((resolve) => {
        bothWritten = resolve;
      });
      const crossing = (first: string, second: string, name: string) =>
        runIdempotent(
          `ip:${ip()}`,
          `k-${randomBytes(8).toString("hex")}`,
          "fp",
          "POST /test",
          async () => {
            await touch(first, name);
            if (++firstWrites === 2) bothWritten();
            await crossed;
            await touch(second, name);
            return json({ ok: true }, 201);
          },
          (error) => toErrorResponse(error, "req_test"),
        );
      const results = await Promise.all([
        crossing(a.key_id, b.key_id, "dl-1"),
        crossing(b.key_id, a.key_id, "dl-2"),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 503]);
      const names = (
        await db
          .select()
          .from(apiKeys)
          .where(inArray(apiKeys.id, [a.key_id, b.key_id]))
      ).map((r) => r.name);
      expect(new Set(names).size).toBe(1); // the loser's first write was rolled back too
    },
  );

  it("keeps a 4xx answer with the writes made before it, like any other answer", async () => {
    const scope = `ip:${ip()}`;
    const key = `k-${randomBytes(8).toString("hex")}`;
    const name = `idem-4xx-${key}`;
    const first = await runIdempotent(
      scope,
      key,
      "fp",
      "POST /test",
      async () => {
        await createApiKey({ name, contact: "conflict@example.com", trusted: true });
        return json({ error: { code: "CONFLICT" } }, 409);
      },
      toResponse,
    );
    expect(first.status).toBe(409);
    expect(await rowsNamed(name)).toBe(1);
    expect((await recordOf(scope, key))?.responseStatus).toBe(409);
  });

  it("takes over a record left in_progress by the earlier design and ignores an expired one", async () => {
    const db = await getDb();
    const scope = `ip:${ip()}`;
    const stale = `k-${randomBytes(8).toString("hex")}`;
    const expired = `k-${randomBytes(8).toString("hex")}`;
    await db.insert(idempotencyKeys).values([
      {
        scope,
        key: stale,
        requestHash: "fp",
        state: "in_progress",
        expiresAt: new Date(Date.now() + 3600_000),
      },
      {
        scope,
        key: expired,
        requestHash: "other",
        state: "completed",
        responseStatus: 200,
        responseBody: "{}",
        expiresAt: new Date(Date.now() - 1000),
      },
    ]);
    for (const key of [stale, expired]) {
      const res = await runIdempotent(
        scope,
        key,
        "fp",
        "POST /test",
        async () => json({ key }, 201),
        toResponse,
      );
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotency-replayed")).toBeNull();
      expect((await recordOf(scope, key))?.state).toBe("completed");
    }
  });

  it("refuses to run again when the stored answer no longer decrypts (WEBHOOK_SECRET_KEY changed)", async () => {
    const scope = `ip:${ip()}`;
    const key = `k-${randomBytes(8).toString("hex")}`;
    let runs = 0;
    const execute = async () => {
      runs++;
      return json({ secret: "whsec_x" }, 201);
    };
    await runIdempotent(scope, key, "fp", "POST /test", execute, toResponse);
    process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    resetConfig();
    try {
      await expect(runIdempotent(scope, key, "fp", "POST /test", execute, toResponse)).rejects.toMatchObject({
        code: "CONFLICT",
      });
    } finally {
      delete process.env.WEBHOOK_SECRET_KEY;
      resetConfig();
    }
    expect(runs).toBe(1);
  });
});

describe("migration 0007_redact_idempotency_secrets", () => {
  it("redacts the secrets of records stored in clear and drops old claims", async () => {
    const db = await getDb();
    const scope = `ip:${ip()}`;
    const bodies = {
      a: JSON.stringify({ key_id: "key_1", api_key: "svc_SECRETSECRET", name: "n" }),
      b: JSON.stringify({ task_id: "TASK-1", access_token: "tok_SECRETSECRET" }),
      c: JSON.stringify({ webhook_id: "wh_1", secret: "whsec_SECRETSECRET", url: "https://x" }),
    };
    const expiresAt = new Date(Date.now() + 3600_000);
    await db.insert(idempotencyKeys).values([
      ...Object.entries(bodies).map(([key, body]) => ({
        scope,
        key,
        requestHash: "fp",
        state: "completed" as const,
        responseStatus: 201,
        responseBody: body,
        expiresAt,
      })),
      { scope, key: "claim", requestHash: "fp", state: "in_progress" as const, expiresAt },
    ]);
    const file = readFileSync(path.join(MIGRATIONS_FOLDER, "0007_redact_idempotency_secrets.sql"), "utf8");
    for (const statement of file.split("--> statement-breakpoint")) await db.execute(sql.raw(statement));
    for (const key of Object.keys(bodies)) {
      const row = await recordOf(scope, key);
      expect(row?.responseBody).not.toContain("SECRET");
      const body = JSON.parse(row!.responseBody!);
      expect(Object.values(body)).toContain("[redacted: secrets are not kept in clear]");
      expect(body.key_id ?? body.task_id ?? body.webhook_id).toMatch(/_1|-1/);
    }
    expect(await recordOf(scope, "claim")).toBeUndefined();
  });
});

describe("retention", () => {
  it("the expire-payments cron deletes records past their 24 h and keeps live ones", async () => {
    const db = await getDb();
    const scope = `ip:${ip()}`;
    await db.insert(idempotencyKeys).values([
      { scope, key: "old", requestHash: "fp", state: "completed", expiresAt: new Date(Date.now() - 1000) },
      {
        scope,
        key: "live",
        requestHash: "fp",
        state: "completed",
        expiresAt: new Date(Date.now() + 3600_000),
      },
    ]);
    const { res, body } = await call(expireCron, "/api/cron/expire-payments");
    expect(res.status).toBe(200);
    expect(body.details.idempotency_records_purged).toBeGreaterThanOrEqual(1);
    expect(await recordOf(scope, "old")).toBeUndefined();
    expect(await recordOf(scope, "live")).toBeDefined();
  });
});

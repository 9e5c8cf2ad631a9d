import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE, GET, POST } from "../../api/api-keys.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys } from "../../lib/db/schema/index.js";
import { sha256Hex } from "../../lib/ids.js";
import { authenticateKey } from "../../lib/keys/authenticate.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";
import { registerWeb, webBody } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";

useTestDatabase();

describe("POST /api/api-keys", () => {
  it("creates a key with the default scopes, shown once and stored only as a hash", async () => {
    const { res, body } = await call(POST, "/api/api-keys", {
      method: "POST",
      json: { name: "inspection-agent", contact: "Ops@Example.com" },
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      name: "inspection-agent",
      contact: "ops@example.com",
      scopes: ["audit_only", "task_create"],
    });
    expect(body.api_key).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    expect(body.key_id).toMatch(/^key_/);
    const db = await getDb();
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, body.key_id));
    expect(row!.keyHash).toBe(sha256Hex(body.api_key));
    expect(JSON.stringify(row)).not.toContain(body.api_key);
    expect(row!.keyHint).toBe(body.api_key.slice(-4));
  });

  it("honours requested scopes but grants admin only to an admin caller", async () => {
    const ok = await call(POST, "/api/api-keys", {
      method: "POST",
      json: { name: "biller", contact: "b@example.com", scopes: ["billing_read", "audit_only"] },
    });
    expect(ok.body.scopes).toEqual(["billing_read", "audit_only"]);
    const denied = await call(POST, "/api/api-keys", {
      method: "POST",
      json: { name: "sneaky", contact: "s@example.com", scopes: ["admin"] },
    });
    expectEnvelope(denied.body, denied.res, 403, "FORBIDDEN");
    const admin = await makeKey(["admin"]);
    const granted = await call(POST, "/api/api-keys", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { name: "second-admin", contact: "a2@example.com", scopes: ["admin"] },
    });
    expect(granted.res.status).toBe(201);
    expect(granted.body.scopes).toEqual(["admin"]);
  });

  it.each([
    [{ contact: "a@example.com" }, 400, "MISSING_FIELD", "name"],
    [{ name: "x" }, 400, "MISSING_FIELD", "contact"],
    [{ name: "x", contact: "not-an-email" }, 422, "VALIDATION_ERROR", "contact"],
    [{ name: "", contact: "a@example.com" }, 400, "MISSING_FIELD", "name"],
    [{ name: "x".repeat(101), contact: "a@example.com" }, 422, "FIELD_TOO_LONG", "name"],
    [{ name: "x", contact: "a@example.com", scopes: ["root"] }, 422, "VALIDATION_ERROR", "scopes.0"],
    [{ name: "x", contact: "a@example.com", scopes: [] }, 422, "VALIDATION_ERROR", "scopes"],
    [{ name: 5, contact: "a@example.com" }, 400, "INVALID_FORMAT", "name"],
    [{ name: "x", contact: "a@example.com", extra: true }, 422, "VALIDATION_ERROR", "extra"],
  ])("%j → %i %s", async (json, status, code, field) => {
    const { res, body } = await call(POST, "/api/api-keys", { method: "POST", json });
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });
});

describe("GET and DELETE /api/api-keys", () => {
  it("lists the caller, the keys it created and the keys linked to its account, without secrets; not those of the same typed contact; an admin sees all", async () => {
    const a1 = await makeKey(undefined, "team@example.com");
    const sameContact = await makeKey(undefined, "team@example.com");
    await makeKey(undefined, "other@example.com");
    const child = await call(POST, "/api/api-keys", {
      method: "POST",
      headers: keyHeaders(a1),
      json: { name: "child", contact: "someone@example.com" },
    });
    expect(child.res.status).toBe(201);
    const { res, body } = await call(GET, "/api/api-keys", { headers: keyHeaders(a1) });
    expect(res.status).toBe(200);
    expect(body.count).toBe(2);
    const a1Id = (await authenticateKey(a1)).keyId;
    expect(body.keys.map((k: any) => k.key_id).sort()).toEqual([a1Id, child.body.key_id].sort());
    expect(JSON.stringify(body)).not.toContain(a1);
    expect(JSON.stringify(body)).not.toContain(sameContact);
    expect(body.keys[0]).toHaveProperty("key_hint");
    expect(body.keys[0]).toHaveProperty("account_id", null);
    // Keys linked to one account see each other.
    const { body: opened } = await registerWeb(webBody("linked-team@example.com"));
    const accountId = opened.account.account_id as string;
    const k1 = await createApiKey({ name: "k1", contact: "x@example.com", trusted: true, accountId });
    const k2 = await createApiKey({ name: "k2", contact: "y@example.com", trusted: true, accountId });
    const linked = await call(GET, "/api/api-keys", { headers: keyHeaders(k1.api_key) });
    expect(linked.body.keys.map((k: any) => k.key_id).sort()).toEqual([k1.key_id, k2.key_id].sort());
    const admin = await makeKey(["admin"]);
    const all = await call(GET, "/api/api-keys", { headers: { authorization: `Bearer ${admin}` } });
    expect(all.body.count).toBeGreaterThanOrEqual(7);
  });

  it("revokes a key the caller created, effective on the next request", async () => {
    const mine = await makeKey(undefined, "rev@example.com");
    const sibling = (
      await call(POST, "/api/api-keys", {
        method: "POST",
        headers: keyHeaders(mine),
        json: { name: "sibling", contact: "rev@example.com" },
      })
    ).body.api_key as string;
    const del = await call(DELETE, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(mine),
      json: { key_to_revoke: sibling },
    });
    expect(del.res.status).toBe(200);
    expect(del.body).toMatchObject({ revoked: true });
    const after = await call(GET, "/api/api-keys", { headers: keyHeaders(sibling) });
    expect(expectEnvelope(after.body, after.res, 401, "UNAUTHORIZED").message).toMatch(/revoked/);
    const again = await call(DELETE, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(mine),
      json: { key_to_revoke: sibling },
    });
    expectEnvelope(again.body, again.res, 404, "NOT_FOUND");
  });

  it("does not let a key revoke a key it does not see, even of the same typed contact (404, no probing); an admin can", async () => {
    const mine = await makeKey(undefined, "x1@example.com");
    const theirs = await makeKey(undefined, "x1@example.com");
    const denied = await call(DELETE, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(mine),
      json: { key_to_revoke: theirs },
    });
    expectEnvelope(denied.body, denied.res, 404, "NOT_FOUND");
    const admin = await makeKey(["admin"]);
    const ok = await call(DELETE, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(admin),
      json: { key_to_revoke: theirs },
    });
    expect(ok.res.status).toBe(200);
  });

  it.each([
    ["no key", {}],
    ["malformed key", { "x-api-key": "hello" }],
    ["another prefix", { "x-api-key": `sk_${"a".repeat(40)}` }],
    ["unknown key", { "x-api-key": `svc_${"a".repeat(40)}` }],
    ["empty bearer", { authorization: "Bearer " }],
    ["unicode junk", { "x-api-key": "svc_\u00e9\u00e9" }],
  ])("%s → 401 envelope", async (_, headers) => {
    const { res, body } = await call(GET, "/api/api-keys", { headers: headers as Record<string, string> });
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });
});

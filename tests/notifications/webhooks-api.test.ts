/** POST/GET/DELETE /api/webhooks and GET /api/webhooks/{id}/failures: rules, errors, storage. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DELETE as failuresDelete,
  GET as failuresGet,
  POST as replay,
} from "../../api/webhooks/[webhook_id]/failures.js";
import { POST as create, DELETE as del, GET as list } from "../../api/webhooks.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { webhooks } from "../../lib/db/schema/index.js";
import { decryptSecret } from "../../lib/webhooks/secret-box.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";

useTestDatabase();

let key: string;
let other: string;
let admin: string;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  key = await makeKey(["audit_only", "task_create"]);
  other = await makeKey(["audit_only", "task_create"]);
  admin = await makeKey(["admin"]);
});
afterAll(() => {
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  resetConfig();
});

const register = (k: string, json: unknown) =>
  call(create, "/api/webhooks", { method: "POST", headers: keyHeaders(k), json });

describe("POST /api/webhooks", () => {
  it("registers a webhook, returns the secret once and stores it encrypted", async () => {
    const { res, body } = await register(key, {
      url: "http://127.0.0.1:9/hook",
      events: ["task.completed", "task.accepted", "task.completed"],
    });
    expect(res.status).toBe(201);
    expect(body.webhook_id).toMatch(/^wh_[A-Za-z0-9]{20}$/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(body.events).toEqual(["task.completed", "task.accepted"]);
    expect(body.url).toBe("http://127.0.0.1:9/hook");
    const db = await getDb();
    const [row] = await db.select().from(webhooks).where(eq(webhooks.id, body.webhook_id));
    expect(JSON.stringify(row)).not.toContain(body.secret.slice(6));
    expect(decryptSecret(row!.secretCiphertext, row!.id)).toBe(body.secret);

    const listed = await call(list, "/api/webhooks", { headers: keyHeaders(key) });
    expect(listed.res.status).toBe(200);
    expect(listed.body.webhooks).toEqual([
      { webhook_id: body.webhook_id, url: body.url, events: body.events, created_at: body.created_at },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");
    const others = await call(list, "/api/webhooks", { headers: keyHeaders(other) });
    expect(others.body.webhooks).toEqual([]);
  });

  it.each([
    ["no url", { events: ["task.paid"] }, 400, "MISSING_FIELD", "url"],
    ["empty url", { url: " ", events: ["task.paid"] }, 400, "MISSING_FIELD", "url"],
    ["url not a string", { url: 5, events: ["task.paid"] }, 400, "INVALID_FORMAT", "url"],
    ["no events", { url: "https://example.com/h" }, 400, "MISSING_FIELD", "events"],
    [
      "events not an array",
      { url: "https://example.com/h", events: "task.paid" },
      400,
      "INVALID_FORMAT",
      "events",
    ],
    // spec "POST /api/webhooks": "400 invalid URL or events" (docs/spec-precedence.md)
    ["empty events", { url: "https://example.com/h", events: [] }, 400, "INVALID_FORMAT", "events"],
    [
      "unknown event",
      { url: "https://example.com/h", events: ["task.paid", "task.exploded"] },
      400,
      "INVALID_FORMAT",
      "events.1",
    ],
    [
      "unknown field",
      { url: "https://example.com/h", events: ["task.paid"], secret: "x" },
      422,
      "VALIDATION_ERROR",
      "secret",
    ],
    ["relative url", { url: "/hook", events: ["task.paid"] }, 400, "INVALID_FORMAT", "url"],
    [
      "url with credentials",
      { url: "https://u:p@example.com/h", events: ["task.paid"] },
      400,
      "INVALID_FORMAT",
      "url",
    ],
    [
      "url over 2048 characters",
      { url: `https://example.com/${"a".repeat(2040)}`, events: ["task.paid"] },
      422,
      "FIELD_TOO_LONG",
      "url",
    ],
  ])("refuses %s", async (_, json, status, code, field) => {
    const { res, body } = await register(key, json);
    const error = expectEnvelope(body, res, status, code);
    expect(error.field).toBe(field);
  });

  describe("without ALLOW_PRIVATE_CALLBACKS", () => {
    beforeAll(() => {
      process.env.ALLOW_PRIVATE_CALLBACKS = "false";
      resetConfig();
    });
    afterAll(() => {
      process.env.ALLOW_PRIVATE_CALLBACKS = "true";
      resetConfig();
    });
    it.each([
      ["an http:// URL", "http://example.com/hook", /https/],
      ["a loopback address", "https://127.0.0.1/hook", /private/],
      ["a private address", "https://10.1.2.3/hook", /private/],
      ["the metadata address", "https://169.254.169.254/latest", /private/],
      ["an IPv4-mapped IPv6 loopback", "https://[::ffff:127.0.0.1]/hook", /private/],
      ["a name resolving to loopback", "https://localhost/hook", /private/],
    ])("refuses %s (400, spec)", async (_, url, message) => {
      const { res, body } = await register(key, { url, events: ["task.paid"] });
      const error = expectEnvelope(body, res, 400, "INVALID_FORMAT");
      expect(error.field).toBe("url");
      expect(error.message).toMatch(message);
    });
  });

  it("allows 5 active webhooks per key; the 6th is 422 until one is deleted", async () => {
    const k = await makeKey(["audit_only", "task_create"]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await register(k, { url: `http://127.0.0.1:9/h${i}`, events: ["task.paid"] });
      expect(r.res.status).toBe(201);
      ids.push(r.body.webhook_id);
    }
    const sixth = await register(k, { url: "http://127.0.0.1:9/h6", events: ["task.paid"] });
    const error = expectEnvelope(sixth.body, sixth.res, 422, "VALIDATION_ERROR");
    expect(error).toMatchObject({ limit: 5, active: 5 });
    const gone = await call(del, "/api/webhooks", {
      method: "DELETE",
      headers: keyHeaders(k),
      json: { webhook_id: ids[0] },
    });
    expect(gone.res.status).toBe(200);
    expect(gone.body).toMatchObject({ webhook_id: ids[0], deleted: true });
    expect((await register(k, { url: "http://127.0.0.1:9/h6", events: ["task.paid"] })).res.status).toBe(201);
  });

  it("never lets concurrent registrations exceed 5", async () => {
    const k = await makeKey(["audit_only", "task_create"]);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        register(k, { url: `http://127.0.0.1:9/c${i}`, events: ["task.paid"] }),
      ),
    );
    expect(results.filter((r) => r.res.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.res.status === 422)).toHaveLength(3);
  });
});

describe("DELETE /api/webhooks", () => {
  it("404s for unknown, foreign and already deleted webhooks; admins may delete any", async () => {
    const mine = await register(key, { url: "http://127.0.0.1:9/d", events: ["task.paid"] });
    const id = mine.body.webhook_id as string;
    const remove = (k: string, webhook_id: unknown) =>
      call(del, "/api/webhooks", { method: "DELETE", headers: keyHeaders(k), json: { webhook_id } });
    const unknown = await remove(key, "wh_unknown");
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
    const foreign = await remove(other, id);
    expectEnvelope(foreign.body, foreign.res, 404, "NOT_FOUND");
    const missing = await call(del, "/api/webhooks", {
      method: "DELETE",
      headers: keyHeaders(key),
      json: {},
    });
    expectEnvelope(missing.body, missing.res, 400, "MISSING_FIELD");
    expect((await remove(admin, id)).res.status).toBe(200);
    const again = await remove(key, id);
    expectEnvelope(again.body, again.res, 404, "NOT_FOUND");
    const listed = await call(list, "/api/webhooks", { headers: keyHeaders(key) });
    expect(listed.body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).not.toContain(id);
  });
});

describe("GET/POST /api/webhooks/{id}/failures", () => {
  it("lists an empty queue for the owner and 404s for others", async () => {
    const mine = await register(key, { url: "http://127.0.0.1:9/f", events: ["task.paid"] });
    const id = mine.body.webhook_id as string;
    const path = `/api/webhooks/${id}/failures`;
    const ok = await call(failuresGet, path, { headers: keyHeaders(key) });
    expect(ok.res.status).toBe(200);
    expect(ok.body).toEqual({ webhook_id: id, total: 0, limit: 100, offset: 0, failures: [] });
    const foreign = await call(failuresGet, path, { headers: keyHeaders(other) });
    expectEnvelope(foreign.body, foreign.res, 404, "NOT_FOUND");
    const unknown = await call(failuresGet, "/api/webhooks/wh_nope/failures", { headers: keyHeaders(key) });
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
    const badLimit = await call(failuresGet, `${path}?limit=0`, { headers: keyHeaders(key) });
    expectEnvelope(badLimit.body, badLimit.res, 422, "VALIDATION_ERROR");
    const replayMissing = await call(replay, path, { method: "POST", headers: keyHeaders(key), json: {} });
    expectEnvelope(replayMissing.body, replayMissing.res, 400, "MISSING_FIELD");
    const replayUnknown = await call(replay, path, {
      method: "POST",
      headers: keyHeaders(key),
      json: { event_id: "evt_nope" },
    });
    expectEnvelope(replayUnknown.body, replayUnknown.res, 404, "NOT_FOUND");
    const wrongMethod = await call(failuresDelete, path, { method: "DELETE", headers: keyHeaders(key) });
    expectEnvelope(wrongMethod.body, wrongMethod.res, 405, "METHOD_NOT_ALLOWED");
  });
});

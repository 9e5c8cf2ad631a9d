import { describe, expect, it } from "vitest";
import { z } from "zod";
import { endpoint, route } from "../../lib/http/handler.js";
import { defineOperation } from "../../lib/http/operation.js";
import { json } from "../../lib/http/response.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { call, expectEnvelope } from "../helpers/request.js";

const echoOp = defineOperation({
  id: "echo",
  method: "POST",
  path: "/api/echo",
  summary: "echo",
  tags: ["test"],
  auth: "none",
  body: z.strictObject({ name: z.string().max(5), count: z.number().int().min(1).optional() }),
  maxBodyBytes: 64,
});
const itemOp = defineOperation({
  id: "item",
  method: "GET",
  path: "/api/items/{item_id}/parts",
  summary: "item",
  tags: ["test"],
  auth: "none",
});
const boomOp = defineOperation({
  id: "boom",
  method: "GET",
  path: "/api/boom",
  summary: "b",
  tags: ["t"],
  auth: "none",
});

const echo = route({ POST: endpoint(echoOp, ({ body }) => ({ got: body })) });
const item = route({ GET: endpoint(itemOp, ({ params }) => ({ params })) });
const boom = route({
  GET: endpoint(boomOp, () => {
    throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  }),
});
const crash = route({
  GET: endpoint(boomOp, () => {
    throw new TypeError("cannot read x of undefined");
  }),
});

function chunkedBody(parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });
}

describe("handler wrapper", () => {
  it("parses a JSON body and answers with X-Request-Id and CORS", async () => {
    const { res, body } = await call(echo.POST, "/api/echo", { method: "POST", json: { name: "abc" } });
    expect(res.status).toBe(200);
    expect(body).toEqual({ got: { name: "abc" } });
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{20}$/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("answers a returned value with the same headers as a returned Response (cache, CORS, limits)", async () => {
    const cachedOp = defineOperation({
      id: "cached",
      method: "GET",
      path: "/api/cached",
      summary: "c",
      tags: ["t"],
      auth: "none",
      cacheControl: "public, max-age=60",
      successStatus: 201,
    });
    const byValue = route({ GET: endpoint(cachedOp, () => ({ ok: true })) });
    const byResponse = route({ GET: endpoint(cachedOp, () => json({ ok: true }, 201)) });
    const headersOf = async (handler: typeof byValue.GET) => {
      const { res, body } = await call(handler, "/api/cached", {});
      expect(res.status).toBe(201);
      expect(body).toEqual({ ok: true });
      expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{20}$/);
      return [...res.headers].filter(([k]) => k !== "x-request-id" && k !== "ratelimit-remaining");
    };
    // The limiters count on a fixed clock (10 s into a minute): on the real one, the two requests
    // could fall either side of a second's edge and state different RateLimit-Reset values.
    resetLimiters(() => Date.UTC(2026, 0, 5, 0, 0, 10));
    try {
      const fromValue = await headersOf(byValue.GET);
      expect(fromValue).toEqual(await headersOf(byResponse.GET));
      expect(Object.fromEntries(fromValue)).toMatchObject({
        "cache-control": "public, max-age=60",
        "content-type": "application/json; charset=utf-8",
        "access-control-allow-origin": "*",
        "ratelimit-limit": expect.any(String),
        "ratelimit-reset": "50",
      });
    } finally {
      resetLimiters();
    }
  });

  it.each([
    ["{not json", "INVALID_FORMAT", 400],
    ["[1,2]", "INVALID_FORMAT", 400],
    ['"text"', "INVALID_FORMAT", 400],
    ["{}", "MISSING_FIELD", 400],
    ['{"name": 5}', "INVALID_FORMAT", 400],
    ['{"name": "toolong"}', "FIELD_TOO_LONG", 422],
    ['{"name": "a", "count": 0}', "VALIDATION_ERROR", 422],
    ['{"name": "a", "extra": 1}', "VALIDATION_ERROR", 422],
  ])("body %s → %s", async (raw, code, status) => {
    const { res, body } = await call(echo.POST, "/api/echo", {
      method: "POST",
      body: raw,
      headers: { "content-type": "application/json" },
    });
    const error = expectEnvelope(body, res, status, code);
    if (code !== "INVALID_FORMAT" || raw.startsWith('{"')) expect(error.field).toBeTruthy();
  });

  it("names the unknown field", async () => {
    const { res, body } = await call(echo.POST, "/api/echo", {
      method: "POST",
      json: { name: "a", nmae: "b" },
    });
    const error = expectEnvelope(body, res, 422, "VALIDATION_ERROR");
    expect(error.field).toBe("nmae");
  });

  it("refuses a body over the limit by Content-Length with 413", async () => {
    const { res, body } = await call(echo.POST, "/api/echo", {
      method: "POST",
      body: JSON.stringify({ name: "x".repeat(100) }),
      headers: { "content-type": "application/json", "content-length": "111" },
    });
    expectEnvelope(body, res, 413, "PAYLOAD_TOO_LARGE");
  });

  it("refuses a streamed body over the limit without Content-Length", async () => {
    const request = new Request("http://localhost/api/echo", {
      method: "POST",
      body: chunkedBody(['{"name":"', "y".repeat(50), "z".repeat(50), '"}']),
      // @ts-expect-error Node fetch option
      duplex: "half",
    });
    expect(request.headers.get("content-length")).toBeNull();
    const res = await echo.POST(request);
    const body = await res.json();
    expectEnvelope(body, res, 413, "PAYLOAD_TOO_LARGE");
  });

  it("answers 405 with Allow for methods the route lacks", async () => {
    const { res, body } = await call(echo.DELETE, "/api/echo", { method: "DELETE" });
    expectEnvelope(body, res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("answers OPTIONS preflight and HEAD", async () => {
    const pre = await item.OPTIONS(new Request("http://localhost/api/items/1/parts", { method: "OPTIONS" }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toContain("x-api-key");
    expect(pre.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const head = await item.HEAD(new Request("http://localhost/api/items/1/parts", { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("extracts path parameters from the operation path", async () => {
    const { body } = await call(item.GET, "/api/items/wh%5Fabc/parts");
    expect(body).toEqual({ params: { item_id: "wh_abc" } });
  });

  it("turns storage failures into 503 STORAGE_ERROR with Retry-After", async () => {
    const { res, body } = await call(boom.GET, "/api/boom");
    expectEnvelope(body, res, 503, "STORAGE_ERROR");
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("hides unexpected errors behind 500 INTERNAL", async () => {
    const { res, body } = await call(crash.GET, "/api/boom");
    const error = expectEnvelope(body, res, 500, "INTERNAL");
    expect(error.message).not.toContain("undefined");
  });
});

describe("validation mapping", () => {
  const enumOp = defineOperation({
    id: "enumOp",
    method: "POST",
    path: "/api/enum",
    summary: "e",
    tags: ["t"],
    auth: "none",
    body: z.strictObject({ action: z.enum(["a", "b"]), note: z.string().min(1).optional() }),
  });
  const enumRoute = route({ POST: endpoint(enumOp, ({ body }) => body) });

  it.each([
    [{}, 400, "MISSING_FIELD", "action"],
    [{ action: "c" }, 422, "VALIDATION_ERROR", "action"],
    [{ action: 1 }, 422, "VALIDATION_ERROR", "action"],
    [{ action: "a", note: "" }, 400, "MISSING_FIELD", "note"],
  ])("%j → %i %s", async (json, status, code, field) => {
    const { res, body } = await call(enumRoute.POST, "/api/enum", { method: "POST", json });
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { endpoint, route } from "../../lib/http/handler.js";
import { defineOperation } from "../../lib/http/operation.js";
import { newRequestId } from "../../lib/http/request-id.js";
import { json } from "../../lib/http/response.js";
import { call } from "../helpers/request.js";

const pingOp = defineOperation({
  id: "ping",
  method: "GET",
  path: "/api/ping",
  summary: "ping",
  tags: ["test"],
  auth: "none",
});
const ping = route({ GET: endpoint(pingOp, () => json({ ok: true }, 200, { "x-request-id": "req_own" })) });

function setOrigins(value: string | undefined): void {
  if (value === undefined) delete process.env.CORS_ALLOWED_ORIGINS;
  else process.env.CORS_ALLOWED_ORIGINS = value;
  resetConfig();
}

afterEach(() => setOrigins(undefined));

describe("CORS headers", () => {
  it("allows any origin with *, without Vary", async () => {
    setOrigins("*");
    const { res } = await call(ping.GET, "/api/ping", { headers: { origin: "https://a.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toContain("x-request-id");
    expect(res.headers.get("vary")).toBeNull();
  });

  it("echoes a listed origin with Vary: Origin, refuses others, and follows a changed list", async () => {
    setOrigins(" https://a.example , https://b.example ");
    const listed = await call(ping.GET, "/api/ping", { headers: { origin: "https://b.example" } });
    expect(listed.res.headers.get("access-control-allow-origin")).toBe("https://b.example");
    expect(listed.res.headers.get("vary")).toBe("Origin");
    const other = await call(ping.GET, "/api/ping", { headers: { origin: "https://c.example" } });
    expect(other.res.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.res.headers.get("access-control-expose-headers")).toBeNull();
    setOrigins("https://c.example");
    const now = await call(ping.GET, "/api/ping", { headers: { origin: "https://c.example" } });
    expect(now.res.headers.get("access-control-allow-origin")).toBe("https://c.example");
    const before = await call(ping.GET, "/api/ping", { headers: { origin: "https://b.example" } });
    expect(before.res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("keeps a header the endpoint set itself", async () => {
    const { res } = await call(ping.GET, "/api/ping");
    expect(res.headers.get("x-request-id")).toBe("req_own");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("request ids", () => {
  it("are req_ + 20 hex characters and do not repeat across many draws of the random pool", () => {
    const ids = Array.from({ length: 2_000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

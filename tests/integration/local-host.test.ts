import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { type LocalHost, startLocalHost } from "../../scripts/local-host.js";

const root = path.resolve(import.meta.dirname, "../fixtures/host");
let host: LocalHost;

beforeAll(async () => {
  process.env.CRON_SECRET = "cron-test-secret";
  resetConfig();
  host = await startLocalHost({ root, port: 0, host: "127.0.0.1", log: () => {} });
});
afterAll(async () => {
  await host.close();
  delete process.env.CRON_SECRET;
  resetConfig();
});

describe("local host", () => {
  it("serves api files at their Vercel paths with the socket IP", async () => {
    const res = await fetch(`${host.url}/api/echo?a=1`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ method: "GET", path: "/api/echo", query: { a: "1" }, ip: "127.0.0.1" });
  });

  it("does not let a client forge the socket IP header", async () => {
    const res = await fetch(`${host.url}/api/echo`, { headers: { "x-local-socket-ip": "203.0.113.9" } });
    expect((await res.json()).ip).toBe("127.0.0.1");
  });

  it("streams request bodies to POST handlers", async () => {
    const res = await fetch(`${host.url}/api/echo`, { method: "POST", body: '{"x":1}' });
    expect((await res.json()).body).toBe('{"x":1}');
  });

  it("fills dynamic segments into the query and prefers static routes", async () => {
    expect(await (await fetch(`${host.url}/api/items/abc-1/parts`)).json()).toEqual({ item_id: "abc-1" });
    expect(await (await fetch(`${host.url}/api/items/special`)).json()).toEqual({ special: true });
  });

  it("applies vercel.json rewrites and headers", async () => {
    const res = await fetch(`${host.url}/docs.json`);
    // The echo function answered; like Vercel, it sees the URL the client asked for.
    expect(await res.json()).toMatchObject({ method: "GET", path: "/docs.json" });
    expect(res.headers.get("x-fixture")).toBe("yes"); // the first matching rule wins
    const legacy = await fetch(`${host.url}/legacy/a/b`);
    expect(legacy.status).toBe(200);
  });

  it("serves public/ with content types", async () => {
    const index = await fetch(`${host.url}/`);
    expect(index.headers.get("content-type")).toContain("text/html");
    expect(await index.text()).toContain("fixture");
    const css = await fetch(`${host.url}/site.css`);
    expect(css.headers.get("content-type")).toContain("text/css");
    const traversal = await fetch(`${host.url}/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
  });

  it("answers unknown paths with the 404 envelope", async () => {
    const res = await fetch(`${host.url}/api/missing`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("NOT_FOUND");
    expect(res.headers.get("x-request-id")).toBe(body.request_id);
  });

  it("streams response bodies chunk by chunk", async () => {
    const res = await fetch(`${host.url}/api/stream`);
    expect(await res.text()).toBe("data: 1\n\ndata: 2\n\ndata: 3\n\n");
  });

  it("writes bodies built from a string as they are, with their length in bytes", async () => {
    const res = await fetch(`${host.url}/api/built`);
    expect(res.status).toBe(201);
    expect(res.headers.get("x-built")).toBe("yes");
    // vercel.json headers: a header the handler set wins over a rule; other rules still apply.
    expect(res.headers.get("x-fixture")).toBe("own");
    expect(res.headers.get("x-rule")).toBe("built");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(JSON.parse(bytes.toString("utf8"))).toEqual({ word: "café", emoji: "🚲" });
  });

  it("aborts request.signal when the client leaves before the answer", async () => {
    const state = globalThis as unknown as { __waitAborted?: boolean };
    const client = new AbortController();
    const pending = fetch(`${host.url}/api/wait`, { signal: client.signal }).catch(() => "aborted");
    // A guard only (each loop ends as soon as its condition holds), generous for a loaded machine.
    const deadline = Date.now() + 20_000;
    while (state.__waitAborted === undefined && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(state.__waitAborted).toBe(false);
    client.abort();
    expect(await pending).toBe("aborted");
    while (!state.__waitAborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(state.__waitAborted).toBe(true);
  });

  it("runs vercel.json crons on their schedule with the cron secret", async () => {
    const state = globalThis as unknown as { __ticks?: { count: number; auth: string | null } };
    // Every second: two runs are due within ~2 s of the host's start; the 20 s only guard a hang.
    const deadline = Date.now() + 20_000;
    while ((state.__ticks?.count ?? 0) < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(state.__ticks?.count).toBeGreaterThanOrEqual(2);
    expect(state.__ticks?.auth).toBe("Bearer cron-test-secret");
  });
});

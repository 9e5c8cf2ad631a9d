/**
 * MCP rate limits over real HTTP: a call authenticated by the `api_key` argument counts on that
 * key's budget (not on the IP's budget of requests without a key), and a tool's rate-limit
 * failure carries `retry_after_seconds`. Small limits (anonymous 4/min, per key 5/min).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { envOverrides } from "../helpers/env.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";

useTestDatabase();

// Each test spends a few-per-minute budget. The limiters count on a fixed clock, 10 s into a
// minute, so a budget is spent inside one window whatever the time the test runs at (at a minute's
// edge the previous window's count would weigh in), and Retry-After is exact: 50 s.
const LIMITER_NOW = Date.UTC(2026, 0, 5, 0, 0, 10);

const { set: setEnv, restore: restoreEnv } = envOverrides(() => {
  resetConfig();
  resetLimiters(() => LIMITER_NOW);
});

let host: LocalHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => {
  await host.close();
  restoreEnv();
  resetLimiters();
});

let id = 0;
const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${host.url}/api/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, ...body }),
  });

describe("MCP rate limits", () => {
  it("counts api_key-argument calls on the key's limit, leaving the IP's anonymous budget alone", async () => {
    const key = await makeKey(["audit_only", "task_create"]);
    setEnv({ RATE_LIMIT_ANON_PER_MIN: "4", RATE_LIMIT_KEY_PER_MIN: "5" });
    const call = () =>
      post({ method: "tools/call", params: { name: "list_my_tasks", arguments: { api_key: key } } });
    for (let i = 0; i < 5; i++) {
      const res = await call();
      expect(res.status).toBe(200);
      const body: any = await res.json();
      expect(body.result.isError, JSON.stringify(body)).toBeFalsy();
    }
    // The sixth call is over the key's 5/min: a tool error with retry_after_seconds.
    const limited = await call();
    expect(limited.status).toBe(200);
    const body: any = await limited.json();
    expect(body.result.isError).toBe(true);
    expect(body.result._meta.error).toMatchObject({
      code: "RATE_LIMITED",
      policy: "key",
      limit: 5,
    });
    expect(body.result._meta.error.retry_after_seconds).toBe(50);
    // The same key in the header is refused by the wrapper: one budget per key.
    const header = await post({ method: "tools/list" }, { "x-api-key": key });
    expect(header.status).toBe(429);

    // None of those six spent the IP's anonymous budget: 4 requests without a key pass, the fifth is 429.
    for (let i = 0; i < 4; i++) expect((await post({ method: "tools/list" })).status).toBe(200);
    const anon = await post({ method: "tools/list" });
    expect(anon.status).toBe(429);
    expect(anon.headers.get("retry-after")).toBe("50");
  });

  it("counts a bad api_key argument against the IP, like any failed authentication", async () => {
    setEnv({ RATE_LIMIT_ANON_PER_MIN: "2", RATE_LIMIT_KEY_PER_MIN: "5" });
    const call = () =>
      post({
        method: "tools/call",
        params: { name: "list_my_tasks", arguments: { api_key: "svc_not_a_key" } },
      });
    for (let i = 0; i < 2; i++) {
      const body: any = await (await call()).json();
      expect(body.result._meta.error.code).toBe("UNAUTHORIZED");
    }
    const body: any = await (await call()).json();
    expect(body.result._meta.error).toMatchObject({ code: "RATE_LIMITED" });
    expect(body.result._meta.error.retry_after_seconds).toBe(50);
  });

  describe("JSON-RPC batches (issue 25 item 4)", () => {
    const batch = (messages: Record<string, unknown>[], headers: Record<string, string> = {}) =>
      fetch(`${host.url}/api/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-03-26",
          ...headers,
        },
        body: JSON.stringify(messages.map((m) => ({ jsonrpc: "2.0", id: ++id, ...m }))),
      });
    const estimate = { method: "tools/call", params: { name: "get_estimate", arguments: { hours: 1 } } };

    it("counts every message of a batch against the IP's anonymous limit", async () => {
      setEnv({ RATE_LIMIT_ANON_PER_MIN: "6", RATE_LIMIT_KEY_PER_MIN: "50", MCP_MAX_BATCH_MESSAGES: "10" });
      const first = await batch(Array.from({ length: 4 }, () => estimate));
      expect(first.status).toBe(200);
      const answers: any[] = (await first.json()) as any[];
      expect(answers).toHaveLength(4);
      for (const a of answers) expect(a.result.isError).toBeFalsy();
      expect(first.headers.get("ratelimit-remaining") ?? first.headers.get("x-ratelimit-remaining")).toBe(
        "2",
      );
      // 4 of 6 spent: a batch of 3 does not fit and is refused whole; 2 single requests still pass.
      expect((await batch(Array.from({ length: 3 }, () => estimate))).status).toBe(429);
      expect((await post({ method: "tools/list" })).status).toBe(200);
      expect((await post({ method: "tools/list" })).status).toBe(200);
      expect((await post({ method: "tools/list" })).status).toBe(429);
    });

    it("counts every message on the header key's limit", async () => {
      const key = await makeKey(["audit_only", "task_create"]);
      setEnv({ RATE_LIMIT_ANON_PER_MIN: "50", RATE_LIMIT_KEY_PER_MIN: "5", MCP_MAX_BATCH_MESSAGES: "10" });
      expect(
        (
          await batch(
            Array.from({ length: 5 }, () => estimate),
            { "x-api-key": key },
          )
        ).status,
      ).toBe(200);
      expect((await post({ method: "tools/list" }, { "x-api-key": key })).status).toBe(429);
    });

    it("refuses a batch over MCP_MAX_BATCH_MESSAGES with an error per request, serving none", async () => {
      setEnv({ RATE_LIMIT_ANON_PER_MIN: "100", RATE_LIMIT_KEY_PER_MIN: "50", MCP_MAX_BATCH_MESSAGES: "3" });
      const submit = {
        method: "tools/call",
        params: {
          name: "submit_task",
          arguments: {
            service_type: "SVC-01",
            location_address: "Montreal",
            task_description: "Photograph the storefront.",
            requester_contact: "batch@example.com",
          },
        },
      };
      const res = await batch([submit, submit, submit, submit]);
      expect(res.status).toBe(400);
      const errors: any[] = (await res.json()) as any[];
      expect(errors).toHaveLength(4);
      for (const e of errors) {
        expect(e.error.code).toBe(-32600);
        expect(e.error.message).toMatch(/at most 3 messages/);
        expect(typeof e.id).toBe("number");
      }
      const { getDb } = await import("../../lib/db/client.js");
      const { tasks } = await import("../../lib/db/schema/index.js");
      const { eq } = await import("drizzle-orm");
      const db = await getDb();
      expect(
        await db.select().from(tasks).where(eq(tasks.requesterContact, "batch@example.com")),
      ).toHaveLength(0);
    });
  });
});

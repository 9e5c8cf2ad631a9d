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
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";

useTestDatabase();

const saved: Record<string, string | undefined> = {};
function setEnv(values: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(values)) {
    if (!(k in saved)) saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfig();
  resetLimiters();
}

let host: LocalHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => {
  await host.close();
  setEnv(saved);
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
    expect(body.result.structuredContent.error).toMatchObject({
      code: "RATE_LIMITED",
      policy: "key",
      limit: 5,
    });
    expect(body.result.structuredContent.error.retry_after_seconds).toBeGreaterThan(0);
    // The same key in the header is refused by the wrapper: one budget per key.
    const header = await post({ method: "tools/list" }, { "x-api-key": key });
    expect(header.status).toBe(429);

    // None of those six spent the IP's anonymous budget: 4 requests without a key pass, the fifth is 429.
    for (let i = 0; i < 4; i++) expect((await post({ method: "tools/list" })).status).toBe(200);
    const anon = await post({ method: "tools/list" });
    expect(anon.status).toBe(429);
    expect(anon.headers.get("retry-after")).toMatch(/^\d+$/);
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
      expect(body.result.structuredContent.error.code).toBe("UNAUTHORIZED");
    }
    const body: any = await (await call()).json();
    expect(body.result.structuredContent.error).toMatchObject({ code: "RATE_LIMITED" });
    expect(body.result.structuredContent.error.retry_after_seconds).toBeGreaterThan(0);
  });
});

/** The authorization server's own rate limits: requests per IP per minute, client registrations per IP per hour. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";

useTestDatabase();

let host: LocalHost;
const saved = { ...process.env };

beforeAll(async () => {
  process.env.OAUTH_REQUESTS_PER_IP_PER_MIN = "5";
  process.env.OAUTH_REGISTRATIONS_PER_IP_PER_HOUR = "2";
  resetConfig();
  host = await startTestHost();
  process.env.PUBLIC_BASE_URL = host.url;
  resetConfig();
  // The limiters count on a fixed clock 10 s into a minute and an hour: the budgets below are spent
  // inside one window whatever the time the test runs at, and Retry-After is exact.
  resetLimiters(() => Date.UTC(2026, 0, 5, 0, 0, 10));
});
afterAll(async () => {
  await host?.close();
  for (const name of [
    "OAUTH_REQUESTS_PER_IP_PER_MIN",
    "OAUTH_REGISTRATIONS_PER_IP_PER_HOUR",
    "PUBLIC_BASE_URL",
  ]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetConfig();
  resetLimiters();
});

const register = () =>
  fetch(`${host.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Limited",
      redirect_uris: ["http://127.0.0.1:9/cb"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    }),
  });

describe("authorization server rate limits", () => {
  it("counts registrations per IP per hour and every /oauth request per IP per minute, apart from the general budget", async () => {
    expect((await register()).status).toBe(201);
    expect((await register()).status).toBe(201);
    const third = await register();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("3590"); // to the end of that hour
    expect(((await third.json()) as any).error.message).toContain("client registrations per IP per hour");
    const metadata = () => fetch(`${host.url}/.well-known/oauth-authorization-server`);
    expect((await metadata()).status).toBe(200);
    const fifth = await metadata();
    expect(fifth.status).toBe(200);
    expect(fifth.headers.get("ratelimit-limit")).toBe("5");
    const sixth = await metadata();
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toBe("50"); // to the end of that minute
    // The general API is not spent by the authorization server's requests.
    expect((await fetch(`${host.url}/api/services`)).status).toBe(200);
  });
});

/**
 * The authorization server's own rate limits: requests per IP per minute, per client and IP for a
 * request naming a client (under a ceiling for all the clients of one IP), client registrations per
 * IP per hour.
 */
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
  process.env.OAUTH_CLIENT_REQUESTS_PER_IP_PER_MIN = "12";
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
    "OAUTH_CLIENT_REQUESTS_PER_IP_PER_MIN",
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

  it("counts requests naming a client per client and IP: clients sharing an address are not throttled as one", async () => {
    // A fresh count on the same fixed clock (10 s into the minute).
    resetLimiters(() => Date.UTC(2026, 0, 5, 0, 0, 10));
    const refresh = (clientId: string) =>
      fetch(`${host.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: "spent",
          client_id: clientId,
        }),
      });
    // Client A spends its 5 requests a minute at this IP; the 6th is refused.
    for (let i = 0; i < 5; i++) expect((await refresh("client-a")).status).not.toBe(429);
    const sixth = await refresh("client-a");
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toBe("50");
    expect(((await sixth.json()) as any).error.message).toContain(
      "5 authorization server requests per client per IP per minute",
    );
    // Client B, from the same address, has its own 5 (a per-IP count would refuse it at once).
    for (let i = 0; i < 5; i++) expect((await refresh("client-b")).status).not.toBe(429);
    // Requests naming no client keep the IP's own budget.
    expect((await fetch(`${host.url}/oauth/jwks`)).status).toBe(200);
    // All the clients of one IP together stop at the ceiling (12): 11 counted so far (A's refused
    // 6th counts there), a client id made up for each request gains nothing past it.
    const authorize = (clientId: string) =>
      fetch(`${host.url}/oauth/authorize?client_id=${clientId}&response_type=code`, { redirect: "manual" });
    expect((await authorize("client-c")).status).not.toBe(429);
    const past = await authorize("client-d");
    expect(past.status).toBe(429);
    expect(((await past.json()) as any).error.message).toContain(
      "12 authorization server requests naming a client per IP per minute, all clients together",
    );
  });
});

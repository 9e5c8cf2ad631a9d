/**
 * `npm start` without PUBLIC_BASE_URL: the service is reached at the loopback address its banner
 * prints (127.0.0.1), and the issuer, the protected resource and the metadata URLs name that
 * address, so the MCP SDK's `auth()` connects there unchanged (it refuses protected resource
 * metadata naming another URL than the one it connects to, RFC 9728 §3.3). The same server
 * reached as `localhost` names `localhost`; a token is bound to the /mcp it was issued for (RFC 8707)
 * and refused at the other. A Host that is not loopback, or the production profile, never chooses
 * the issuer.
 */
import http from "node:http";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Config, getConfig, publicBaseUrl, resetConfig } from "../../lib/config.js";
import { oauthIssuer } from "../../lib/oauth/scopes.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { consentOverHttp, metadataDocument, startLoopback, TestOAuthProvider } from "./helpers.js";

useTestDatabase();

let host: LocalHost;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
let ownerJwt: string;
let port: number;
const saved = process.env.PUBLIC_BASE_URL;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  delete process.env.PUBLIC_BASE_URL;
  resetConfig();
  host = await startTestHost();
  port = Number(new URL(host.url).port);
  loopback = await startLoopback({
    "/client.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(metadataDocument(base, "/client.json")));
    },
  });
  const opened = await openLinkedAccount(
    await makeKey(["audit_only", "task_create"], "loopback-owner@example.com"),
  );
  ownerJwt = opened.jwt;
});
afterAll(async () => {
  await loopback?.close();
  await host?.close();
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  if (saved === undefined) delete process.env.PUBLIC_BASE_URL;
  else process.env.PUBLIC_BASE_URL = saved;
  resetConfig();
});

/**
 * A request to the test host on 127.0.0.1 with the Host header `hostHeader` (fetch cannot set Host,
 * and `localhost` may resolve to ::1, where the host does not listen).
 */
function viaHost(
  hostHeader: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: init.method ?? "GET",
        headers: { host: hostHeader, ...init.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

describe("issuer and resource at the loopback address in use (PUBLIC_BASE_URL unset)", () => {
  it("the SDK's auth() connects at the banner's address: discovery, consent, tokens, a tool call", async () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const serverUrl = new URL(`${host.url}/mcp`);
    const provider = new TestOAuthProvider(
      `http://${loopback.base}/callback`,
      `https://${loopback.base}/client.json`,
    );
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT");
    const authorizationUrl = provider.authorizationUrl!;
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${host.url}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${host.url}/mcp`);
    const outcome = await consentOverHttp(host.url, authorizationUrl, ownerJwt, "approve");
    expect(outcome.details.resource).toBe(`${host.url}/mcp`);
    expect(outcome.callback.searchParams.get("iss")).toBe(host.url);
    expect(await auth(provider, { serverUrl, authorizationCode: outcome.code! })).toBe("AUTHORIZED");
    const client = new Client({ name: "loopback-assistant", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const mine = await client.callTool({ name: "list_my_tasks", arguments: {} });
    expect(mine.isError).toBeFalsy();
    await client.close();

    // The same server reached as localhost names localhost, and refuses the 127.0.0.1 token there.
    const hostHeader = `localhost:${port}`;
    const prm = JSON.parse((await viaHost(hostHeader, "/.well-known/oauth-protected-resource/mcp")).body);
    expect(prm).toMatchObject({
      resource: `http://${hostHeader}/mcp`,
      authorization_servers: [`http://${hostHeader}`],
    });
    const as = JSON.parse((await viaHost(hostHeader, "/.well-known/oauth-authorization-server")).body);
    expect(as.issuer).toBe(`http://${hostHeader}`);
    expect(as.authorization_endpoint).toBe(`http://${hostHeader}/oauth/authorize`);
    const call = (hostValue: string) =>
      viaHost(hostValue, "/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.tokens()!.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    expect((await call(`127.0.0.1:${port}`)).status).toBe(200);
    const elsewhere = await call(hostHeader);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect(elsewhere.headers["www-authenticate"]).toContain("another resource");
    expect(elsewhere.headers["www-authenticate"]).toContain(
      `resource_metadata="http://${hostHeader}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("a Host that is not loopback does not choose the issuer: the configured origin is named", async () => {
    const configured = new URL(publicBaseUrl(getConfig())).origin;
    const prm = JSON.parse((await viaHost("evil.example", "/.well-known/oauth-protected-resource")).body);
    expect(prm.resource).toBe(`${configured}/mcp`);
    expect(prm.authorization_servers).toEqual([configured]);
  });

  it("the production profile, or a PUBLIC_BASE_URL, always names the configured origin", () => {
    const request = new Request(`http://127.0.0.1:${port}/mcp`);
    const base = getConfig();
    expect(oauthIssuer(base, request)).toBe(`http://127.0.0.1:${port}`);
    const production = { ...base, NODE_ENV: "production" } as Config;
    expect(oauthIssuer(production, request)).toBe(new URL(publicBaseUrl(base)).origin);
    const configured = { ...base, PUBLIC_BASE_URL: "https://tasks.example" } as Config;
    expect(oauthIssuer(configured, request)).toBe("https://tasks.example");
  });
});

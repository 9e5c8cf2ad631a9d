/**
 * A hosted assistant connects with no setup (issue 29): the official MCP SDK client's OAuth support
 * (`auth()` with an OAuthClientProvider) against the local host — discovery from the 401, a client
 * ID metadata document served on loopback, PKCE, the owner's consent (driven over HTTP as the
 * consent page drives it), tokens, a real submit_task billed to the consenting account, refresh,
 * revocation → 401. The same grant serves a client of revision 2026-07-28 (the v2 SDK pinned to it).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys, tasks } from "../../lib/db/schema/index.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { validTask } from "../helpers/tasks.js";
import { consentOverHttp, metadataDocument, startLoopback, TestOAuthProvider } from "./helpers.js";

useTestDatabase();

let host: LocalHost;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
let admin: string;
let ownerJwt: string;
let accountId: string;
const OWNER = "oauth-owner@example.com";

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  host = await startTestHost();
  process.env.PUBLIC_BASE_URL = host.url;
  resetConfig();
  loopback = await startLoopback({
    "/client.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(metadataDocument(base, "/client.json")));
    },
  });
  admin = await makeKey(["admin"]);
  const agentKey = await makeKey(["audit_only", "task_create"], OWNER);
  const opened = await openLinkedAccount(agentKey, { contact_name: "OAuth Owner" });
  ownerJwt = opened.jwt;
  accountId = opened.body.account.account_id;
  const deposit = await accountAdmin(admin, { action: "deposit", email: OWNER, amount_cad: 1000 });
  expect(deposit.res.status).toBe(200);
});
afterAll(async () => {
  await loopback?.close();
  await host?.close();
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  delete process.env.PUBLIC_BASE_URL;
  resetConfig();
});

describe("MCP authorization (OAuth 2.1) with the SDK client", () => {
  it("answers /mcp without a token with 401 and the resource metadata; publishes RFC 9728 and RFC 8414 metadata", async () => {
    const res = await fetch(`${host.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(
      `resource_metadata="${host.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const prm = await (await fetch(`${host.url}${path}`)).json();
      expect(prm).toMatchObject({
        resource: `${host.url}/mcp`,
        authorization_servers: [host.url],
        scopes_supported: ["task_create", "task_cancel", "billing_read", "audit_only"],
      });
    }
    const as = await (await fetch(`${host.url}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: host.url,
      authorization_endpoint: `${host.url}/oauth/authorize`,
      token_endpoint: `${host.url}/oauth/token`,
      registration_endpoint: `${host.url}/oauth/register`,
      revocation_endpoint: `${host.url}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["task_create", "billing_read"]));
    // The keyed endpoint is unchanged: public tools without a key.
    const keyless = new Client({ name: "keyless", version: "1.0.0" });
    await keyless.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`)));
    const { tools } = await keyless.listTools();
    expect(tools.length).toBeGreaterThan(5);
    // Revision 2025-11-25: icons on the implementation and on each tool, and a description.
    const icon = { src: `${host.url}/mark.svg`, mimeType: "image/svg+xml", sizes: ["any"] };
    expect(tools.every((t) => JSON.stringify(t.icons) === JSON.stringify([icon]))).toBe(true);
    expect(keyless.getServerVersion()).toMatchObject({
      icons: [icon],
      description: expect.stringContaining("Quebec"),
    });
    await keyless.close();
    // Invalid arguments are a tool error (isError with the API's envelope in _meta), not a protocol
    // error, and readable by a client that listed the tools first (which validates any
    // structuredContent against the output schema, errors included; an error result has none).
    const fresh = new Client({ name: "keyless", version: "1.0.0" });
    await fresh.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`)));
    await fresh.listTools();
    const bad = await fresh.callTool({ name: "get_estimate", arguments: { hours: "many" } });
    expect(bad.isError).toBe(true);
    expect((bad._meta as any).error.code).toMatch(/VALIDATION_ERROR|INVALID_FORMAT/);
    await fresh.close();
  });

  it("runs the whole flow: discovery from the 401, metadata document, PKCE, consent, tokens, a billed task, refresh, revoke", async () => {
    const clientId = `https://${loopback.base}/client.json`;
    const provider = new TestOAuthProvider(`http://${loopback.base}/callback`, clientId);
    const serverUrl = new URL(`${host.url}/mcp`);

    // 1. The SDK connects, gets 401, discovers, and asks to redirect the user to the authorization URL.
    const first = new Client({ name: "hosted-assistant", version: "1.0.0" });
    await expect(
      first.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider })),
    ).rejects.toThrow(/Unauthorized/i);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${host.url}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${host.url}/mcp`);

    // 2. The owner signs in and approves on the consent step.
    const outcome = await consentOverHttp(host.url, authorizationUrl, ownerJwt, "approve");
    expect(outcome.details).toMatchObject({
      client: { client_id: clientId, client_name: "Test Assistant" },
      resource: `${host.url}/mcp`,
    });
    expect(outcome.callback.origin).toBe(`http://${loopback.base}`);
    expect(outcome.code).toBeTruthy();

    // 3. The SDK exchanges the code (with its PKCE verifier) for tokens.
    expect(await auth(provider, { serverUrl, authorizationCode: outcome.code! })).toBe("AUTHORIZED");
    const tokens = provider.tokens()!;
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();

    // 4. A real task, billed to the consenting account.
    const client = new Client({ name: "hosted-assistant", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const submitted = await client.callTool({
      name: "submit_task",
      arguments: { ...validTask, requester_contact: OWNER },
    });
    expect(submitted.isError).toBeFalsy();
    const task = submitted.structuredContent as Record<string, any>;
    expect(task.sandbox ?? false).toBe(false);
    const mine = await client.callTool({ name: "list_my_tasks", arguments: {} });
    expect((mine.structuredContent as any).tasks.map((t: any) => t.task_id)).toContain(task.task_id);
    const [row] = await (await getDb())
      .select({ accountId: apiKeys.accountId, keyName: apiKeys.name })
      .from(tasks)
      .innerJoin(apiKeys, eq(apiKeys.id, tasks.apiKeyId))
      .where(eq(tasks.id, task.task_id));
    expect(row).toEqual({ accountId, keyName: "Test Assistant (OAuth)" });
    await client.close();

    // The same grant serves a client of revision 2026-07-28 (the v2 SDK pinned to it).
    const modern = new ClientV2(
      { name: "hosted-assistant-2026", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(
      new TransportV2(serverUrl, {
        requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const mineModern = await modern.callTool({ name: "list_my_tasks", arguments: {} });
    expect((mineModern.structuredContent as any).tasks.map((t: any) => t.task_id)).toContain(task.task_id);
    await modern.close();

    // The grant is a key of the account, named after the client, listed in the dashboard.
    const keys = await fetch(`${host.url}/api/account-keys`, {
      headers: { authorization: `Bearer ${ownerJwt}` },
    });
    const listed = (await keys.json()) as { account_id: string; keys: { key_id: string; name: string }[] };
    expect(listed.account_id).toBe(accountId);
    expect(listed.keys.map((k) => k.name)).toContain("Test Assistant (OAuth)");

    // 5. Refresh: a new pair, the old refresh token is spent (rotation).
    const oldRefresh = tokens.refresh_token!;
    const refreshed = await fetch(`${host.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: oldRefresh,
        client_id: clientId,
      }),
    });
    const pair = (await refreshed.json()) as Record<string, string>;
    expect(refreshed.status, JSON.stringify(pair)).toBe(200);
    expect(pair.refresh_token).not.toBe(oldRefresh);
    // 6. Revocation (RFC 7009) of the refresh token ends the grant: the access token is refused.
    const fresh = pair.access_token!;
    const list = () =>
      fetch(`${host.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${fresh}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const before = await list();
    expect(before.status, before.headers.get("www-authenticate") ?? "").toBe(200);
    const revoked = await fetch(`${host.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: pair.refresh_token!, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const after = await list();
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // The spent refresh token of before the rotation gets nothing either.
    const replay = await fetch(`${host.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: oldRefresh,
        client_id: clientId,
      }),
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
  });
});

/**
 * The authorization server refuses bad input with each RFC's error code and grants nothing: a wrong
 * PKCE verifier, a reused or expired code, a redirect URI that does not match, unknown or unfetchable
 * client metadata (private address, oversize, slow), a token for another resource, a revoked refresh
 * token, a denied consent; and a token lacking a tool's scope gets 403 insufficient_scope. The scope
 * table of /mcp: for every scope, which tools and protocol methods (tasks/*, resources/read) a token
 * holding only it may call.
 */
import { and, eq, isNull, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys, oauthArtifacts, oauthGrantKeys } from "../../lib/db/schema/index.js";
import { sha256Hex } from "../../lib/ids.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import {
  authorizeUrl,
  CookieJar,
  consentOverHttp,
  metadataDocument,
  pkcePair,
  postForm,
  startLoopback,
} from "./helpers.js";

useTestDatabase();

let host: LocalHost;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
let ownerJwt: string;
let clientId: string;
let redirectUri: string;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  // The default (2.5 s): far above what the loopback documents below take, even on a busy machine
  // (400 ms could time out /client.json there), and far below /slow.json, which never answers in time.
  process.env.OAUTH_CLIENT_METADATA_TIMEOUT_MS = "2500";
  resetConfig();
  host = await startTestHost();
  process.env.PUBLIC_BASE_URL = host.url;
  resetConfig();
  loopback = await startLoopback({
    "/client.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(metadataDocument(base, "/client.json")));
    },
    "/stepup.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(metadataDocument(base, "/stepup.json", { client_name: "Step-up Assistant" })));
    },
    "/table.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify(metadataDocument(base, "/table.json", { client_name: "Scope Table Assistant" })),
      );
    },
    "/secret.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify(
          metadataDocument(base, "/secret.json", { token_endpoint_auth_method: "client_secret_post" }),
        ),
      );
    },
    "/big.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(metadataDocument(base, "/big.json", { padding: "x".repeat(20_000) })));
    },
    "/slow.json": (_req, res, base) => {
      setTimeout(() => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(metadataDocument(base, "/slow.json")));
      }, 60_000).unref();
    },
  });
  clientId = `https://${loopback.base}/client.json`;
  redirectUri = `http://${loopback.base}/callback`;
  const opened = await openLinkedAccount(
    await makeKey(["audit_only", "task_create"], "sec-owner@example.com"),
  );
  ownerJwt = opened.jwt;
});
afterAll(async () => {
  await loopback?.close();
  await host?.close();
  for (const name of ["ALLOW_PRIVATE_CALLBACKS", "PUBLIC_BASE_URL", "OAUTH_CLIENT_METADATA_TIMEOUT_MS"]) {
    delete process.env[name];
  }
  resetConfig();
});

/** A code approved by the owner for `scope` (for `client`), with its PKCE verifier. */
async function approvedCode(scope = "task_create audit_only", client = clientId) {
  const { verifier, challenge } = pkcePair();
  const outcome = await consentOverHttp(
    host.url,
    authorizeUrl(host.url, client, redirectUri, challenge, { scope }),
    ownerJwt,
    "approve",
  );
  expect(outcome.code).toBeTruthy();
  return { code: outcome.code!, verifier };
}

const token = (form: Record<string, string>) =>
  postForm(`${host.url}/oauth/token`, { client_id: clientId, redirect_uri: redirectUri, ...form });

/** The tokens of a code approved for `scope` (for `client`). */
async function approvedTokens(scope: string, client = clientId) {
  const { code, verifier } = await approvedCode(scope, client);
  const pair = await token({
    client_id: client,
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
  });
  expect(pair.status, JSON.stringify(pair.body)).toBe(200);
  return pair.body as { access_token: string; refresh_token: string; scope: string };
}

/** The authorization endpoint's answer to `url` (no redirect followed): its status and error. */
async function authorizeError(url: string): Promise<{ status: number; error: string | null }> {
  const res = await new CookieJar().fetch(url);
  if (res.status === 303 || res.status === 302) {
    const location = new URL(res.headers.get("location")!, host.url);
    return { status: res.status, error: location.searchParams.get("error") };
  }
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error ?? null };
}

const mcpCall = (accessToken: string, message: Record<string, unknown>) =>
  fetch(`${host.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  });

async function keysNamedAfterClient(): Promise<number> {
  const rows = await (await getDb())
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(like(apiKeys.name, "% (OAuth)"), isNull(apiKeys.revokedAt)));
  return rows.length;
}

describe("OAuth security table", () => {
  it("wrong or missing PKCE verifier → invalid_grant, no token", async () => {
    const { code, verifier } = await approvedCode();
    const wrong = await token({ grant_type: "authorization_code", code, code_verifier: pkcePair().verifier });
    expect(wrong).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const missing = await token({ grant_type: "authorization_code", code });
    expect(missing.body.error).toMatch(/invalid_(grant|request)/);
    expect(wrong.body.access_token).toBeUndefined();
    expect(missing.body.access_token).toBeUndefined();
    void verifier;
  });

  it("reused code → invalid_grant, and the tokens of its first use are revoked", async () => {
    const { code, verifier } = await approvedCode();
    const first = await token({ grant_type: "authorization_code", code, code_verifier: verifier });
    expect(first.status).toBe(200);
    expect((await mcpCall(first.body.access_token, { method: "tools/list" })).status).toBe(200);
    const again = await token({ grant_type: "authorization_code", code, code_verifier: verifier });
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await mcpCall(first.body.access_token, { method: "tools/list" })).status).toBe(401);
  });

  it("expired code → invalid_grant", async () => {
    const { code, verifier } = await approvedCode();
    await (await getDb())
      .update(oauthArtifacts)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(oauthArtifacts.kind, "AuthorizationCode"), eq(oauthArtifacts.id, sha256Hex(code))));
    const late = await token({ grant_type: "authorization_code", code, code_verifier: verifier });
    expect(late).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    // The expiry job deletes it.
    const { expirePayments } = await import("../../lib/jobs/expire-payments.js");
    const run = await expirePayments();
    expect(run.details?.oauth_artifacts_purged).toBeGreaterThanOrEqual(1);
    const left = await (await getDb())
      .select()
      .from(oauthArtifacts)
      .where(and(eq(oauthArtifacts.kind, "AuthorizationCode"), eq(oauthArtifacts.id, sha256Hex(code))));
    expect(left).toEqual([]);
  });

  it("redirect URI mismatch → refused at the authorization endpoint and at the token endpoint", async () => {
    const { challenge } = pkcePair();
    const other = await authorizeError(
      authorizeUrl(host.url, clientId, `http://${loopback.base}/elsewhere`, challenge),
    );
    expect(other).toMatchObject({ status: 400, error: "invalid_redirect_uri" });
    const { code, verifier } = await approvedCode();
    const swapped = await postForm(`${host.url}/oauth/token`, {
      client_id: clientId,
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: `http://${loopback.base}/elsewhere`,
    });
    expect(swapped).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("plain PKCE, or no PKCE at all → invalid_request", async () => {
    const plain = await authorizeError(
      authorizeUrl(host.url, clientId, redirectUri, "a".repeat(43), { code_challenge_method: "plain" }),
    );
    expect(plain.error).toBe("invalid_request");
    const url = new URL(authorizeUrl(host.url, clientId, redirectUri, "x"));
    url.searchParams.delete("code_challenge");
    url.searchParams.delete("code_challenge_method");
    expect((await authorizeError(url.href)).error).toBe("invalid_request");
  });

  it("unknown or unfetchable client metadata → invalid_client (missing document, oversize, slow, private address)", async () => {
    const { challenge } = pkcePair();
    for (const path of ["/missing.json", "/big.json", "/slow.json"]) {
      const id = `https://${loopback.base}${path}`;
      const refused = await authorizeError(
        authorizeUrl(host.url, id, `http://${loopback.base}/callback`, challenge),
      );
      expect(refused, path).toMatchObject({ status: 400, error: "invalid_client" });
    }
    // Without the development setting, a loopback (private) address is refused before any connection.
    process.env.ALLOW_PRIVATE_CALLBACKS = "false";
    resetConfig();
    try {
      const refused = await authorizeError(authorizeUrl(host.url, clientId, redirectUri, challenge));
      expect(refused).toMatchObject({ status: 400, error: "invalid_client" });
    } finally {
      process.env.ALLOW_PRIVATE_CALLBACKS = "true";
      resetConfig();
    }
  });

  it("a token for another resource → invalid_target; an access token whose audience is not /mcp → 401", async () => {
    const { challenge } = pkcePair();
    const other = await authorizeError(
      authorizeUrl(host.url, clientId, redirectUri, challenge, { resource: "https://other.example/mcp" }),
    );
    expect(other.error).toBe("invalid_target");
    const { code, verifier } = await approvedCode();
    const pair = await token({ grant_type: "authorization_code", code, code_verifier: verifier });
    expect(pair.status).toBe(200);
    const foreign = await token({
      grant_type: "refresh_token",
      refresh_token: pair.body.refresh_token,
      resource: "https://other.example/mcp",
    });
    expect(foreign.body.error).toBe("invalid_target");
    // A token row bound to another audience (as another resource's token would be) is refused here.
    const db = await getDb();
    const [row] = await db
      .select()
      .from(oauthArtifacts)
      .where(
        and(eq(oauthArtifacts.kind, "AccessToken"), eq(oauthArtifacts.id, sha256Hex(pair.body.access_token))),
      );
    await db
      .update(oauthArtifacts)
      .set({ payload: { ...row!.payload, aud: "https://other.example/mcp" } })
      .where(
        and(eq(oauthArtifacts.kind, "AccessToken"), eq(oauthArtifacts.id, sha256Hex(pair.body.access_token))),
      );
    const refused = await mcpCall(pair.body.access_token, { method: "tools/list" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("another resource");
  });

  it("a revoked refresh token → invalid_grant; revoking the key in the dashboard ends the grant too", async () => {
    const first = await approvedCode();
    const pair = await token({
      grant_type: "authorization_code",
      code: first.code,
      code_verifier: first.verifier,
    });
    const revoke = await postForm(`${host.url}/oauth/revoke`, {
      token: pair.body.refresh_token,
      client_id: clientId,
    });
    expect(revoke.status).toBe(200);
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: pair.body.refresh_token });
    expect(refreshed).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

    const second = await approvedCode();
    const live = await token({
      grant_type: "authorization_code",
      code: second.code,
      code_verifier: second.verifier,
    });
    expect((await mcpCall(live.body.access_token, { method: "tools/list" })).status).toBe(200);
    const keys = await fetch(`${host.url}/api/account-keys`, {
      headers: { authorization: `Bearer ${ownerJwt}` },
    });
    const listed = (await keys.json()) as { keys: { key_id: string; name: string }[] };
    const newest = listed.keys.find((k) => k.name === "Test Assistant (OAuth)")!;
    const revokedKey = await fetch(`${host.url}/api/account-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ownerJwt}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "revoke", key_id: newest.key_id }),
    });
    expect(revokedKey.status).toBe(200);
    expect((await mcpCall(live.body.access_token, { method: "tools/list" })).status).toBe(401);
    const after = await token({ grant_type: "refresh_token", refresh_token: live.body.refresh_token });
    expect(after).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("consent denied → access_denied back at the client, no key created; approval needs the owner's sign-in", async () => {
    const before = await keysNamedAfterClient();
    const { challenge } = pkcePair();
    const denied = await consentOverHttp(
      host.url,
      authorizeUrl(host.url, clientId, redirectUri, challenge),
      null,
      "deny",
    );
    expect(denied.error).toBe("access_denied");
    expect(denied.code).toBeNull();
    expect(denied.callback.searchParams.get("state")).toBe("st-1");
    await expect(
      consentOverHttp(host.url, authorizeUrl(host.url, clientId, redirectUri, challenge), null, "approve"),
    ).rejects.toThrow(/decision: 401/);
    expect(await keysNamedAfterClient()).toBe(before);
  });

  it("a token without a tool's scope → 403 insufficient_scope naming every scope the call needs, and those held", async () => {
    const { code, verifier } = await approvedCode("audit_only");
    const pair = await token({ grant_type: "authorization_code", code, code_verifier: verifier });
    expect(pair.body.scope).toBe("audit_only");
    const refused = await mcpCall(pair.body.access_token, {
      method: "tools/call",
      params: { name: "submit_task", arguments: {} },
    });
    expect(refused.status).toBe(403);
    // The scopes held are named too: a client that asks for exactly these (the MCP SDK does) keeps them.
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="task_create audit_only"',
    );
    // A batch that needs two missing scopes: one challenge names both.
    const batch = await fetch(`${host.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${pair.body.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "submit_task", arguments: {} } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "check_balance", arguments: {} } },
      ]),
    });
    expect(batch.status).toBe(403);
    expect(batch.headers.get("www-authenticate")).toContain('scope="task_create billing_read audit_only"');
    const allowed = await mcpCall(pair.body.access_token, {
      method: "tools/call",
      params: { name: "list_my_tasks", arguments: {} },
    });
    expect(allowed.status).toBe(200);
  });

  it("a step-up consent adds its scope to the client's grant and key: the earlier scopes stay", async () => {
    const stepClient = `https://${loopback.base}/stepup.json`;
    const first = await approvedTokens("audit_only", stepClient);
    expect(first.scope).toBe("audit_only");
    const challenge = await mcpCall(first.access_token, {
      method: "tools/call",
      params: { name: "submit_task", arguments: {} },
    });
    const scope = /scope="([^"]+)"/.exec(challenge.headers.get("www-authenticate") ?? "")![1]!;
    // Step-up for the missing scope alone (a client that does not keep its earlier scopes).
    const stepped = await approvedTokens("task_create", stepClient);
    expect(stepped.scope).toBe("task_create");
    // The first token keeps audit_only: the consent added task_create, it did not replace audit_only.
    const stillAllowed = await mcpCall(first.access_token, {
      method: "tools/call",
      params: { name: "list_my_tasks", arguments: {} },
    });
    expect(stillAllowed.status).toBe(200);
    // One key and one grant for the client, with both scopes.
    const db = await getDb();
    const rows = await db
      .select({ scopes: apiKeys.scopes, grantId: oauthGrantKeys.grantId })
      .from(oauthGrantKeys)
      .innerJoin(apiKeys, eq(apiKeys.id, oauthGrantKeys.keyId))
      .where(eq(oauthGrantKeys.clientId, stepClient));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.scopes).toEqual(["task_create", "audit_only"]);
    const [grant] = await db
      .select({ payload: oauthArtifacts.payload })
      .from(oauthArtifacts)
      .where(and(eq(oauthArtifacts.kind, "Grant"), eq(oauthArtifacts.id, rows[0]!.grantId)));
    const granted = (grant!.payload as { resources: Record<string, string> }).resources[`${host.url}/mcp`]!;
    expect(granted.split(" ").sort()).toEqual(["audit_only", "task_create"]);
    // Asking for what the challenge named gives a token with both, and the call goes through.
    expect(scope).toBe("task_create audit_only");
    const both = await approvedTokens(scope, stepClient);
    expect(both.scope.split(" ").sort()).toEqual(["audit_only", "task_create"]);
    const submitted = await mcpCall(both.access_token, {
      method: "tools/call",
      params: { name: "submit_task", arguments: {} },
    });
    expect(submitted.status).toBe(200);
  });

  it("a client that consents again keeps one key, listed once in the dashboard, with the scopes of every consent", async () => {
    await approvedCode("task_create audit_only");
    const keys = await keysNamedAfterClient();
    const again = await approvedCode("audit_only");
    expect(await keysNamedAfterClient()).toBe(keys);
    const pair = await token({
      grant_type: "authorization_code",
      code: again.code,
      code_verifier: again.verifier,
    });
    expect(pair.body.scope).toBe("audit_only");
    const listed = (await (
      await fetch(`${host.url}/api/account-keys`, { headers: { authorization: `Bearer ${ownerJwt}` } })
    ).json()) as {
      keys: { key_id: string; oauth_client_id: string | null; scopes: string[] }[];
      count: number;
    };
    const entries = listed.keys.filter((k) => k.oauth_client_id === clientId);
    expect(entries).toHaveLength(1);
    expect(listed.count).toBe(listed.keys.length);
    expect(new Set(listed.keys.map((k) => k.key_id)).size).toBe(listed.keys.length);
    expect(entries[0]!.scopes).toEqual(["task_create", "audit_only"]);
  });

  it("RFC 9207: iss in the authorization responses, success and error, and in the metadata", async () => {
    const as = (await (await fetch(`${host.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.issuer).toBe(host.url);
    const { challenge } = pkcePair();
    const approved = await consentOverHttp(
      host.url,
      authorizeUrl(host.url, clientId, redirectUri, challenge),
      ownerJwt,
      "approve",
    );
    expect(approved.code).toBeTruthy();
    expect(approved.callback.searchParams.get("iss")).toBe(host.url);
    const denied = await consentOverHttp(
      host.url,
      authorizeUrl(host.url, clientId, redirectUri, challenge),
      null,
      "deny",
    );
    expect(denied.error).toBe("access_denied");
    expect(denied.callback.searchParams.get("iss")).toBe(host.url);
    // An error redirect straight from the authorization endpoint (prompt=none without a session).
    const res = await new CookieJar().fetch(
      authorizeUrl(host.url, clientId, redirectUri, challenge, { prompt: "none" }),
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!, host.url);
    expect(location.origin).toBe(`http://${loopback.base}`);
    expect(location.searchParams.get("error")).toBe("login_required");
    expect(location.searchParams.get("iss")).toBe(host.url);
  });

  it("public clients only: the metadata says none; a metadata document asking for a secret is refused", async () => {
    const as = (await (await fetch(`${host.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      any
    >;
    expect(as.token_endpoint_auth_methods_supported).toEqual(["none"]);
    expect(as.client_id_metadata_document_supported).toBe(true);
    const { challenge } = pkcePair();
    const secret = `https://${loopback.base}/secret.json`;
    const refused = await authorizeError(authorizeUrl(host.url, secret, redirectUri, challenge));
    expect(refused).toMatchObject({ status: 400, error: "invalid_client_metadata" });
  });

  it("dynamic client registration (RFC 7591) registers a public client with exact redirect URIs", async () => {
    const res = await fetch(`${host.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Registered Assistant",
        redirect_uris: ["http://127.0.0.1:9/cb"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        application_type: "native",
      }),
    });
    const body = (await res.json()) as Record<string, any>;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.client_id).toBeTruthy();
    expect(body.redirect_uris).toEqual(["http://127.0.0.1:9/cb"]);
    const { challenge } = pkcePair();
    const mismatch = await authorizeError(
      authorizeUrl(host.url, body.client_id, "http://127.0.0.1:9/other", challenge),
    );
    expect(mismatch.error).toBe("invalid_redirect_uri");
    // RFC 8252 §7.3: a native client's loopback redirect may use any port (only the port may differ).
    const anyPort = await new CookieJar().fetch(
      authorizeUrl(host.url, body.client_id, "http://127.0.0.1:5555/cb", challenge),
    );
    expect(anyPort.status).toBe(303);
    expect(anyPort.headers.get("location")).toMatch(/^\/oauth\/interaction\//);
    // A web client's redirect URI is matched exactly, port included.
    const web = (await (
      await fetch(`${host.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          redirect_uris: ["https://app.example/cb"],
          token_endpoint_auth_method: "none",
        }),
      })
    ).json()) as { client_id: string };
    const webPort = await authorizeError(
      authorizeUrl(host.url, web.client_id, "https://app.example:8443/cb", challenge),
    );
    expect(webPort.error).toBe("invalid_redirect_uri");
  });

  it("dynamic client registration refuses confidential clients and client secrets (invalid_client_metadata)", async () => {
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${host.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "Confidential",
          redirect_uris: ["https://app.example/cb"],
          ...metadata,
        }),
      });
    for (const method of [
      "client_secret_basic",
      "client_secret_post",
      "private_key_jwt",
      "client_secret_jwt",
    ]) {
      const res = await register({ token_endpoint_auth_method: method });
      const body = (await res.json()) as { error: string; error_description: string };
      expect(res.status, `${method}: ${JSON.stringify(body)}`).toBe(400);
      expect(body.error).toBe("invalid_client_metadata");
      expect(body.error_description).toContain("token_endpoint_auth_method");
    }
    const withSecret = await register({ token_endpoint_auth_method: "none", client_secret: "s3cret" });
    expect(withSecret.status).toBe(400);
    expect(await withSecret.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("client_secret"),
    });
    // Without a method: the default, none, and no secret in the answer.
    const plain = await register({});
    const registered = (await plain.json()) as Record<string, unknown>;
    expect(plain.status).toBe(201);
    expect(registered.token_endpoint_auth_method).toBe("none");
    expect(registered.client_secret).toBeUndefined();
  });
});

/**
 * The scope table of /mcp (issue 42 item 6): a token holding one scope calls each tool and protocol
 * method; the gate answers 403 insufficient_scope (naming the scope needed and the one held)
 * exactly when the scope needed is not held. Tasks and resources are read as check_task_status
 * reads (`audit_only`), cancelled as cancel_task cancels (`task_cancel`); disputes need
 * `task_create` (docs/decisions.md 38). Methods that read nothing of a task need no scope.
 */
describe("the scope table of /mcp", () => {
  const unknownTask = "TASK-SCOPE-TABLE-0";
  const CALLS: [string, Record<string, unknown>, string | null][] = [
    [
      "tools/call dispute_task",
      { method: "tools/call", params: { name: "dispute_task", arguments: {} } },
      "task_create",
    ],
    [
      "tools/call submit_task",
      { method: "tools/call", params: { name: "submit_task", arguments: {} } },
      "task_create",
    ],
    [
      "tools/call cancel_task",
      { method: "tools/call", params: { name: "cancel_task", arguments: {} } },
      "task_cancel",
    ],
    [
      "tools/call check_balance",
      { method: "tools/call", params: { name: "check_balance", arguments: {} } },
      "billing_read",
    ],
    [
      "tools/call check_task_status",
      { method: "tools/call", params: { name: "check_task_status", arguments: { task_id: unknownTask } } },
      "audit_only",
    ],
    [
      "tools/call list_my_tasks",
      { method: "tools/call", params: { name: "list_my_tasks", arguments: {} } },
      "audit_only",
    ],
    ["tasks/get", { method: "tasks/get", params: { taskId: unknownTask } }, "audit_only"],
    ["tasks/result", { method: "tasks/result", params: { taskId: unknownTask } }, "audit_only"],
    ["tasks/list", { method: "tasks/list", params: {} }, "audit_only"],
    ["tasks/cancel", { method: "tasks/cancel", params: { taskId: unknownTask } }, "task_cancel"],
    // Revision 2026-07-28's Tasks extension (a 2025 request for it is answered -32601, in a 200).
    [
      "tasks/update",
      { method: "tasks/update", params: { taskId: unknownTask, inputResponses: {} } },
      "audit_only",
    ],
    [
      "resources/read",
      { method: "resources/read", params: { uri: `task://${unknownTask}/proof/1` } },
      "audit_only",
    ],
    ["tools/list", { method: "tools/list" }, null],
    ["resources/templates/list", { method: "resources/templates/list" }, null],
  ];
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    const tableClient = `https://${loopback.base}/table.json`;
    for (const scope of ["task_create", "task_cancel", "billing_read", "audit_only"]) {
      const pair = await approvedTokens(scope, tableClient);
      expect(pair.scope).toBe(scope);
      tokens.set(scope, pair.access_token);
    }
  });

  it.each(["task_create", "task_cancel", "billing_read", "audit_only"])(
    "a token holding only %s: 403 insufficient_scope exactly for the calls needing another scope",
    async (held) => {
      for (const [label, message, needed] of CALLS) {
        const res = await mcpCall(tokens.get(held)!, message);
        if (needed !== null && needed !== held) {
          expect(res.status, `${label} with ${held}`).toBe(403);
          const challenge = res.headers.get("www-authenticate") ?? "";
          expect(challenge, label).toContain('error="insufficient_scope"');
          const named = /scope="([^"]+)"/.exec(challenge)?.[1]?.split(" ").sort();
          expect(named, label).toEqual([needed, held].sort());
        } else {
          expect(res.status, `${label} with ${held}`).toBe(200);
        }
        await res.body?.cancel();
      }
    },
  );

  it("a grant without audit_only reads no task through tasks/*; with it, tasks/list answers the key's tasks", async () => {
    const denied = await mcpCall(tokens.get("billing_read")!, { method: "tasks/list", params: {} });
    expect(denied.status).toBe(403);
    const listed = await mcpCall(tokens.get("audit_only")!, { method: "tasks/list", params: {} });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { result?: { tasks: unknown[] } };
    expect(Array.isArray(body.result?.tasks)).toBe(true);
  });
});

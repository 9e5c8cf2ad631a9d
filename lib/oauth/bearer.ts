/**
 * The resource server side of /mcp: the bearer token of a request, checked against the authorization
 * server's own rows (opaque tokens; a revoked grant or key is refused at once), and the challenges
 * of RFC 6750 / RFC 9728: 401 `WWW-Authenticate: Bearer resource_metadata="…"` without a valid token
 * (with `error="invalid_token"` when one was sent), 403 `error="insufficient_scope", scope="…"` when
 * the token lacks the scope of the tool called.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Config } from "../config.js";
import { getDb } from "../db/client.js";
import type { Scope } from "../db/schema/enums.js";
import {
  apiKeys,
  erasureRequests,
  oauthArtifacts,
  oauthGrantKeys,
  pendingErasureOf,
} from "../db/schema/index.js";
import { sha256Hex } from "../ids.js";
import type { Caller } from "../keys/credentials.js";
import { OAUTH_SCOPES, oauthResource, protectedResourceMetadataUrl } from "./scopes.js";

/** A refusal of the resource server: its status and `WWW-Authenticate` challenge. */
export class BearerChallenge extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly challenge: string,
    message: string,
  ) {
    super(message);
  }

  /** The JSON-RPC error response carrying the challenge. */
  toResponse(): Response {
    return Response.json(
      { jsonrpc: "2.0", id: null, error: { code: -32001, message: this.message } },
      { status: this.status, headers: { "www-authenticate": this.challenge, "cache-control": "no-store" } },
    );
  }
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "")}"`;
}

/**
 * The 401 challenge (RFC 6750 §3, RFC 9728 §5.1): where the resource metadata is, the scopes, and
 * `error` when a token was sent and refused.
 * @param request the request refused (the metadata URL is on its issuer, lib/oauth/scopes.ts)
 */
export function unauthorizedChallenge(
  config: Config,
  request: Request | undefined,
  error?: string,
  description?: string,
): BearerChallenge {
  const parts = [`resource_metadata=${quoted(protectedResourceMetadataUrl(config, request))}`];
  parts.push(`scope=${quoted(OAUTH_SCOPES.join(" "))}`);
  if (error) parts.push(`error=${quoted(error)}`);
  if (description) parts.push(`error_description=${quoted(description)}`);
  return new BearerChallenge(
    401,
    `Bearer ${parts.join(", ")}`,
    description ??
      "Authorization required: this endpoint takes an OAuth access token (see resource_metadata)",
  );
}

/**
 * The 403 challenge of a token that lacks scopes a call needs (RFC 6750 §3.1 `insufficient_scope`;
 * MCP authorization 2025-11-25, "Scope challenge handling").
 * @param needed every scope the call needs (all the tools of a batch), missing or not
 * @param held the scopes the token already carries: named too, so a client that asks for exactly
 *   the challenge's scopes (the MCP SDK does) keeps them in its new token
 * @returns a challenge whose `scope` is held ∪ needed, in OAUTH_SCOPES order
 */
export function insufficientScope(
  config: Config,
  request: Request | undefined,
  needed: readonly Scope[],
  held: readonly Scope[] = [],
): BearerChallenge {
  const missing = needed.filter((s) => !held.includes(s));
  const scope = OAUTH_SCOPES.filter((s) => needed.includes(s) || held.includes(s)).join(" ");
  return new BearerChallenge(
    403,
    `Bearer error="insufficient_scope", scope=${quoted(scope)}, resource_metadata=${quoted(protectedResourceMetadataUrl(config, request))}`,
    `This access token lacks the ${missing.join(", ")} scope${missing.length > 1 ? "s" : ""}`,
  );
}

/** The bearer token of `request`, if any. */
export function presentedBearer(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "");
  return match?.[1];
}

/**
 * The caller an access token stands for: the grant's API key (linked to the consenting account)
 * with the token's scopes (never more than the key's). The token's audience must be this `/mcp`
 * (RFC 8707; lib/oauth/scopes.ts `oauthResource` of the request).
 * @throws BearerChallenge 401 (no token, unknown, expired, consumed, for another resource, revoked,
 *   account on hold for erasure)
 */
export async function authenticateBearer(request: Request, config: Config): Promise<Caller> {
  const token = presentedBearer(request);
  if (!token) throw unauthorizedChallenge(config, request);
  const invalid = (why: string) => unauthorizedChallenge(config, request, "invalid_token", why);
  if (token.length > 512) throw invalid("The access token is not valid");
  const db = await getDb();
  const [row] = await db
    .select()
    .from(oauthArtifacts)
    .where(and(eq(oauthArtifacts.kind, "AccessToken"), eq(oauthArtifacts.id, sha256Hex(token))));
  if (!row || row.consumedAt) throw invalid("The access token is not valid");
  const payload = row.payload as { exp?: number; aud?: string | string[]; scope?: string; grantId?: string };
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== "number" || payload.exp <= now) throw invalid("The access token has expired");
  const audiences = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
  // RFC 8707: the token must have been issued for this resource, the /mcp the request came to.
  if (!audiences.includes(oauthResource(config, request))) {
    throw invalid("The access token was issued for another resource");
  }
  if (!payload.grantId) throw invalid("The access token is not valid");
  const [key] = await db
    .select({
      key: apiKeys,
      erasurePending: sql<boolean>`exists (select 1 from ${erasureRequests} where ${pendingErasureOf(apiKeys.accountId)})`,
    })
    .from(oauthGrantKeys)
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrantKeys.keyId))
    .where(eq(oauthGrantKeys.grantId, payload.grantId));
  if (!key || key.key.revokedAt) throw invalid("The authorization was revoked");
  // As for the account's keys (lib/keys/authenticate.ts): an account on hold for erasure is refused.
  if (key.erasurePending)
    throw invalid("The account asked for the erasure of its data: its access is on hold");
  const tokenScopes = new Set((payload.scope ?? "").split(" "));
  const scopes = key.key.scopes.filter((s) => s !== "admin" && tokenScopes.has(s));
  return {
    keyId: key.key.id,
    name: key.key.name,
    contact: key.key.contact,
    scopes,
    isAdmin: false,
    role: null,
    accountId: key.key.accountId,
  };
}

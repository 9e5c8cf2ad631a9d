/**
 * Operation descriptors of the OAuth side: the MCP endpoint that requires authorization (/mcp), the
 * protected resource metadata (RFC 9728), and the authorization server (oidc-provider, /oauth/* and
 * its metadata, RFC 8414). The authorization server reads its own bodies (forms, per its RFCs) and
 * answers in OAuth's error format; these descriptors document and rate-limit them.
 */
import { z } from "zod";
import { jsonRpcErrorSchema, MCP_TRANSPORT_RESPONSES } from "../descriptors/json-rpc.js";
import { defineOperation, type Operation } from "../descriptors/operation.js";

const jsonRpc = z
  .record(z.string(), z.unknown())
  .meta({ description: "JSON-RPC 2.0 message (MCP 2026-07-28 or 2025-11-25)" });
const metadata = z.record(z.string(), z.unknown());

export const mcpOAuthPostOperation = defineOperation({
  id: "mcpOAuth",
  method: "POST",
  path: "/mcp",
  summary: "Model Context Protocol endpoint for hosted assistants: OAuth 2.1 access token required",
  description:
    "The same MCP server as POST /api/mcp (protocol revisions 2026-07-28 and 2025-11-25), for clients that " +
    "connect with OAuth (MCP authorization). Without a valid access token: 401 with `WWW-Authenticate: Bearer resource_metadata=…` " +
    "(discovery starts there); a token lacking the scope of the tool called (or of the method: `audit_only` for " +
    "tasks/get, tasks/result, tasks/list, tasks/update and resources/read, `task_cancel` for tasks/cancel): 403 with " +
    '`WWW-Authenticate: Bearer error="insufficient_scope", scope=…`. A token acts as an API key linked to the ' +
    "account whose owner consented (it bills and reads only that account).",
  tags: ["MCP"],
  auth: "delegated",
  deferAnonymousLimit: true,
  documentedBody: jsonRpc,
  response: jsonRpc,
  // The transport's own answers, and the resource server's refusals (401, 403), in JSON-RPC.
  responses: {
    ...MCP_TRANSPORT_RESPONSES,
    401: {
      description: "No valid access token (WWW-Authenticate names the resource metadata).",
      schema: jsonRpcErrorSchema,
      headers: { "WWW-Authenticate": 'Bearer resource_metadata="…", scope="…"[, error="invalid_token"]' },
    },
    403: {
      description:
        "The token lacks the scope of the tool or method (insufficient_scope), or Host/Origin refused.",
      schema: jsonRpcErrorSchema,
      headers: { "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="…"' },
    },
  },
});

export const mcpOAuthGetOperation = defineOperation({
  id: "mcpOAuthGet",
  method: "GET",
  path: "/mcp",
  summary: "No server-initiated stream on this stateless server (405)",
  description: "Always 405 METHOD_NOT_ALLOWED with `Allow: POST`.",
  tags: ["MCP"],
  auth: "delegated",
  successStatus: null,
});

export const protectedResourceOperation = defineOperation({
  id: "getProtectedResourceMetadata",
  method: "GET",
  readOnly: true,
  path: "/.well-known/oauth-protected-resource",
  summary: "OAuth protected resource metadata of /mcp (RFC 9728; also at …/oauth-protected-resource/mcp)",
  description: "Names the authorization server of /mcp and the scopes its tokens carry.",
  tags: ["Discovery"],
  auth: "none",
  response: metadata,
  cacheControl: "public, max-age=300",
});

export const authorizationServerMetadataOperation = defineOperation({
  id: "getAuthorizationServerMetadata",
  method: "GET",
  path: "/.well-known/oauth-authorization-server",
  summary: "OAuth authorization server metadata (RFC 8414; also /.well-known/openid-configuration)",
  description:
    "Endpoints, PKCE S256, `client_id_metadata_document_supported`, the registration endpoint (RFC 7591) and scopes.",
  tags: ["Discovery"],
  auth: "delegated",
  deferAnonymousLimit: true,
  rateLimits: ["oauth"],
  response: metadata,
});

/**
 * What the endpoints oidc-provider serves under /oauth/{endpoint} share: tag OAuth, auth
 * `delegated` with the count of an anonymous request left to the endpoint (`deferAnonymousLimit`:
 * api/oauth.ts counts it per client and per IP, lib/oauth/limits.ts), oidc-provider's own success
 * statuses (`successStatus: null`; each operation documents them in `responses`) and 404 NOT_FOUND
 * for an unknown endpoint.
 */
const AUTHORIZATION_SERVER_ENDPOINT = {
  tags: ["OAuth"],
  auth: "delegated",
  deferAnonymousLimit: true,
  successStatus: null,
  errors: ["NOT_FOUND"],
} satisfies Partial<Operation>;

export const oauthGetOperation = defineOperation({
  id: "oauthGet",
  method: "GET",
  path: "/oauth/{endpoint}",
  summary: "Authorization server: /oauth/authorize (code + PKCE S256), /oauth/jwks, the consent page's reads",
  description:
    "Served by oidc-provider. Authorization code with PKCE S256 only; `client_id` a registered id or an HTTPS " +
    "client ID metadata document URL; `resource` must be this service's /mcp (RFC 8707). Errors per RFC 6749.",
  ...AUTHORIZATION_SERVER_ENDPOINT,
  responses: {
    200: { description: "JWK Set, or the consent page's view of a pending request.", schema: metadata },
    303: {
      description: "To the consent page, or back to the client's redirect_uri with `code` or `error`.",
      headers: { Location: "Where the browser goes next." },
    },
    400: {
      description: "OAuth error (`invalid_request`, `invalid_client`, `invalid_target`, …).",
      schema: metadata,
    },
  },
});

export const oauthPostOperation = defineOperation({
  id: "oauthPost",
  method: "POST",
  path: "/oauth/{endpoint}",
  summary:
    "Authorization server: /oauth/token, /oauth/register (RFC 7591), /oauth/revoke (RFC 7009), consent",
  description:
    "Served by oidc-provider (form bodies, OAuth error responses): token (authorization_code with " +
    "code_verifier, refresh_token, rotated on use), dynamic client registration (public clients), revocation. " +
    "/oauth/interaction/{uid}/decision records the account owner's consent (JSON, client JWT).",
  ...AUTHORIZATION_SERVER_ENDPOINT,
  responses: {
    200: { description: "Tokens, a revocation, or the consent decision's `redirect_to`.", schema: metadata },
    201: { description: "A registered client (RFC 7591).", schema: metadata },
    400: { description: "OAuth error (`invalid_grant`, `invalid_client_metadata`, …).", schema: metadata },
    401: { description: "OAuth `invalid_client` (token and revocation endpoints).", schema: metadata },
  },
});

/**
 * What the OAuth side names, without oidc-provider: the protected resource (the MCP endpoint at
 * `/mcp`), the issuer, and the scopes a token may carry — the API key scopes, `admin` excepted.
 *
 * The issuer is the service's public origin (PUBLIC_BASE_URL). A development run without
 * PUBLIC_BASE_URL is reached at whatever loopback address its banner prints (127.0.0.1, localhost,
 * [::1]): there the issuer is the origin the request came to, so the issuer, the resource and the
 * metadata URLs all name the address the client used (RFC 8414 §3.3 and RFC 9728 §3.3 make a
 * client refuse metadata naming another). Never in the production profile, never for a
 * non-loopback Host (a forged Host cannot choose the issuer).
 */
import { type Config, productionProfile, publicBaseUrl } from "../config.js";
import type { Scope } from "../db/schema/enums.js";
import { isLoopbackHost } from "../ip-address.js";

/** Path of the MCP endpoint that requires OAuth (the same server as /api/mcp). */
export const OAUTH_RESOURCE_PATH = "/mcp";

/** The scopes an OAuth client may ask for: the key scopes but `admin`. */
export const OAUTH_SCOPES: readonly Scope[] = ["task_create", "task_cancel", "billing_read", "audit_only"];

/**
 * The issuer (RFC 8414): the service's public origin (PUBLIC_BASE_URL, else
 * `http://localhost:PORT`).
 * @param request the request being served: when PUBLIC_BASE_URL is unset, outside the production
 *   profile, and the request's Host is a loopback address, the issuer is the request's origin
 *   (`http://127.0.0.1:PORT` when the client came there), so discovery names the address in use.
 * @returns an origin, without a trailing slash
 */
export function oauthIssuer(config: Config, request?: Request): string {
  if (request && !config.PUBLIC_BASE_URL && !productionProfile(config).active) {
    const url = new URL(request.url);
    if ((url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname)) {
      return url.origin;
    }
  }
  return new URL(publicBaseUrl(config)).origin;
}

/**
 * The resource indicator (RFC 8707) of the MCP endpoint: tokens are bound to it (their audience).
 * @param request see `oauthIssuer`: the resource is on the issuer's origin
 */
export function oauthResource(config: Config, request?: Request): string {
  return `${oauthIssuer(config, request)}${OAUTH_RESOURCE_PATH}`;
}

/**
 * Protected resource metadata of the MCP endpoint (RFC 9728): `resource` is exactly the URL the
 * client connects to (§3.3), on the issuer's origin (see `oauthIssuer`).
 */
export function protectedResourceMetadata(config: Config, request?: Request) {
  const issuer = oauthIssuer(config, request);
  return {
    resource: oauthResource(config, request),
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Physical Task Execution Service (MCP)",
    resource_documentation: `${issuer}/llms.txt`,
  };
}

/** The URL of the protected resource metadata, for `WWW-Authenticate: Bearer resource_metadata="…"`. */
export function protectedResourceMetadataUrl(config: Config, request?: Request): string {
  return `${oauthIssuer(config, request)}/.well-known/oauth-protected-resource${OAUTH_RESOURCE_PATH}`;
}

/**
 * What the OAuth side names, without oidc-provider: the protected resource (the MCP endpoint at
 * `/mcp`), the issuer, and the scopes a token may carry — the API key scopes, `admin` excepted.
 */
import { type Config, publicBaseUrl } from "../config.js";
import type { Scope } from "../db/schema/enums.js";

/** Path of the MCP endpoint that requires OAuth (the same server as /api/mcp). */
export const OAUTH_RESOURCE_PATH = "/mcp";

/** The scopes an OAuth client may ask for: the key scopes but `admin`. */
export const OAUTH_SCOPES: readonly Scope[] = ["task_create", "task_cancel", "billing_read", "audit_only"];

/** The issuer (RFC 8414): the service's public origin. */
export function oauthIssuer(config: Config): string {
  return new URL(publicBaseUrl(config)).origin;
}

/** The resource indicator (RFC 8707) of the MCP endpoint: tokens are bound to it. */
export function oauthResource(config: Config): string {
  return `${oauthIssuer(config)}${OAUTH_RESOURCE_PATH}`;
}

/** Protected resource metadata of the MCP endpoint (RFC 9728). */
export function protectedResourceMetadata(config: Config) {
  const issuer = oauthIssuer(config);
  return {
    resource: oauthResource(config),
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Physical Task Execution Service (MCP)",
    resource_documentation: `${issuer}/llms.txt`,
  };
}

/** The URL of the protected resource metadata, for `WWW-Authenticate: Bearer resource_metadata="…"`. */
export function protectedResourceMetadataUrl(config: Config): string {
  return `${oauthIssuer(config)}/.well-known/oauth-protected-resource${OAUTH_RESOURCE_PATH}`;
}

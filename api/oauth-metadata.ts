/**
 * GET /.well-known/oauth-authorization-server (RFC 8414) and /.well-known/openid-configuration
 * (rewritten here) — the authorization server's metadata, as oidc-provider publishes it, with the
 * resource scopes of /mcp in `scopes_supported`, `authorization_response_iss_parameter_supported: true`
 * (RFC 9207) and `token_endpoint_auth_methods_supported: ["none"]` (public clients only).
 */
import { endpoint, route } from "../lib/http/handler.js";
import { callNodeHandler } from "../lib/oauth/node-bridge.js";
import { authorizationServerMetadataOperation } from "../lib/oauth/operations.js";
import { getProvider } from "../lib/oauth/provider.js";
import { OAUTH_SCOPES } from "../lib/oauth/scopes.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(authorizationServerMetadataOperation, async ({ request, config }) => {
    const provider = await getProvider(config, request);
    const answer = await callNodeHandler(provider.callback(), request, "/.well-known/openid-configuration");
    if (!answer.ok) return answer;
    const metadata = (await answer.json()) as { scopes_supported?: string[] };
    const scopes = new Set([...OAUTH_SCOPES, ...(metadata.scopes_supported ?? [])]);
    return Response.json(
      {
        ...metadata,
        scopes_supported: [...scopes],
        // Stated whatever the library's default: `iss` is in every authorization response (RFC 9207),
        // and clients are public (no secret; lib/oauth/provider.ts `clientAuthMethods`).
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: ["none"],
      },
      { headers: { "cache-control": "public, max-age=300" } },
    );
  }),
});

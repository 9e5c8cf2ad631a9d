/**
 * GET /.well-known/oauth-protected-resource and /.well-known/oauth-protected-resource/mcp
 * (rewritten here) — the protected resource metadata of /mcp (RFC 9728); its `resource` is the /mcp
 * of the address the client came to when PUBLIC_BASE_URL is unset (lib/oauth/scopes.ts).
 */
import { endpoint, route } from "../lib/http/handler.js";
import { protectedResourceOperation } from "../lib/oauth/operations.js";
import { protectedResourceMetadata } from "../lib/oauth/scopes.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(protectedResourceOperation, ({ config, request }) =>
    protectedResourceMetadata(config, request),
  ),
});

/**
 * GET /.well-known/oauth-protected-resource and /.well-known/oauth-protected-resource/mcp
 * (rewritten here) — the protected resource metadata of /mcp (RFC 9728).
 */
import { endpoint, route } from "../lib/http/handler.js";
import { protectedResourceOperation } from "../lib/oauth/operations.js";
import { protectedResourceMetadata } from "../lib/oauth/scopes.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(protectedResourceOperation, ({ config }) => protectedResourceMetadata(config)),
});

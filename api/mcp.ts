/** /api/mcp — the Model Context Protocol endpoint (stateless Streamable HTTP; self-contained sessions, lib/mcp/session.ts). */
import { ApiError } from "../lib/http/errors.js";
import { endpoint, route } from "../lib/http/handler.js";
import { presentedKey } from "../lib/keys/credentials.js";
import { mcpDeleteOperation, mcpGetOperation, mcpPostOperation } from "../lib/mcp/descriptors/operations.js";
import { handleMcpRequest } from "../lib/mcp/handle-request.js";

/**
 * 405 METHOD_NOT_ALLOWED (the error envelope, `Allow: POST`), as the Streamable HTTP
 * transport allows a stateless server for GET and DELETE.
 * @throws ApiError METHOD_NOT_ALLOWED, always
 */
function statelessMethodNotAllowed(reason: string): never {
  throw new ApiError("METHOD_NOT_ALLOWED", `Method not allowed: ${reason}; use POST`, {
    headers: { allow: "POST" },
  });
}

const serve = endpoint(mcpPostOperation, ({ request, caller, ip, requestId, config }) => {
  const sent = presentedKey(request);
  return handleMcpRequest(
    request,
    { headerCaller: caller, headerKeyInvalid: Boolean(sent) && !caller, ip, requestId },
    config,
  );
});

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: serve,
  GET: endpoint(mcpGetOperation, () =>
    statelessMethodNotAllowed("no server-initiated stream: this server is stateless"),
  ),
  DELETE: endpoint(mcpDeleteOperation, () =>
    statelessMethodNotAllowed(
      "no session to end: a session id here only carries your declared capabilities and the server keeps nothing",
    ),
  ),
});

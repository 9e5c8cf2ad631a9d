/** /api/mcp — the Model Context Protocol endpoint (stateless Streamable HTTP). */
import { endpoint, route } from "../lib/http/handler.js";
import { presentedKey } from "../lib/keys/authenticate.js";
import { handleMcpRequest } from "../lib/mcp/handle-request.js";
import { mcpDeleteOperation, mcpGetOperation, mcpPostOperation } from "../lib/mcp/operations.js";

/** 405 with a JSON-RPC error, as the Streamable HTTP transport allows a stateless server. */
function statelessMethodNotAllowed(reason: string): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32000, message: `Method not allowed: ${reason}; use POST` } },
    { status: 405, headers: { allow: "POST" } },
  );
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
    statelessMethodNotAllowed("no sessions to end: this server is stateless"),
  ),
});

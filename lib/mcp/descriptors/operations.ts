/**
 * Operation descriptors of POST/GET/DELETE /api/mcp. In a folder of their own: the registry
 * (lib/openapi/operations.ts) collects them while MCP's `capabilities` tool reads the document
 * built from the registry (lib/system/capabilities.ts), so descriptors in lib/mcp would make a
 * folder cycle.
 */
import { z } from "zod";
import { jsonRpcErrorSchema, MCP_TRANSPORT_RESPONSES } from "../../descriptors/json-rpc.js";
import { defineOperation } from "../../http/operation.js";

const jsonRpc = z.record(z.string(), z.unknown()).meta({
  description: "JSON-RPC 2.0 message (MCP 2026-07-28 or 2025-11-25)",
  examples: [{ jsonrpc: "2.0", id: 1, method: "tools/list" }],
});

export const mcpPostOperation = defineOperation({
  id: "mcp",
  method: "POST",
  path: "/api/mcp",
  summary: "Model Context Protocol endpoint (Streamable HTTP, stateless, JSON responses)",
  description:
    'Two protocol revisions (docs/mcp.md "Protocol revisions"). 2026-07-28: no initialize and no session; every ' +
    "request carries _meta io.modelcontextprotocol/protocolVersion, clientInfo and clientCapabilities, and the " +
    "MCP-Protocol-Version, Mcp-Method (and, for tools/call, tasks/* and resources/read, Mcp-Name) headers; " +
    "server/discover; the Tasks extension io.modelcontextprotocol/tasks (tasks/get, tasks/update, tasks/cancel; " +
    'submit_task answers resultType "task" to a client declaring it); pay_task answers input_required (URL ' +
    "elicitation of the pay page, sealed requestState) to a client taking URL elicitation; cacheable results carry " +
    "ttlMs/cacheScope. 2025-11-25 (the initialize handshake; 2025-06-18 and 2025-03-26 answered in theirs): " +
    "initialize, ping, tools/list, tools/call (task-augmented for submit_task), tasks/get, tasks/result, tasks/list, " +
    "tasks/cancel. Both: resources/templates/list, resources/list, resources/read (proof files " +
    "task://{task_id}/proof/{n}, receipts task://{task_id}/receipt). " +
    "Tools: list_services, get_estimate, submit_task, check_task_status, score_task, get_capabilities, " +
    "register_api_key, register_webhook, get_reputation, check_balance, pre_authorize_cost, cancel_task, dispute_task, " +
    "pay_task, list_my_tasks. " +
    "Keys: x-api-key header, Bearer, or the api_key tool argument (counted on that key's rate limit); anonymous " +
    "tasks: the access_token argument. Failures: JSON-RPC error objects (protocol; an unknown tool is -32602) or " +
    "isError tool results carrying the HTTP API's error envelope in _meta and their text (no structuredContent). " +
    "Send `Accept: application/json, text/event-stream` (else 406) and `Content-Type: application/json` (else 415).",
  tags: ["MCP"],
  auth: "delegated",
  deferAnonymousLimit: true,
  documentedBody: z.union([jsonRpc, z.array(jsonRpc).meta({ description: "A batch (revision 2025-03-26)" })]),
  response: jsonRpc,
  // The MCP transport answers these itself, with a JSON-RPC error body (not the error envelope).
  responses: {
    ...MCP_TRANSPORT_RESPONSES,
    403: {
      description: "Host or Origin not allowed (DNS-rebinding protection).",
      schema: jsonRpcErrorSchema,
    },
  },
});

export const mcpGetOperation = defineOperation({
  id: "mcpGet",
  method: "GET",
  path: "/api/mcp",
  summary: "No server-initiated stream on this stateless server (405, as the transport specification allows)",
  description: "Always 405 METHOD_NOT_ALLOWED with `Allow: POST`.",
  tags: ["MCP"],
  auth: "delegated",
  successStatus: null,
});

export const mcpDeleteOperation = defineOperation({
  id: "mcpDelete",
  method: "DELETE",
  path: "/api/mcp",
  summary: "No sessions to end on this stateless server (405)",
  description: "Always 405 METHOD_NOT_ALLOWED with `Allow: POST`.",
  tags: ["MCP"],
  auth: "delegated",
  successStatus: null,
});

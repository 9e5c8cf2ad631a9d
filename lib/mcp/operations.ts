/** Operation descriptors of POST/GET/DELETE /api/mcp. */
import { z } from "zod";
import { defineOperation } from "../http/operation.js";

const jsonRpc = z
  .record(z.string(), z.unknown())
  .meta({ description: "JSON-RPC 2.0 message (MCP 2025-03-26)" });

export const mcpPostOperation = defineOperation({
  id: "mcp",
  method: "POST",
  path: "/api/mcp",
  summary: "Model Context Protocol endpoint (Streamable HTTP, stateless, JSON responses)",
  description:
    "Methods: initialize, tools/list, tools/call, ping, notifications/initialized. Tools: list_services, get_estimate, " +
    "submit_task, check_task_status, score_task, get_capabilities, register_api_key, register_webhook, get_reputation, " +
    "check_balance, pre_authorize_cost. Keys: x-api-key header, Bearer, or the api_key tool argument. " +
    "Failures: JSON-RPC error objects (protocol) or isError tool results carrying the HTTP API's error codes.",
  tags: ["MCP"],
  auth: "delegated",
  response: jsonRpc,
});

export const mcpGetOperation = defineOperation({
  id: "mcpGet",
  method: "GET",
  path: "/api/mcp",
  summary: "No server-initiated stream on this stateless server (405, as the transport specification allows)",
  tags: ["MCP"],
  auth: "delegated",
});

export const mcpDeleteOperation = defineOperation({
  id: "mcpDelete",
  method: "DELETE",
  path: "/api/mcp",
  summary: "No sessions to end on this stateless server (405)",
  tags: ["MCP"],
  auth: "delegated",
});

/**
 * What the descriptors of the two MCP endpoints (POST /api/mcp, lib/mcp/descriptors/operations.ts;
 * POST /mcp, lib/oauth/operations.ts) document alike: the JSON-RPC 2.0 error body and the
 * responses the MCP transport answers itself (lib/mcp/handle-request.ts), not with the error envelope.
 */
import { z } from "zod";
import type { OperationResponse } from "./operation.js";

/** A JSON-RPC 2.0 error response, the body of the transport's own refusals (`JsonRpcError`). */
export const jsonRpcErrorSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .meta({ id: "JsonRpcError" });

/**
 * The transport's own answers on both endpoints, by status: 202 for a body of notifications or
 * responses only, and its refusals of a body that is not JSON-RPC or breaks revision 2026-07-28's header
 * rules (400), of an `Accept` (406), a
 * size (413) or a `Content-Type` (415) it does not take. Each endpoint adds its own 401 and 403.
 */
export const MCP_TRANSPORT_RESPONSES = {
  202: { description: "Accepted: the body held only notifications or responses (no body)." },
  400: {
    description:
      "Not JSON, or not a valid JSON-RPC message (-32700, -32600). Revision 2026-07-28: the MCP-Protocol-Version, " +
      "Mcp-Method or Mcp-Name header missing or disagreeing with the body (-32020, data.mismatch); an unsupported " +
      "revision (-32022, data.supported lists ours); a request without its _meta envelope (-32602).",
    schema: jsonRpcErrorSchema,
  },
  406: { description: "Accept lacks application/json or text/event-stream.", schema: jsonRpcErrorSchema },
  413: { description: "Body over MAX_BODY_BYTES.", schema: jsonRpcErrorSchema },
  415: { description: "Content-Type is not application/json.", schema: jsonRpcErrorSchema },
} satisfies Record<number, OperationResponse>;

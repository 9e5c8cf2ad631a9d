/**
 * JSON-RPC errors on the 2026-07-28 path: the methods shared with the 2025 path throw the v1 SDK's
 * `McpError` (lib/mcp/tool-kit.ts `protocolError`); the v2 SDK sends only its own `ProtocolError`
 * as is (anything else would be prefixed "MCP error …" or become -32603). Same code, message and
 * `data` (the HTTP API's error envelope) on both revisions.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { ProtocolError } from "@modelcontextprotocol/server";
import { protocolError } from "../tool-kit.js";

/** `error` as the v2 SDK's `ProtocolError` (a v1 `McpError` keeps its code, bare message and data). */
export function toProtocolError(error: unknown, requestId: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const mcp = error instanceof McpError ? error : protocolError(error, requestId);
  const message = mcp.message.replace(/^MCP error -?\d+: /, "");
  return new ProtocolError(mcp.code, message, mcp.data);
}

/**
 * Runs `fn`, rethrowing any failure as a `ProtocolError` ({@link toProtocolError}).
 * @throws ProtocolError
 */
export async function asProtocolError<T>(fn: () => Promise<T>, requestId = "mcp"): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toProtocolError(error, requestId);
  }
}

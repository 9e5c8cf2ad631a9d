/**
 * Raw JSON-RPC requests of MCP revision 2026-07-28, written as the spec writes them: the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers and the per-request `_meta` envelope
 * (protocol version, client info, client capabilities). For what the official clients cannot send:
 * the Tasks extension (the SDK has no client for it) and hand-made `requestState` values.
 */

/** The revision these requests speak. */
export const REVISION_2026 = "2026-07-28";
/** The Tasks extension's identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The per-request envelope of a request declaring `capabilities`. */
export function envelope2026(capabilities: Record<string, unknown> = {}) {
  return {
    "io.modelcontextprotocol/protocolVersion": REVISION_2026,
    "io.modelcontextprotocol/clientInfo": { name: "raw-agent", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

let nextId = 1;

/** Options of {@link rpc2026}. */
export interface Rpc2026Options {
  /** Client capabilities declared in the envelope. */
  capabilities?: Record<string, unknown>;
  /** Headers added to (or replacing) the revision's. */
  headers?: Record<string, string>;
}

/**
 * POSTs one request `method` with `params` to `url` (an MCP endpoint); `Mcp-Name` is the tool name,
 * task id or resource URI as the method has one.
 * @returns the HTTP status and the parsed JSON-RPC response
 */
export async function rpc2026(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: Rpc2026Options = {},
): Promise<{ status: number; body: any }> {
  const name =
    method === "tools/call"
      ? params.name
      : method.startsWith("tasks/")
        ? params.taskId
        : method === "resources/read"
          ? params.uri
          : undefined;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": REVISION_2026,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: { ...params, _meta: { ...envelope2026(options.capabilities), ...(params._meta as object) } },
    }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

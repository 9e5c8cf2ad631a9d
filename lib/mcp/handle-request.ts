/**
 * The MCP endpoint's transport (Streamable HTTP, stateless): a fresh server (lib/mcp/server.ts)
 * and transport per request with JSON responses, built on the official SDK's Web-standard
 * transport. Sessions are self-contained (lib/mcp/session.ts): a successful `initialize` is
 * answered with an `Mcp-Session-Id` holding the client's declared capabilities, and a request
 * presenting one is served with them (an invalid one → 404, -32001). Revision 2025-11-25 is negotiated by default; 2025-06-18, 2025-03-26
 * and the older revisions the SDK knows are answered in their own revision.
 *
 * DNS-rebinding protection (the SDK wires it only for Express): a request whose `Host`
 * is not an allowed host, or whose `Origin` is not an allowed origin, gets 403 with a
 * JSON-RPC error. Allowed: the host and origin of PUBLIC_BASE_URL, MCP_ALLOWED_HOSTS /
 * MCP_ALLOWED_ORIGINS, and localhost forms outside production.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type ClientCapabilities, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { type Config, productionProfile, publicBaseUrl } from "../config.js";
import { ApiError } from "../http/errors.js";
import { enforceGeneralLimit, noteTraceparent, readBodyText } from "../http/handler.js";
import { createMcpServer, TASKS_REVISION } from "./server.js";
import { openMcpSession, readMcpSession } from "./session.js";
import type { ToolContext } from "./tool-kit.js";
import { TOOLS } from "./tools.js";

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Host and Origin check; returns a 403 response or undefined. */
export function checkHostAndOrigin(request: Request, config: Config): Response | undefined {
  const base = new URL(publicBaseUrl(config));
  const dev = !productionProfile(config).active;
  const host = (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
  const hostname = host.replace(/:\d+$/, "");
  const allowedHosts = new Set([
    base.host.toLowerCase(),
    base.hostname.toLowerCase(),
    ...list(config.MCP_ALLOWED_HOSTS),
  ]);
  const hostOk =
    allowedHosts.has(host) || allowedHosts.has(hostname) || (dev && LOCAL_HOSTS.includes(hostname));
  const origin = request.headers.get("origin");
  let originOk = true;
  if (origin) {
    const allowedOrigins = new Set([base.origin, ...list(config.MCP_ALLOWED_ORIGINS)]);
    let originHost = "";
    try {
      originHost = new URL(origin).hostname;
    } catch {
      originHost = "";
    }
    originOk = allowedOrigins.has(origin) || (dev && LOCAL_HOSTS.includes(originHost));
  }
  if (hostOk && originOk) return undefined;
  return Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: hostOk ? `Origin ${origin} is not allowed` : `Host ${host} is not allowed`,
      },
    },
    { status: 403 },
  );
}

/** The JSON-RPC error response the transport itself would give (its status and code). */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/** What the handler needs to know of a POST body before the transport reads it. */
interface Peek {
  /** The parsed body, handed to the transport (so it is read once). */
  body: unknown;
  /** Messages in the body: 1, or the length of a JSON-RPC batch. */
  messages: number;
  /** The one message is a call authenticated by an `api_key` argument (counted on that key). */
  keyArgument: boolean;
  /** The revision an `initialize` in the body asks for, if any. */
  initializeVersion: string | undefined;
  /** The body is one `initialize` request: the capabilities it declares (`{}` when none). */
  initializeCapabilities: ClientCapabilities | undefined;
}

/** Whether `message` authenticates with an `api_key` argument: a tool that takes one, or a task/resource method. */
function carriesKeyArgument(message: unknown): boolean {
  if (!message || typeof message !== "object") return false;
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  if (!params || typeof params !== "object") return false;
  if (method === "tools/call") {
    const tool = TOOLS.find((t) => t.name === params.name);
    const args = params.arguments as Record<string, unknown> | undefined;
    return Boolean(
      tool && "api_key" in tool.input && typeof args?.api_key === "string" && args.api_key !== "",
    );
  }
  if (typeof method === "string" && (method.startsWith("tasks/") || method === "resources/read")) {
    return typeof params.api_key === "string" && params.api_key !== "";
  }
  return false;
}

/**
 * Reads and parses a POST body the transport would accept (right Accept and Content-Type; else
 * the transport answers 406/415 itself). A body over `limit` → 413, bad JSON → 400 -32700, as
 * the transport answers them.
 */
async function peekBody(request: Request, limit: number): Promise<Peek | Response | undefined> {
  const accept = request.headers.get("accept") ?? "";
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (
    request.method !== "POST" ||
    !accept.includes("application/json") ||
    !accept.includes("text/event-stream")
  )
    return undefined;
  if (type !== "application/json") return undefined;
  let text: string;
  try {
    text = await readBodyText(request, limit);
  } catch (error) {
    if (error instanceof ApiError && error.code === "PAYLOAD_TOO_LARGE") {
      return jsonRpcError(413, -32000, `Payload too large: the body exceeds ${limit} bytes`);
    }
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  const messages = Array.isArray(body) ? body : [body];
  if (!Array.isArray(body)) {
    // W3C Trace Context rides in _meta (revision 2026-07-28); kept on the activity row.
    const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
    if (meta && typeof meta === "object") noteTraceparent(request, meta.traceparent);
  }
  const init = messages.find(
    (m) => m && typeof m === "object" && (m as { method?: unknown }).method === "initialize",
  ) as { params?: { protocolVersion?: unknown; capabilities?: unknown } } | undefined;
  const version = init?.params?.protocolVersion;
  const capabilities = init?.params?.capabilities;
  return {
    body,
    messages: messages.length,
    keyArgument: !Array.isArray(body) && carriesKeyArgument(body),
    initializeVersion: typeof version === "string" ? version : undefined,
    initializeCapabilities:
      init && !Array.isArray(body)
        ? capabilities && typeof capabilities === "object"
          ? (capabilities as ClientCapabilities)
          : {}
        : undefined,
  };
}

/**
 * The 400 answer to a JSON-RPC batch of more than `max` messages: one -32600 error per request of
 * the batch (each by its id; notifications get none), none of them served.
 */
function batchTooLarge(body: unknown[], max: number): Response {
  const message = `Invalid Request: a batch may hold at most ${max} messages (MCP_MAX_BATCH_MESSAGES); this one holds ${body.length}, none was served`;
  const ids = body
    .map((m) => (m && typeof m === "object" ? (m as { id?: unknown }).id : undefined))
    .filter((id) => typeof id === "string" || typeof id === "number");
  const errors = (ids.length > 0 ? ids : [null]).map((id) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32600, message },
  }));
  return Response.json(errors, { status: 400 });
}

/**
 * Whether to serve Tasks: the revision the request is in (its `initialize`, else the
 * `MCP-Protocol-Version` header) is 2025-11-25 or later, or unknown. An unknown revision in
 * `initialize` is answered with the latest one, which has Tasks.
 */
function servesTasks(request: Request, initializeVersion: string | undefined): boolean {
  const version = initializeVersion ?? request.headers.get("mcp-protocol-version") ?? undefined;
  if (!version || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return true;
  return version >= TASKS_REVISION;
}

/**
 * Serves a request of revision 2026-07-28 (or one the SDK's classification sends to that path to be
 * refused: an unsupported revision, headers disagreeing with the body) with the SDK v2's
 * `createMcpHandler` over a fresh server (lib/mcp/modern/server.ts), strict: 2025-era traffic never
 * reaches it (the caller routes that to the 2025 server). Imported on first use (cold start).
 */
async function serveModern(
  request: Request,
  body: unknown,
  ctx: ToolContext,
  config: Config,
): Promise<Response> {
  const [{ createMcpHandler }, { createModernServer }] = await Promise.all([
    import("@modelcontextprotocol/server"),
    import("./modern/server.js"),
  ]);
  const handler = createMcpHandler(() => createModernServer(ctx), {
    legacy: "reject",
    maxRequestBodySize: config.MAX_BODY_BYTES,
    keepAliveMs: 0,
  });
  try {
    return await handler.fetch(request, { parsedBody: body });
  } finally {
    void handler.close();
  }
}

/** Options of {@link handleMcpRequest}. */
export interface McpRequestOptions {
  /**
   * Sees the parsed messages before any is served; a response it returns answers the request
   * instead (the OAuth endpoint refuses a call whose tool needs a scope the token lacks).
   */
  beforeServe?: (messages: unknown[]) => Response | undefined;
}

/**
 * Answers one MCP HTTP request (POST, GET or DELETE). The general rate limit of a request
 * without a header key is counted here (the operation defers it): on the key of an `api_key`
 * argument when the request is one message carrying one (the method counts it, see
 * `chargeDeferredLimit`), else on the IP's budget of requests without a key. A JSON-RPC batch
 * counts each of its messages (the wrapper counted one on a header key; the rest are counted here),
 * and one over MCP_MAX_BATCH_MESSAGES is refused whole (400, an error per request).
 * @throws ApiError RATE_LIMITED (the wrapper answers 429 with Retry-After)
 */
export async function handleMcpRequest(
  request: Request,
  ctx: ToolContext,
  config: Config,
  options: McpRequestOptions = {},
): Promise<Response> {
  const refused = checkHostAndOrigin(request, config);
  if (refused) return refused;
  const peek = await peekBody(request, config.MAX_BODY_BYTES);
  if (peek instanceof Response) return peek;
  if (peek && options.beforeServe) {
    const answer = options.beforeServe(Array.isArray(peek.body) ? peek.body : [peek.body]);
    if (answer) return answer;
  }
  if (peek && Array.isArray(peek.body) && peek.messages > config.MCP_MAX_BATCH_MESSAGES) {
    return batchTooLarge(peek.body, config.MCP_MAX_BATCH_MESSAGES);
  }
  const modern = peek !== undefined && !(await isLegacyRequest(request, peek.body));
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId && !modern && !peek?.initializeCapabilities) {
    const session = await readMcpSession(sessionId);
    if (!session) {
      return jsonRpcError(404, -32001, "Session not found (unknown or expired): send initialize again");
    }
    ctx.clientCapabilities = session.capabilities;
  }
  const messages = Math.max(1, peek?.messages ?? 1);
  let limitHeaders: Record<string, string> = {};
  if (!ctx.headerCaller) {
    if (peek?.keyArgument) ctx.limitDeferred = true;
    else limitHeaders = await enforceGeneralLimit(null, ctx.ip, messages);
  } else if (messages > 1) {
    limitHeaders = await enforceGeneralLimit(ctx.headerCaller, ctx.ip, messages - 1);
  }
  if (modern) {
    const params = (peek.body as { params?: unknown } | null)?.params;
    if (params && typeof params === "object" && !Array.isArray(params)) {
      ctx.rawParams = params as Record<string, unknown>;
    }
    const response = await serveModern(request, peek.body, ctx, config);
    for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
    return response;
  }
  const server = createMcpServer(ctx, { tasks: servesTasks(request, peek?.initializeVersion) });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: config.MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, peek ? { parsedBody: peek.body } : undefined);
    for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
    if (peek?.initializeCapabilities && response.status === 200) {
      response.headers.set("mcp-session-id", await openMcpSession(peek.initializeCapabilities));
    }
    return response;
  } finally {
    void server.close();
  }
}

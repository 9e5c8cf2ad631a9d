/**
 * The MCP endpoint's transport (spec: protocol revision 2025-03-26, Streamable HTTP,
 * stateless): a fresh server and transport per request with no session id and JSON
 * responses, built on the official SDK's Web-standard transport. Newer revisions are
 * negotiated where the SDK supports them.
 *
 * DNS-rebinding protection (the SDK wires it only for Express): a request whose `Host`
 * is not an allowed host, or whose `Origin` is not an allowed origin, gets 403 with a
 * JSON-RPC error. Allowed: the host and origin of PUBLIC_BASE_URL, MCP_ALLOWED_HOSTS /
 * MCP_ALLOWED_ORIGINS, and localhost forms outside production.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type Config, productionProfile, publicBaseUrl } from "../config.js";
import { errorCodeOf } from "../http/errors.js";
import { chargeFailedAuthentication } from "../http/handler.js";
import { rejectNulBytes } from "../http/validation.js";
import { API_VERSION } from "../openapi/document.js";
import { type ToolContext, toolError } from "./tool-kit.js";
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

/** Builds the per-request server with every tool bound to `ctx`. */
export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(
    {
      name: "physical-task-execution-service",
      title: "Physical Task Execution Service",
      version: API_VERSION,
    },
    {
      capabilities: { tools: {} },
      instructions:
        "Hire human operators for real-world tasks in Quebec. Start with list_services and get_estimate; " +
        "register_api_key for a key; submit_task (sandbox without a key); poll check_task_status. Prices in CAD.",
    },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>) => {
        try {
          rejectNulBytes(args);
          return await tool.run(args, ctx);
        } catch (error) {
          if (errorCodeOf(error) === "UNAUTHORIZED") {
            // A failed key costs the IP like any failed authentication (lib/http/handler.ts).
            try {
              await chargeFailedAuthentication(ctx.ip);
            } catch (limited) {
              return toolError(limited, ctx.requestId);
            }
          }
          return toolError(error, ctx.requestId);
        }
      },
    );
  }
  return server;
}

/** Answers one MCP HTTP request (POST, GET or DELETE). */
export async function handleMcpRequest(
  request: Request,
  ctx: ToolContext,
  config: Config,
): Promise<Response> {
  const refused = checkHostAndOrigin(request, config);
  if (refused) return refused;
  const server = createMcpServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: config.MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    void server.close();
  }
}

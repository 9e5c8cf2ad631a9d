/**
 * The per-request MCP server (the SDK's low-level `Server`; the endpoint is stateless, so one is
 * built for every HTTP request): tools (lib/mcp/tools.ts), proof files as resources, and MCP
 * Tasks over the service's tasks (lib/mcp/task-methods.ts).
 *
 * Protocol rules kept here (revision 2025-11-25, older clients unaffected):
 * - `tools/list` gives each tool its input and output JSON Schemas (from the same zod schemas
 *   as the HTTP API), the service's `icons` and, for `submit_task`, `execution.taskSupport: "optional"`;
 *   the implementation (`initialize`) has `description`, `websiteUrl` and `icons` too.
 * - `tools/call` of an unknown tool is a JSON-RPC error -32602 (the revision's "unknown tool"),
 *   not a tool result. Bad arguments and failures of the tool are `isError` results carrying
 *   the HTTP API's error envelope in `_meta` and in their text, never in `structuredContent`
 *   (which clients validate against the output schema, errors included); a successful result's
 *   `structuredContent` is checked against the tool's output schema.
 * - A task-augmented `tools/call` (params.task) of `submit_task` creates the service task and
 *   answers `{ task }`, the MCP task whose id is the task id; an anonymous caller's access
 *   token comes in the result's `_meta.access_token`. Failures are JSON-RPC errors there (there
 *   is no task to report them through). Other tools refuse task augmentation (-32602).
 * - The `tasks` capability (list, cancel, tools/call requests) is advertised when the negotiated
 *   revision knows it (2025-11-25 and later); older clients see the same tools as before.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { getConfig, publicBaseUrl } from "../config.js";
import { API_VERSION } from "../descriptors/version.js";
import { DomainError } from "../errors.js";
import { ApiError } from "../http/errors.js";
// Registers the outbox kick with the state layer's "events committed" hook (lib/db/after-events.ts).
import "../events/kick-outbox.js";
import { chargeFailedAuthentication } from "../http/handler.js";
import { parseOrThrow, rejectNulBytes } from "../http/validation.js";
import { APP_ONLY_TOOLS, declaresUiExtension, uiToolMeta } from "./app/task-card.js";
import { registerTaskMethods } from "./task-methods.js";
import { protocolTask } from "./task-results.js";
import type { ToolDefinition } from "./tool-kit.js";
import {
  chargeDeferredLimit,
  errorEnvelopeOf,
  protocolError,
  type ToolContext,
  toolError,
} from "./tool-kit.js";
import { TOOLS } from "./tools.js";

/** The first protocol revision with Tasks. */
export const TASKS_REVISION = "2025-11-25";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Advertise and serve the `tasks` capability (false for a client of an older revision). */
  tasks: boolean;
}

const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** A JSON Schema of `schema` whose root is an object, as tools/list requires. */
function objectJsonSchema(schema: z.ZodType, io: "input" | "output"): Tool["inputSchema"] {
  const json = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  // A schema with an id is written as a $ref at the root (and a union as anyOf): say "object" there too.
  return { ...json, type: "object" } as Tool["inputSchema"];
}

/**
 * The service's icon (public/mark.svg) at the public base URL, for the server implementation and
 * every tool (revision 2025-11-25 `icons`).
 */
export function serviceIcons(): NonNullable<Tool["icons"]> {
  return [{ src: `${publicBaseUrl(getConfig())}/mark.svg`, mimeType: "image/svg+xml", sizes: ["any"] }];
}

/** The tools/list entries, computed once per process and base URL (the tools and their schemas are static). */
let toolList: { base: string; tools: Tool[] } | undefined;

/**
 * The tools/list entries. Tools that show the task card carry its `_meta.ui` (lib/mcp/app/task-card.ts);
 * the card's app-only helper is listed only to a client that declared the MCP Apps extension
 * (`apps`), so a model behind any other client never sees it.
 */
export function listTools(options: { apps: boolean } = { apps: false }): Tool[] {
  const base = publicBaseUrl(getConfig());
  if (toolList?.base !== base) {
    const icons = serviceIcons();
    const tools = TOOLS.map((tool) => {
      const meta = uiToolMeta(tool.name);
      return {
        name: tool.name,
        title: tool.title,
        icons,
        description: tool.description,
        inputSchema: objectJsonSchema(z.object(tool.input), "input"),
        outputSchema: objectJsonSchema(tool.output, "output"),
        annotations: tool.annotations,
        ...(tool.taskSupport ? { execution: { taskSupport: tool.taskSupport } } : {}),
        ...(meta ? { _meta: meta } : {}),
      };
    });
    toolList = { base, tools };
  }
  return options.apps ? toolList.tools : toolList.tools.filter((t) => !APP_ONLY_TOOLS.has(t.name));
}

/**
 * Runs `tool` with raw `args`: validation (the tool's input schema; NUL refused), the deferred
 * rate limit, the adapter, and the output schema check. Failures become `isError` results; a
 * failed key also costs the IP like any failed authentication (lib/http/limits.ts).
 */
export async function runTool(
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    const raw = (args ?? {}) as Record<string, unknown>;
    rejectNulBytes(raw);
    await chargeDeferredLimit(ctx, raw.api_key);
    const parsed = parseOrThrow(z.object(tool.input), raw) as Record<string, unknown>;
    const result = await tool.run(parsed, ctx, meta);
    if (!result.isError) {
      const checked = tool.output.safeParse(result.structuredContent);
      if (!checked.success) {
        throw new Error(`Output of ${tool.name} does not match its outputSchema: ${checked.error.message}`);
      }
    }
    return result;
  } catch (error) {
    if ((error instanceof ApiError || error instanceof DomainError) && error.code === "UNAUTHORIZED") {
      try {
        await chargeFailedAuthentication(ctx.ip);
      } catch (limited) {
        return toolError(limited, ctx.requestId);
      }
    }
    return toolError(error, ctx.requestId);
  }
}

/** A task-augmented call of `tool`: its result as the MCP task of the service task it created. */
async function createTask(tool: ToolDefinition, args: unknown, ctx: ToolContext): Promise<CreateTaskResult> {
  const result = await runTool(tool, args, ctx);
  const data = result.structuredContent as { task_id?: string; access_token?: string } | undefined;
  if (result.isError || !data?.task_id) {
    const text = result.content[0]?.type === "text" ? result.content[0].text : "The tool failed";
    throw new McpError(ErrorCode.InvalidParams, text, errorEnvelopeOf(result));
  }
  const { getTaskOrThrow } = await import("../tasks/state/apply-transition.js");
  const task = await getTaskOrThrow(data.task_id);
  return {
    task: protocolTask(task),
    _meta: {
      "io.modelcontextprotocol/model-immediate-response":
        result.content[0]?.type === "text" ? result.content[0].text : "",
      ...(data.access_token ? { access_token: data.access_token } : {}),
    },
  };
}

/** Builds the per-request server with every tool and method bound to `ctx`. */
export function createMcpServer(ctx: ToolContext, options: McpServerOptions = { tasks: true }): Server {
  const capabilities: ServerCapabilities = {
    tools: {},
    resources: {},
    ...(options.tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
  };
  const server = new Server(
    {
      name: "physical-task-execution-service",
      title: "Physical Task Execution Service",
      version: API_VERSION,
      description:
        "Hire human operators in Quebec for real-world tasks (photos, inspections, deliveries): estimates, " +
        "submission, MCP Tasks for hours-long work, proof files as resources, prepaid or USDC billing.",
      websiteUrl: publicBaseUrl(getConfig()),
      icons: serviceIcons(),
    },
    {
      capabilities,
      instructions:
        "Hire human operators for real-world tasks in Quebec. Start with list_services and get_estimate; " +
        "register_api_key for a key; submit_task (sandbox without a key: keep its access_token) — call it as an " +
        "MCP task and poll tasks/get, or poll check_task_status; once approved, pay with pay_task (x402: the " +
        'signed payment in params._meta["x402/payment"]) or a USDC transfer; proof files are resources (resources/read). ' +
        "Prices in CAD.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: listTools({ apps: declaresUiExtension(ctx.clientCapabilities) }),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args, task, _meta } = request.params;
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name} (tools/list lists the tools)`);
    }
    if (task) {
      if (!options.tasks || !tool.taskSupport) {
        throw new McpError(ErrorCode.InvalidParams, `Tool ${name} does not support task-augmented calls`);
      }
      try {
        return await createTask(tool, args, ctx);
      } catch (error) {
        throw protocolError(error, ctx.requestId);
      }
    }
    return runTool(tool, args, ctx, _meta as Record<string, unknown> | undefined);
  });
  registerTaskMethods(server, ctx, options);
  return server;
}

/**
 * The per-request MCP server of protocol revision 2026-07-28 (the SDK v2's low-level `Server`,
 * served by its `createMcpHandler` from lib/mcp/handle-request.ts; docs/mcp.md "Protocol
 * revisions"). The same tools, resources and task access as the 2025 path (lib/mcp/server.ts,
 * lib/mcp/task-methods.ts), in the revision's own terms:
 *
 * - no `initialize`, no session: every request carries its revision, client info and client
 *   capabilities in `_meta`; `server/discover` answers our capabilities (with the Tasks extension)
 *   and the header checks (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) are the SDK's;
 * - `submit_task` answers a task handle to a client that declared the Tasks extension
 *   (lib/mcp/modern/tasks-extension.ts), its ordinary result to one that did not;
 * - `pay_task` of a task awaiting payment, without an x402 payment, asks a client that takes URL
 *   elicitation to pay through a multi-round-trip result (`input_required`: the pay page as a URL
 *   elicitation, a sealed `requestState`, lib/mcp/modern/request-state.ts; also when x402 is off,
 *   the page taking a USDC transfer); the retry answers the task's state then: paid → its status
 *   (never a second payment), still unpaid → the x402 PaymentRequired result (x402 off: the status
 *   with its payment instructions);
 * - cacheable results carry cache hints ({@link CACHE_HINTS}): discovery is the same for everyone
 *   (`public`, an hour); the tool list, resource list and templates depend on whether the request
 *   declares the MCP Apps extension (`io.modelcontextprotocol/ui`, decision 42) and the revision's
 *   cache scope has no "vary", so they are the requesting client's (`private`, an hour); a read
 *   resource is the caller's (`private`, five minutes: proof files and receipts never change).
 */

import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  type ServerContext,
  Server as ServerV2,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { getConfig, publicBaseUrl } from "../../config.js";
import { API_VERSION } from "../../descriptors/version.js";
import { declaresUiExtension, TASK_CARD_RESOURCE, TASK_CARD_TEMPLATE } from "../app/task-card.js";
import { payingCredential } from "../pay-tool.js";
import { listTools, runTool, serviceIcons } from "../server.js";
import { takesUrlElicitation } from "../session.js";
import { credentialParams, RESOURCE_TEMPLATES, readTaskResource } from "../task-methods.js";
import { errorEnvelopeOf, resolveCaller, type ToolContext } from "../tool-kit.js";
import { TOOLS } from "../tools.js";
import { asProtocolError } from "./errors.js";
import {
  callerTag,
  checkRequestState,
  mintRequestState,
  type RequestStateClaims,
  requestDigest,
  verifyRequestState,
} from "./request-state.js";
import {
  createTaskResult,
  declaresTasksExtension,
  paymentElicitation,
  registerTasksExtension,
  TASKS_EXTENSION,
} from "./tasks-extension.js";

/** The protocol revision this server speaks. */
export const MODERN_REVISION = "2026-07-28";

const HOUR_MS = 3_600_000;

/**
 * Cache hints of the cacheable results (revision 2026-07-28 `ttlMs` / `cacheScope`; SEP-2549
 * defines only `public` and `private`, no key to vary on). The three lists answer differently to a
 * request declaring `io.modelcontextprotocol/ui`, so a shared cache must not keep them: `private`.
 */
export const CACHE_HINTS = {
  "tools/list": { ttlMs: HOUR_MS, cacheScope: "private" },
  "resources/list": { ttlMs: HOUR_MS, cacheScope: "private" },
  "resources/templates/list": { ttlMs: HOUR_MS, cacheScope: "private" },
  "server/discover": { ttlMs: HOUR_MS, cacheScope: "public" },
  "resources/read": { ttlMs: 300_000, cacheScope: "private" },
} as const;

const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

const INSTRUCTIONS =
  "Hire human operators for real-world tasks in Quebec. Start with list_services and get_estimate; " +
  "register_api_key for a key; submit_task (sandbox without a key: keep its access_token). With the Tasks " +
  "extension (io.modelcontextprotocol/tasks) submit_task answers a task: poll tasks/get at pollIntervalMs; " +
  "without it, poll check_task_status. Once approved, pay: pay_task (x402: the signed payment in " +
  'params._meta["x402/payment"]; a client taking URL elicitation is sent to the pay page), or a USDC transfer. ' +
  "Proof files are resources (resources/read). Prices in CAD.";

/** The client capabilities a request declared in its `_meta` envelope. */
function declaredCapabilities(sctx: ServerContext): ClientCapabilities {
  const envelope = sctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return (caps && typeof caps === "object" ? caps : {}) as ClientCapabilities;
}

/**
 * `pay_task` on this revision (see the module comment). `args` are the raw arguments; the x402
 * payment, when any, is in `meta`.
 */
async function payTask(
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  ctx: ToolContext,
  sctx: ServerContext,
) {
  const tool = TOOLS_BY_NAME.get("pay_task")!;
  const state = sctx.mcpReq.requestState<RequestStateClaims>();
  const taskId = typeof args.task_id === "string" ? args.task_id.trim() : "";
  const accessToken = typeof args.access_token === "string" ? args.access_token : undefined;
  const digest = requestDigest(tool.name, args);
  if (state) {
    // A retry after the person was sent to the pay page: the state must continue this very call.
    const caller = await resolveCaller(
      ctx,
      typeof args.api_key === "string" ? args.api_key : undefined,
    ).catch(() => null);
    checkRequestState(state, { tool: tool.name, digest, who: callerTag(caller?.keyId, accessToken) });
    const { awaitsPayment } = await import("../../tasks/state/transitions.js");
    const { getTaskOrThrow } = await import("../../tasks/state/apply-transition.js");
    const task = await getTaskOrThrow(taskId);
    const { x402Enabled } = await import("../../payments/x402/protocol.js");
    if (!awaitsPayment(task) || !x402Enabled()) {
      // Paid (or otherwise moved on) meanwhile: the task's state, never a second payment; without
      // x402, the state with its payment instructions.
      return runTool(TOOLS_BY_NAME.get("check_task_status")!, args, ctx);
    }
    return runTool(tool, args, ctx, meta);
  }
  const result = await runTool(tool, args, ctx, meta);
  const envelope = errorEnvelopeOf(result);
  if (!envelope || meta?.["x402/payment"] !== undefined) return result;
  if (!takesUrlElicitation(declaredCapabilities(sctx))) return result;
  const { x402Enabled } = await import("../../payments/x402/protocol.js");
  const x402Off = envelope.error.code === "NOT_FOUND" && !x402Enabled();
  if (envelope.error.code !== "PAYMENT_REQUIRED" && !x402Off) return result;
  const { getTaskOrThrow } = await import("../../tasks/state/apply-transition.js");
  const task = await getTaskOrThrow(taskId).catch(() => undefined);
  if (!task) return result;
  const caller = await resolveCaller(ctx, typeof args.api_key === "string" ? args.api_key : undefined);
  if (x402Off) {
    // Without x402 the tool stopped before looking at the task: the pay page (a USDC transfer) is
    // still the way, for the task's owner, when the task awaits its payment.
    const [{ taskAccess }, { awaitsPayment }] = await Promise.all([
      import("../../tasks/state/task-access.js"),
      import("../../tasks/state/transitions.js"),
    ]);
    const access = await taskAccess(task, payingCredential(caller, accessToken));
    if (access === "public" || task.sandbox || !awaitsPayment(task)) return result;
  }
  const { key, request } = await paymentElicitation(task);
  // Written out rather than by the SDK's inputRequired(), which keeps no _meta: the x402 payment
  // rides there for an agent that would rather sign than send a person to the page.
  return {
    resultType: "input_required" as const,
    inputRequests: { [key]: request },
    requestState: await mintRequestState(
      { tool: tool.name, task_id: task.id, who: callerTag(caller?.keyId, accessToken), digest },
      task.paymentExpiresAt,
    ),
    ...(envelope.error.x402 ? { _meta: { x402: envelope.error.x402 } } : {}),
  };
}

/** Builds the per-request server of revision 2026-07-28 with every tool and method bound to `ctx`. */
export function createModernServer(ctx: ToolContext): ServerV2 {
  const server = new ServerV2(
    {
      name: "physical-task-execution-service",
      title: "Physical Task Execution Service",
      version: API_VERSION,
      description:
        "Hire human operators in Quebec for real-world tasks (photos, inspections, deliveries): estimates, " +
        "submission, tasks for hours-long work, proof files as resources, prepaid or USDC billing.",
      websiteUrl: publicBaseUrl(getConfig()),
      icons: serviceIcons(),
    },
    {
      capabilities: { tools: {}, resources: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
      requestState: { verify: (state) => verifyRequestState(state) },
    },
  );
  server.setRequestHandler(
    "tools/list",
    (_request, sctx) =>
      ({ tools: listTools({ apps: declaresUiExtension(declaredCapabilities(sctx)) }) }) as never,
  );
  server.setRequestHandler("tools/call", async (request, sctx) => {
    const { name, arguments: args, _meta } = request.params;
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) throw new ProtocolError(-32602, `Unknown tool: ${name} (tools/list lists the tools)`);
    const capabilities = declaredCapabilities(sctx);
    ctx.clientCapabilities = capabilities;
    const raw = (args ?? {}) as Record<string, unknown>;
    const meta = _meta as Record<string, unknown> | undefined;
    if (tool.name === "pay_task") {
      try {
        return (await payTask(raw, meta, ctx, sctx)) as never;
      } catch (error) {
        const { toolError } = await import("../tool-kit.js");
        return toolError(error, ctx.requestId) as never;
      }
    }
    const result: CallToolResult = await runTool(tool, raw, ctx, meta);
    if (!tool.taskSupport || result.isError || !declaresTasksExtension(capabilities)) return result as never;
    const data = result.structuredContent as { task_id?: string; access_token?: string } | undefined;
    if (!data?.task_id) return result as never;
    const { getTaskOrThrow } = await import("../../tasks/state/apply-transition.js");
    return createTaskResult(await getTaskOrThrow(data.task_id), data.access_token) as never;
  });
  // The task card is listed to a client that declares the MCP Apps extension (the extension's
  // rule for this revision); reading it needs no declaration.
  server.setRequestHandler("resources/templates/list", (_request, sctx) => ({
    resourceTemplates: declaresUiExtension(declaredCapabilities(sctx))
      ? [...RESOURCE_TEMPLATES, TASK_CARD_TEMPLATE]
      : RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler("resources/list", (_request, sctx) => ({
    resources: declaresUiExtension(declaredCapabilities(sctx)) ? [TASK_CARD_RESOURCE] : [],
  }));
  server.setRequestHandler("resources/read", async (request) => {
    const params = z
      .looseObject({ uri: z.string(), ...credentialParams })
      .safeParse({ ...ctx.rawParams, ...request.params });
    if (!params.success) throw new ProtocolError(-32602, "resources/read needs params.uri");
    return asProtocolError(() => readTaskResource(ctx, params.data), ctx.requestId) as never;
  });
  registerTasksExtension(server, ctx);
  return server;
}

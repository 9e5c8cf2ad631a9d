/**
 * /mcp (rewritten to /api/mcp-oauth) — the MCP endpoint for hosted assistants: the same server as
 * /api/mcp, reached with an OAuth access token (lib/oauth/bearer.ts) instead of a key.
 */
import type { Scope } from "../lib/db/schema/enums.js";
import { ApiError } from "../lib/http/errors.js";
import { chargeFailedAuthentication, endpoint, enforceGeneralLimit, route } from "../lib/http/handler.js";
import { hasScope } from "../lib/keys/credentials.js";
import { handleMcpRequest } from "../lib/mcp/handle-request.js";
import { TOOLS } from "../lib/mcp/tools.js";
import { authenticateBearer, BearerChallenge, insufficientScope } from "../lib/oauth/bearer.js";
import { mcpOAuthGetOperation, mcpOAuthPostOperation } from "../lib/oauth/operations.js";

const TOOL_SCOPES = new Map(TOOLS.map((t) => [t.name, t.scope]));

/**
 * The scope of each protocol method over tasks and resources (lib/mcp/task-methods.ts), as the
 * tool doing the same needs it: reads as check_task_status and list_my_tasks (`audit_only`), a
 * cancellation as cancel_task (`task_cancel`). The same method names serve both protocol revisions.
 */
const METHOD_SCOPES = new Map<string, Scope>([
  ["tasks/get", "audit_only"],
  ["tasks/result", "audit_only"],
  ["tasks/list", "audit_only"],
  ["resources/read", "audit_only"],
  ["tasks/cancel", "task_cancel"],
  // Revision 2026-07-28's Tasks extension: answering a task's input requests changes nothing here
  // (decision 34); it needs what reading the task needs.
  ["tasks/update", "audit_only"],
]);

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(mcpOAuthPostOperation, async ({ request, ip, requestId, config }) => {
    let caller: Awaited<ReturnType<typeof authenticateBearer>>;
    try {
      caller = await authenticateBearer(request, config);
    } catch (error) {
      if (!(error instanceof BearerChallenge)) throw error;
      // A refused token costs the IP's anonymous budget, like a refused key.
      if (request.headers.has("authorization")) await chargeFailedAuthentication(ip);
      return error.toResponse();
    }
    const limitHeaders = await enforceGeneralLimit(caller, ip);
    const response = await handleMcpRequest(
      request,
      { headerCaller: caller, headerKeyInvalid: false, ip, requestId },
      config,
      {
        beforeServe: (messages) => {
          // Every scope the call needs (all the tools of a batch): one challenge names them all.
          const needed = new Set<Scope>();
          for (const message of messages) {
            const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
            if (typeof method !== "string") continue;
            const scope =
              method === "tools/call"
                ? typeof params?.name === "string"
                  ? TOOL_SCOPES.get(params.name)
                  : undefined
                : METHOD_SCOPES.get(method);
            if (scope) needed.add(scope);
          }
          if ([...needed].every((scope) => hasScope(caller, scope))) return undefined;
          return insufficientScope(config, request, [...needed], caller.scopes).toResponse();
        },
      },
    );
    for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
    return response;
  }),
  GET: endpoint(mcpOAuthGetOperation, () => {
    throw new ApiError("METHOD_NOT_ALLOWED", "Method not allowed: this server is stateless; use POST", {
      headers: { allow: "POST" },
    });
  }),
});

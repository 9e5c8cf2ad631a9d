/**
 * The MCP tools (spec "POST /api/mcp"): each a thin adapter over the same `lib`
 * functions as the HTTP endpoints, with input schemas built from the same zod schemas.
 * Public tools: list_services, get_estimate, get_capabilities, get_reputation,
 * register_api_key. The others need a key (x-api-key header or `api_key` argument)
 * with the scope of the matching HTTP operation; `submit_task` without a key is forced
 * into sandbox mode and says so.
 */
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { getBilling } from "../billing/get-billing.js";
import { preAuthorize } from "../billing/preauthorize.js";
import {
  billingQuerySchema,
  billingResponseSchema,
  preAuthorizeBodySchema,
  preAuthorizeResponseSchema,
} from "../billing/schemas.js";
import { findServices } from "../catalog/find-services.js";
import { servicesListResponseSchema } from "../catalog/schemas.js";
import { getConfig } from "../config.js";
import type { Scope } from "../db/schema/enums.js";
import { ApiError } from "../http/errors.js";
import { parseOrThrow } from "../http/validation.js";
import { type Caller, hasScope } from "../keys/authenticate.js";
import { createApiKey } from "../keys/create-api-key.js";
import { apiKeyCreatedSchema, createApiKeyBodySchema } from "../keys/schemas.js";
import { getEstimate } from "../pricing/get-estimate.js";
import { estimateFields, estimateResponseSchema } from "../pricing/schemas.js";
import { getLimiter, rateLimitHeaders, rateLimitSubject } from "../ratelimit/limiter.js";
import {
  scoreQuerySchema,
  scoreResponseSchema,
  scoreSchema,
  submitScoreBodySchema,
} from "../scores/schemas.js";
import { getScore, submitScore } from "../scores/task-scores.js";
import { buildCapabilities } from "../system/capabilities.js";
import { capabilitiesSchema } from "../system/schemas.js";
import { listKeyTasks, MAX_TASK_PAGE } from "../tasks/caller-tasks.js";
import { cancelTask } from "../tasks/cancel-task.js";
import { readTaskStatus } from "../tasks/read-task-status.js";
import { SERVICE_TYPES, taskSubmissionSchema } from "../tasks/state/schemas.js";
import { taskCreatedSchema } from "../tasks/state/view-schemas.js";
import { submitTask } from "../tasks/submit-task.js";
import { nextPollSeconds, taskStatusView } from "../tasks/task-view.js";
import { registerWebhook } from "../webhooks/register-webhook.js";
import { createWebhookBodySchema, webhookCreatedSchema } from "../webhooks/schemas.js";
import { followsTask, mcpTaskStatusSchema, PROTOCOL_STATUS, taskToolResult } from "./task-results.js";
import {
  accessTokenArgument,
  apiKeyArgument,
  requireCaller,
  resolveCaller,
  type ToolContext,
  toolResult,
} from "./tool-kit.js";

/** One tool: its MCP description and its adapter. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  /** Schema of `structuredContent` of a successful result (the tool's `outputSchema`). */
  output: z.ZodType;
  annotations: ToolAnnotations;
  /**
   * `optional`: a task-augmented call (protocol revision 2025-11-25) answers with the MCP task
   * of the service task the tool created (its `structuredContent.task_id`); absent: no tasks.
   */
  taskSupport?: "optional";
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
}

/** Annotations of a tool that changes state (not idempotent, not destructive). */
function writeTool(title: string, openWorldHint = false): ToolAnnotations {
  return { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint, title };
}

/**
 * Splits the `api_key` argument off `args` and authenticates it (or the header key) with `scope`.
 * @throws ApiError UNAUTHORIZED, FORBIDDEN (see requireCaller)
 */
async function keyedArguments(
  args: Record<string, unknown>,
  ctx: ToolContext,
  scope: Scope,
): Promise<{ caller: Caller; rest: Record<string, unknown> }> {
  const { api_key, ...rest } = args as { api_key?: string } & Record<string, unknown>;
  return { caller: await requireCaller(ctx, api_key, scope), rest };
}

const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
};

/** The `task_id` argument. */
const taskIdArgument = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "The task_id returned by submit_task." });

/**
 * `submit_task`'s result: the creation response and whether the call was forced into sandbox;
 * called as an MCP task, its tasks/result is the task's status (as check_task_status gives it).
 */
const submittedSchema = z.union([
  taskCreatedSchema.extend({ forced_sandbox: z.boolean().optional() }),
  mcpTaskStatusSchema,
]);

/** `list_my_tasks`'s result. */
const myTasksSchema = z.object({
  tasks: z.array(
    z.object({
      task_id: z.string(),
      status: z.string(),
      mcp_status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
      service_type: z.string(),
      sandbox: z.boolean(),
      estimate_cad: z.number().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      next_poll_seconds: z.number().int().meta({ description: "Seconds until a useful status check." }),
    }),
  ),
  next_cursor: z.string().nullable().meta({ description: "Cursor of the next page; null on the last page." }),
});

/** The tool list, in the spec's order, then the tools MCP adds (cancel_task, list_my_tasks). */
export const TOOLS: ToolDefinition[] = [
  {
    name: "list_services",
    title: "List services",
    description:
      "List the five physical-task services offered in Quebec (site audits, marketplace logistics, auction proxy, " +
      "IT level-1 field support, courier), with typical durations, price ranges in CAD and, unless include_contract " +
      "is false, each service's input schema, SLA, pricing and cancellation policy. Use it first to pick service_type.",
    input: {
      id: z.enum(SERVICE_TYPES).optional().meta({ description: "Only this service (SVC-01..SVC-05)." }),
      include_contract: z
        .boolean()
        .default(true)
        .meta({ description: "false omits the contracts (shorter)." }),
    },
    output: servicesListResponseSchema.partial({ _links: true }),
    annotations: { ...readOnly, title: "List services" },
    async run(args) {
      const id = args.id === undefined ? undefined : String(args.id);
      return toolResult(findServices({ id, includeContract: args.include_contract !== false }));
    },
  },
  {
    name: "get_estimate",
    title: "Estimate a price",
    description:
      "Estimate the price in CAD (exact to the cent) of a task of `hours` on site at `location` (a city or full " +
      "address in Quebec; omitted = the Terrebonne hub): 50 + hours×100 + travel time×100 + round-trip km×0.90, " +
      "×1.25 when urgent. Also gives the USDC equivalent and whether the place is in the service zone.",
    input: estimateFields,
    output: estimateResponseSchema,
    annotations: { ...readOnly, title: "Estimate a price" },
    async run(args) {
      const query = parseOrThrow(z.object(estimateFields), args);
      return toolResult(await getEstimate(query));
    },
  },
  {
    name: "submit_task",
    title: "Submit a task",
    description:
      "Submit a real-world task to be reviewed by a human operator and executed in Quebec. Returns task_id and " +
      "deadlines; poll check_task_status (or call it as an MCP task and poll tasks/get). Without an API key the task " +
      "is created in SANDBOX mode (simulated, free, advances one step per status check) and you get an access_token: " +
      "pass it to check_task_status and cancel_task. With a key (scope task_create), set sandbox=true to test anyway. " +
      "Prices are CAD; payment instructions (USDC) come after human approval.",
    input: {
      ...taskSubmissionSchema.shape,
      sandbox: z
        .boolean()
        .default(false)
        .meta({ description: "Create a simulated task (no payment, no e-mail)." }),
      api_key: apiKeyArgument,
    },
    output: submittedSchema,
    annotations: writeTool("Submit a task", true),
    taskSupport: "optional",
    async run(args, ctx) {
      const { api_key, sandbox, ...rest } = args as { api_key?: string; sandbox?: boolean } & Record<
        string,
        unknown
      >;
      const caller = await resolveCaller(ctx, api_key);
      if (caller && !hasScope(caller, "task_create")) {
        throw new ApiError("FORBIDDEN", "submit_task requires the task_create scope");
      }
      const body = parseOrThrow(taskSubmissionSchema, rest);
      const forced = !caller;
      const created = await submitTask({ body, caller, agent: null, sandbox: forced || sandbox === true });
      const note = forced
        ? "No API key was given, so this task was created in SANDBOX mode (simulated, non-billable). Register a key with register_api_key to submit real tasks."
        : undefined;
      return toolResult({ ...created, ...(forced ? { forced_sandbox: true } : {}) }, note);
    },
  },
  {
    name: "check_task_status",
    title: "Check a task's status",
    description:
      "Read a task's status, payment instructions (exact USDC amount, networks, wallet, expiry) once approved, " +
      "counter-offer, operator notes and proof files once completed (as resource links: read them with " +
      "resources/read; each carries its SHA-256), history and polling advice (_polling.next_poll_seconds). " +
      "Needs an API key, or the task's access_token for a task submitted without a key. Sandbox tasks advance one " +
      "step per call.",
    input: {
      task_id: taskIdArgument,
      access_token: accessTokenArgument,
      api_key: apiKeyArgument,
    },
    output: mcpTaskStatusSchema,
    annotations: writeTool("Check a task's status"),
    async run(args, ctx) {
      const taskId = String(args.task_id);
      const accessToken = args.access_token as string | undefined;
      if (accessToken) {
        const caller = await resolveCaller(ctx, args.api_key as string | undefined);
        const { task, view } = await readTaskStatus(taskId, caller, {
          proofContent: false,
          authorize: (t) => {
            if (!followsTask(t, { caller, accessToken })) {
              throw new ApiError("FORBIDDEN", "This access_token does not belong to this task");
            }
          },
        });
        return taskToolResult(task, view, caller);
      }
      const caller = await requireCaller(ctx, args.api_key as string | undefined, "audit_only");
      const { task, view } = await readTaskStatus(taskId, caller, { proofContent: false });
      return taskToolResult(task, view, caller);
    },
  },
  {
    name: "score_task",
    title: "Rate a finished task",
    description:
      "Rate a completed or failed task you submitted, once: rating 1-5, optional outcome and feedback. " +
      "Needs the key that submitted the task (scope task_create).",
    input: { ...submitScoreBodySchema.shape, api_key: apiKeyArgument },
    output: scoreSchema,
    annotations: writeTool("Rate a finished task"),
    async run(args, ctx) {
      const { caller, rest } = await keyedArguments(args, ctx, "task_create");
      const score = await submitScore(caller, parseOrThrow(submitScoreBodySchema, rest));
      return toolResult({ ...score });
    },
  },
  {
    name: "get_capabilities",
    title: "Platform capabilities",
    description:
      "The machine-readable manifest: services, service zone (GeoJSON), known locations with distances, " +
      "operational hours, response times, languages, currencies, authentication and scopes, features, endpoints.",
    input: {},
    output: capabilitiesSchema,
    annotations: { ...readOnly, title: "Platform capabilities" },
    async run() {
      return toolResult(buildCapabilities(getConfig()));
    },
  },
  {
    name: "register_api_key",
    title: "Register an API key",
    description:
      "Create an API key (shown once) for `name` and a `contact` e-mail; default scopes audit_only and task_create. " +
      "Send it as the x-api-key header or the api_key argument of other tools. Limited to 3 keys per IP per hour. " +
      "The contact is not verified: the key pays in USDC until a prepaid account's owner links it to the account.",
    input: { name: createApiKeyBodySchema.shape.name, contact: createApiKeyBodySchema.shape.contact },
    output: apiKeyCreatedSchema,
    annotations: writeTool("Register an API key"),
    async run(args, ctx) {
      const body = parseOrThrow(
        z.strictObject({
          name: createApiKeyBodySchema.shape.name,
          contact: createApiKeyBodySchema.shape.contact,
        }),
        args,
      );
      // Counted under the same subject as POST /api/api-keys (an IPv6 client for its whole /64).
      const limit = await getLimiter("key_creation").limit(rateLimitSubject(ctx.ip));
      if (!limit.success) {
        throw new ApiError("RATE_LIMITED", `Rate limit exceeded: ${limit.limit} API keys per IP per hour`, {
          extra: { retry_after_seconds: Number(rateLimitHeaders(limit)["retry-after"]) },
        });
      }
      const created = await createApiKey({ ...body, ip: ctx.ip });
      return toolResult({ ...created }, "Store api_key now: it is shown only once.");
    },
  },
  {
    name: "register_webhook",
    title: "Register a webhook",
    description:
      "Register an HTTPS URL that receives signed POSTs (X-Service-Signature: sha256=HMAC(secret, timestamp.body)) for " +
      "the listed events of your tasks (task.accepted, task.paid, task.completed, …). Returns the signing secret once. " +
      "At most 5 per key; needs scope task_create.",
    input: { ...createWebhookBodySchema.shape, api_key: apiKeyArgument },
    output: webhookCreatedSchema,
    annotations: writeTool("Register a webhook", true),
    async run(args, ctx) {
      const { caller, rest } = await keyedArguments(args, ctx, "task_create");
      const created = await registerWebhook(caller, parseOrThrow(createWebhookBodySchema, rest));
      return toolResult({ ...created }, "Store secret now: it is shown only once.");
    },
  },
  {
    name: "get_reputation",
    title: "Service reputation",
    description:
      "Aggregate ratings of finished tasks (count, average, distribution, per service), or one task's score with task_id.",
    input: scoreQuerySchema.shape,
    output: scoreResponseSchema,
    annotations: { ...readOnly, title: "Service reputation" },
    async run(args, ctx) {
      const caller = ctx.headerCaller;
      const result = await getScore(caller, parseOrThrow(scoreQuerySchema, args));
      return toolResult({ ...result });
    },
  },
  {
    name: "check_balance",
    title: "Check a prepaid balance",
    description:
      "Available prepaid balance in CAD and spending level (ok, warning, alert, blocked) of the account your key is " +
      "linked to by its owner (agent_id: its e-mail or the name of a linked key); action=transactions lists ledger " +
      "entries. Needs scope billing_read.",
    input: {
      ...billingQuerySchema.shape,
      action: z.enum(["balance", "transactions"]).default("balance"),
      api_key: apiKeyArgument,
    },
    output: billingResponseSchema,
    annotations: { ...readOnly, title: "Check a prepaid balance" },
    async run(args, ctx) {
      const { caller, rest } = await keyedArguments(args, ctx, "billing_read");
      const query = parseOrThrow(billingQuerySchema, { action: "balance", ...stringify(rest) });
      return toolResult({ ...(await getBilling(caller, query)) });
    },
  },
  {
    name: "pre_authorize_cost",
    title: "Pre-authorize a cost",
    description:
      "Hold max_cost_cad (CAD) of your prepaid balance for 5 minutes before submitting a task, so the budget is " +
      "guaranteed. Denied holds return PAYMENT_REQUIRED with the reason, available balance and suggestions. Needs billing_read.",
    input: {
      agent_id: preAuthorizeBodySchema.shape.agent_id,
      max_cost_cad: preAuthorizeBodySchema.shape.max_cost_cad,
      api_key: apiKeyArgument,
    },
    output: preAuthorizeResponseSchema,
    annotations: writeTool("Pre-authorize a cost"),
    async run(args, ctx) {
      const { caller, rest } = await keyedArguments(args, ctx, "billing_read");
      const body = parseOrThrow(preAuthorizeBodySchema, { action: "pre_authorize", ...rest });
      return toolResult({ ...(await preAuthorize(caller, body.agent_id, body.max_cost_cad)) });
    },
  },
  {
    name: "cancel_task",
    title: "Cancel a task",
    description:
      "Cancel a task you submitted: free before payment; after payment the task is cancelled and a refund request " +
      "goes to the operator (full before dispatch, per the service's cancellation policy after). Needs the key that " +
      "submitted it with scope task_cancel (or an admin key), or the task's access_token. Finished tasks → CONFLICT.",
    input: {
      task_id: taskIdArgument,
      reason: z.string().trim().max(500).optional().meta({ description: "Why (kept with the task)." }),
      access_token: accessTokenArgument,
      api_key: apiKeyArgument,
    },
    output: mcpTaskStatusSchema,
    annotations: {
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: true,
      openWorldHint: false,
      title: "Cancel a task",
    },
    async run(args, ctx) {
      const caller = await resolveCaller(ctx, args.api_key as string | undefined);
      const accessToken = args.access_token as string | undefined;
      if (!caller && !accessToken) {
        throw new ApiError(
          "UNAUTHORIZED",
          "cancel_task needs the key that submitted the task (x-api-key header or api_key) or its access_token",
        );
      }
      const { task } = await cancelTask(
        String(args.task_id),
        { caller, accessToken },
        args.reason as string | undefined,
      );
      const view = await taskStatusView(task, caller, undefined, { proofContent: false });
      return taskToolResult(task, view, caller);
    },
  },
  {
    name: "list_my_tasks",
    title: "List my tasks",
    description:
      "The tasks submitted with your API key, newest first, with their status and polling advice; pass next_cursor " +
      "back as cursor for the next page. Needs an API key (tasks submitted without a key: check_task_status with " +
      "their access_token).",
    input: {
      cursor: z.string().max(500).optional().meta({ description: "next_cursor of the previous page." }),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_TASK_PAGE)
        .default(20)
        .meta({ description: "Tasks per page (1-100)." }),
      api_key: apiKeyArgument,
    },
    output: myTasksSchema,
    annotations: { ...readOnly, title: "List my tasks" },
    async run(args, ctx) {
      const caller = await requireCaller(ctx, args.api_key as string | undefined, "audit_only");
      const page = await listKeyTasks(caller.keyId, {
        cursor: args.cursor as string | undefined,
        limit: Number(args.limit ?? 20),
      });
      const items = page.tasks.map((t) => ({
        task_id: t.id,
        status: t.status,
        mcp_status: PROTOCOL_STATUS[t.status],
        service_type: t.serviceType,
        sandbox: t.sandbox,
        estimate_cad: t.estimateCad,
        created_at: t.createdAt.toISOString(),
        updated_at: t.updatedAt.toISOString(),
        next_poll_seconds: nextPollSeconds(t),
      }));
      const result = { tasks: items, next_cursor: page.nextCursor ?? null };
      return {
        content: [
          {
            type: "text",
            text:
              items.length === 0
                ? "No tasks."
                : `${items.length} task(s): ${items.map((i) => `${i.task_id} ${i.status}`).join(", ")}` +
                  (page.nextCursor ? " (more: pass next_cursor as cursor)" : ""),
          },
        ],
        structuredContent: result,
      };
    },
  },
];

/** Query schemas read strings; tool arguments arrive typed. */
function stringify(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

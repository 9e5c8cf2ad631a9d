/**
 * The MCP tools (spec "POST /api/mcp"): each a thin adapter over the same `lib`
 * functions as the HTTP endpoints, with input schemas built from the same zod schemas.
 * Public tools: list_services, get_estimate, get_capabilities, get_reputation,
 * register_api_key. The others need a key (x-api-key header or `api_key` argument)
 * with the scope of the matching HTTP operation; `submit_task` without a key is forced
 * into sandbox mode and says so. The task tools are in lib/mcp/task-tools.ts.
 * A tool imports the workflow it runs when it runs: the tool list (names, schemas) is all an
 * `initialize` or `tools/list` request loads (cold start of api/mcp, docs/performance.md).
 */

import { z } from "zod";
import {
  billingQuerySchema,
  billingResponseSchema,
  preAuthorizeBodySchema,
  preAuthorizeResponseSchema,
} from "../billing/schemas.js";
import { pricingFormula, serviceCountWord, serviceIdRange } from "../catalog/facts.js";
import { findServices } from "../catalog/find-services.js";
import { servicesListResponseSchema } from "../catalog/schemas.js";
import { HUB_NAME } from "../config/server.js";
import { getConfig } from "../config.js";
import { parseOrThrow } from "../http/validation.js";
import { apiKeyCreatedSchema, createApiKeyBodySchema } from "../keys/schemas.js";
import { estimateFields, estimateResponseSchema } from "../pricing/schemas.js";
import { rateLimitExceeded } from "../ratelimit/enforce.js";
import { getLimiter, rateLimitSubject } from "../ratelimit/limiter.js";
import {
  scoreQuerySchema,
  scoreResponseSchema,
  scoreSchema,
  submitScoreBodySchema,
} from "../scores/schemas.js";
import { capabilitiesSchema } from "../system/descriptors/schemas.js";
import { SERVICE_TYPES } from "../tasks/state/schemas.js";
import { createWebhookBodySchema, webhookCreatedSchema } from "../webhooks/schemas.js";
import { TASK_CARD_REFRESH_TOOL } from "./app/refresh-tool.js";
import { PAY_TASK_TOOL } from "./pay-tool.js";
import { TASK_TOOLS } from "./task-tools.js";
import {
  apiKeyArgument,
  keyedArguments,
  readOnly,
  stringify,
  type ToolDefinition,
  toolResult,
  writeTool,
} from "./tool-kit.js";

/**
 * The tool list, in the spec's order, then the tools MCP adds (cancel_task, dispute_task, pay_task,
 * list_my_tasks) and the task card's app-only helper (lib/mcp/app/refresh-tool.ts).
 */
export const TOOLS: ToolDefinition[] = [
  {
    name: "list_services",
    title: "List services",
    description:
      `List the ${serviceCountWord()} physical-task services offered in Quebec` +
      "  (site audits, marketplace logistics, auction proxy, " +
      "IT level-1 field support, courier), with typical durations, price ranges in CAD and, unless include_contract " +
      "is false, each service's input schema, SLA, pricing and cancellation policy. Use it first to pick service_type.",
    input: {
      id: z
        .enum(SERVICE_TYPES)
        .optional()
        .meta({ description: `Only this service (${serviceIdRange()}).` }),
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
      `address in Quebec; omitted = the ${HUB_NAME} hub): ${pricingFormula()}. ` +
      "With `service_type`, quotes that service's base fee and minimum hours on site. " +
      "Also gives the USDC equivalent and whether the place is in the service zone.",
    input: estimateFields,
    output: estimateResponseSchema,
    annotations: { ...readOnly, title: "Estimate a price" },
    async run(args) {
      const query = parseOrThrow(z.object(estimateFields), args);
      const { getEstimate } = await import("../pricing/get-estimate.js");
      return toolResult(await getEstimate(query));
    },
  },
  TASK_TOOLS.submit_task!,
  TASK_TOOLS.check_task_status!,
  {
    name: "score_task",
    scope: "task_create",
    title: "Rate a finished task",
    description:
      "Rate a completed or failed task you submitted, once: rating 1-5, optional outcome and feedback. " +
      "Needs the key that submitted the task (scope task_create).",
    input: { ...submitScoreBodySchema.shape, api_key: apiKeyArgument },
    output: scoreSchema,
    annotations: writeTool("Rate a finished task"),
    async run(args, ctx) {
      const { caller, rest } = await keyedArguments(args, ctx, "task_create");
      const { submitScore } = await import("../scores/task-scores.js");
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
      const { buildCapabilities } = await import("../system/capabilities.js");
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
      // The same RATE_LIMITED error as the HTTP wrapper's; its Retry-After becomes retry_after_seconds.
      if (!limit.success) throw rateLimitExceeded(limit, `${limit.limit} API keys per IP per hour`);
      const { createApiKey } = await import("../keys/create-api-key.js");
      const created = await createApiKey({ ...body, ip: ctx.ip });
      return toolResult({ ...created }, "Store api_key now: it is shown only once.");
    },
  },
  {
    name: "register_webhook",
    scope: "task_create",
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
      const { registerWebhook } = await import("../webhooks/register-webhook.js");
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
      const { getScore } = await import("../scores/task-scores.js");
      const result = await getScore(caller, parseOrThrow(scoreQuerySchema, args));
      return toolResult({ ...result });
    },
  },
  {
    name: "check_balance",
    scope: "billing_read",
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
      const { getBilling } = await import("../billing/get-billing.js");
      return toolResult({ ...(await getBilling(caller, query)) });
    },
  },
  {
    name: "pre_authorize_cost",
    scope: "billing_read",
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
      const { preAuthorize } = await import("../billing/preauthorize.js");
      return toolResult({ ...(await preAuthorize(caller, body.agent_id, body.max_cost_cad)) });
    },
  },
  TASK_TOOLS.cancel_task!,
  TASK_TOOLS.dispute_task!,
  PAY_TASK_TOOL,
  TASK_TOOLS.list_my_tasks!,
  TASK_CARD_REFRESH_TOOL,
];

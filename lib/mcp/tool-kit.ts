/**
 * What MCP tools share: the caller's credential (header key, or an `api_key`
 * argument), scope checks, and the translation of results and `ApiError`s into MCP
 * tool results (text content plus `structuredContent`; failures as `isError` results
 * carrying the HTTP API's error envelope in `_meta` and in their text, never in
 * `structuredContent`).
 */
import {
  type CallToolResult,
  type ClientCapabilities,
  ErrorCode,
  McpError,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { currentActor, runAsActor } from "../db/actor.js";
import type { Scope } from "../db/schema/enums.js";
import { DomainError } from "../errors.js";
import { checkApiKey } from "../http/auth.js";
import { ApiError, fromDomainError } from "../http/errors.js";
import { enforceGeneralLimit } from "../http/handler.js";
import { isStorageFailure } from "../http/storage-failure.js";
import { type Caller, hasScope } from "../keys/credentials.js";
import { describeError } from "../log-error.js";

/** Per-request context of the tools. */
export interface ToolContext {
  /** The key sent in the HTTP headers (x-api-key or Bearer), if valid. */
  headerCaller: Caller | null;
  /** Whether the headers carried a key that did not authenticate. */
  headerKeyInvalid: boolean;
  ip: string;
  requestId: string;
  /**
   * The request carried no header key and one message authenticated by an `api_key` argument:
   * the wrapper did not count it, so the method counts it on that key's budget
   * ({@link chargeDeferredLimit}).
   */
  limitDeferred?: boolean;
  /**
   * The capabilities the client declared at `initialize`, read from its `Mcp-Session-Id`
   * (lib/mcp/session.ts); undefined for a request without a session.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * The params of the request as sent (revision 2026-07-28, one message per request): the SDK v2
   * parses spec methods with their schemas, which drop members of ours (`api_key`, `access_token`
   * of resources/read); read them here.
   */
  rawParams?: Record<string, unknown>;
}

/** The optional `api_key` argument of tools that need a key. */
export const apiKeyArgument = z
  .string()
  .max(200)
  .optional()
  .meta({ description: "API key (svc_…), when not sent in the x-api-key header." });

/** The optional `access_token` argument: the credential of an anonymous (keyless) task. */
export const accessTokenArgument = z
  .string()
  .max(200)
  .optional()
  .meta({ description: "The access_token that submit_task returned for a task submitted without a key." });

/**
 * Counts a request whose general rate limit was deferred to MCP (`ctx.limitDeferred`): on the
 * budget of the key `apiKey` (`RATE_LIMIT_PER_MIN`). Clears the flag, so a request counts once.
 * @throws ApiError UNAUTHORIZED (invalid key; the caller charges the IP), RATE_LIMITED
 */
export async function chargeDeferredLimit(ctx: ToolContext, apiKey: unknown): Promise<void> {
  if (!ctx.limitDeferred) return;
  ctx.limitDeferred = false;
  const caller = typeof apiKey === "string" && apiKey !== "" ? await checkApiKey(apiKey) : null;
  await enforceGeneralLimit(caller, ctx.ip);
}

/**
 * The caller of a tool: the `api_key` argument wins over the header key.
 * @throws ApiError UNAUTHORIZED for an invalid key
 */
export async function resolveCaller(ctx: ToolContext, apiKey: string | undefined): Promise<Caller | null> {
  if (apiKey !== undefined && apiKey !== "") return checkApiKey(apiKey);
  if (ctx.headerKeyInvalid)
    throw new ApiError("UNAUTHORIZED", "The API key in the request headers is not valid");
  return ctx.headerCaller;
}

/**
 * Runs `fn` with the tool's `caller` as the audit trail's actor (lib/db/actor.ts), the request's id
 * kept: a key sent as the `api_key` argument acts, not the header's (the wrapper set that one).
 * @returns what `fn` returns
 */
export function actingAs<T>(caller: Caller | null, fn: () => Promise<T>): Promise<T> {
  const actor = caller
    ? { kind: "api_key" as const, id: caller.keyId, role: caller.role }
    : { kind: "anonymous" as const, id: null, role: null };
  return runAsActor(actor, currentActor().requestId, fn);
}

/**
 * A caller holding `scope`.
 * @throws ApiError UNAUTHORIZED (no key; or billing without billing_read, as the spec says), FORBIDDEN (scope)
 */
export async function requireCaller(
  ctx: ToolContext,
  apiKey: string | undefined,
  scope: Scope,
): Promise<Caller> {
  const caller = await resolveCaller(ctx, apiKey);
  if (!caller) {
    throw new ApiError(
      "UNAUTHORIZED",
      "This tool needs an API key: the x-api-key header or the api_key argument",
    );
  }
  if (!hasScope(caller, scope)) {
    if (scope === "billing_read") throw new ApiError("UNAUTHORIZED", "This key lacks the billing_read scope");
    throw new ApiError("FORBIDDEN", `This tool requires the ${scope} scope`);
  }
  return caller;
}

/** A successful tool result. */
export function toolResult(value: Record<string, unknown>, note?: string): CallToolResult {
  const text = JSON.stringify(value, null, 2);
  return {
    content: [{ type: "text", text: note ? `${note}\n\n${text}` : text }],
    structuredContent: value,
  };
}

/**
 * The error envelope of `apiError` (the HTTP API's body); a rate-limit error also carries
 * `retry_after_seconds` (from its Retry-After), since a tool result has no headers.
 */
function errorBody(apiError: ApiError, requestId: string) {
  const retryAfter = apiError.code === "RATE_LIMITED" ? Number(apiError.headers["retry-after"]) : Number.NaN;
  return {
    error: {
      code: apiError.code,
      message: apiError.message,
      ...(apiError.field ? { field: apiError.field } : {}),
      details: apiError.details,
      ...apiError.extra,
      ...(Number.isFinite(retryAfter) ? { retry_after_seconds: retryAfter } : {}),
    },
    request_id: requestId,
  };
}

/** `error` as an `ApiError` (domain errors mapped, storage failures 503, anything else logged, INTERNAL). */
function asApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return fromDomainError(error);
  if (isStorageFailure(error))
    return new ApiError("STORAGE_ERROR", "Storage is temporarily unavailable; retry shortly");
  console.error(`[${requestId}] MCP tool error: ${describeError(error)}`);
  return new ApiError("INTERNAL", "Internal error; the request id identifies it in our logs");
}

/**
 * A failure of a protocol method (tasks/*, resources/read, a task-augmented tools/call) as a
 * JSON-RPC error: -32602 (invalid params) for the caller's faults (a 4xx of the HTTP API: unknown
 * or unreadable task, refused credential, conflict, rate limit), -32603 for ours; `data` is the
 * HTTP API's error envelope. An `McpError` passes through.
 */
export function protocolError(error: unknown, requestId: string): McpError {
  if (error instanceof McpError) return error;
  const apiError = asApiError(error, requestId);
  const code = apiError.status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, `${apiError.code}: ${apiError.message}`, errorBody(apiError, requestId));
}

/**
 * The words of a failed tool result for the model and the person: `CODE: message`, then one line
 * per detail (`- field: message`) when the error lists several problems.
 */
function errorText(apiError: ApiError): string {
  const lines = apiError.details
    .filter((d) => d.message && d.message !== apiError.message)
    .map((d) => `- ${d.field ? `${d.field}: ` : ""}${d.message}`);
  return [`${apiError.code}: ${apiError.message}`, ...lines].join("\n");
}

/**
 * A failed tool result (`isError: true`) that every MCP client can read (docs/decisions.md 29).
 * It carries no `structuredContent`: a client validates `structuredContent` against the tool's
 * `outputSchema` (the success shape) even on an error (the v1 TypeScript SDK, once it has listed
 * the tools, throws -32602 instead of returning the result). The HTTP API's error envelope
 * (`{ error: { code, message, details, … }, request_id }`) is in `_meta` (`_meta.error.code`) and,
 * as JSON, in the second text block; the first text block says it in words.
 * @param error any thrown value (ApiError, DomainError, a storage failure, anything else → INTERNAL)
 */
export function toolError(error: unknown, requestId: string): CallToolResult {
  const apiError = asApiError(error, requestId);
  return errorResult(errorText(apiError), errorBody(apiError, requestId));
}

/**
 * A failed tool result from its words and its error envelope (`{ error, request_id }`), with no
 * `structuredContent` (see {@link toolError}); `first` text blocks go before the words (the x402
 * transport's `x402/error` JSON must be `content[0]`).
 */
export function errorResult(
  text: string,
  envelope: { error: { code: string } & Record<string, unknown>; request_id: string },
  first: string[] = [],
): CallToolResult {
  return {
    isError: true,
    content: [...first, text, JSON.stringify(envelope)].map((t) => ({ type: "text" as const, text: t })),
    _meta: envelope,
  };
}

/** The error envelope of a failed tool result (`_meta`, {@link toolError}), or undefined for a success. */
export function errorEnvelopeOf(
  result: CallToolResult,
): { error: { code: string; message: string } & Record<string, unknown>; request_id: string } | undefined {
  if (!result.isError) return undefined;
  const meta = result._meta as { error?: { code?: unknown } } | undefined;
  return typeof meta?.error?.code === "string" ? (meta as ReturnType<typeof errorEnvelopeOf>) : undefined;
}

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
   * The scope a key needs for this tool (absent: a public tool). The OAuth endpoint /mcp checks it
   * before the call and answers 403 `insufficient_scope` naming it; the tool checks its caller itself.
   */
  scope?: Scope;
  /**
   * `optional`: a task-augmented call (protocol revision 2025-11-25) answers with the MCP task
   * of the service task the tool created (its `structuredContent.task_id`); absent: no tasks.
   */
  taskSupport?: "optional";
  /** `meta`: the call's `params._meta` (x402's `x402/payment` travels there). */
  run(
    args: Record<string, unknown>,
    ctx: ToolContext,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult>;
}

/** Annotations of a tool that changes state (not idempotent, not destructive). */
export function writeTool(title: string, openWorldHint = false): ToolAnnotations {
  return { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint, title };
}

/**
 * Splits the `api_key` argument off `args` and authenticates it (or the header key) with `scope`.
 * @throws ApiError UNAUTHORIZED, FORBIDDEN (see requireCaller)
 */
export async function keyedArguments(
  args: Record<string, unknown>,
  ctx: ToolContext,
  scope: Scope,
): Promise<{ caller: Caller; rest: Record<string, unknown> }> {
  const { api_key, ...rest } = args as { api_key?: string } & Record<string, unknown>;
  return { caller: await requireCaller(ctx, api_key, scope), rest };
}

/** Annotations of a read-only tool. */
export const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
};

/** Query schemas read strings; tool arguments arrive typed. */
export function stringify(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

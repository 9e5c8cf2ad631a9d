/**
 * What MCP tools share: the caller's credential (header key, or an `api_key`
 * argument), scope checks, and the translation of results and `ApiError`s into MCP
 * tool results (text content plus `structuredContent`; failures as `isError` results
 * carrying the HTTP API's error codes).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Scope } from "../db/schema/enums.js";
import { DomainError } from "../errors.js";
import { ApiError, fromDomainError } from "../http/errors.js";
import { isStorageFailure } from "../http/storage-failure.js";
import { authenticateKey, type Caller, hasScope } from "../keys/authenticate.js";
import { describeError } from "../log-error.js";

/** Per-request context of the tools. */
export interface ToolContext {
  /** The key sent in the HTTP headers (x-api-key or Bearer), if valid. */
  headerCaller: Caller | null;
  /** Whether the headers carried a key that did not authenticate. */
  headerKeyInvalid: boolean;
  ip: string;
  requestId: string;
}

/** The optional `api_key` argument of tools that need a key. */
export const apiKeyArgument = z
  .string()
  .max(200)
  .optional()
  .meta({ description: "API key (svc_…), when not sent in the x-api-key header." });

/**
 * The caller of a tool: the `api_key` argument wins over the header key.
 * @throws ApiError UNAUTHORIZED for an invalid key
 */
export async function resolveCaller(ctx: ToolContext, apiKey: string | undefined): Promise<Caller | null> {
  if (apiKey !== undefined && apiKey !== "") return authenticateKey(apiKey);
  if (ctx.headerKeyInvalid)
    throw new ApiError("UNAUTHORIZED", "The API key in the request headers is not valid");
  return ctx.headerCaller;
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

/** A failed tool result with the HTTP API's error code (`isError: true`). */
export function toolError(error: unknown, requestId: string): CallToolResult {
  let apiError: ApiError;
  if (error instanceof ApiError) apiError = error;
  else if (error instanceof DomainError) apiError = fromDomainError(error);
  else if (isStorageFailure(error))
    apiError = new ApiError("STORAGE_ERROR", "Storage is temporarily unavailable; retry shortly");
  else {
    console.error(`[${requestId}] MCP tool error: ${describeError(error)}`);
    apiError = new ApiError("INTERNAL", "Internal error; the request id identifies it in our logs");
  }
  const body = {
    error: {
      code: apiError.code,
      message: apiError.message,
      ...(apiError.field ? { field: apiError.field } : {}),
      details: apiError.details,
      ...apiError.extra,
    },
    request_id: requestId,
  };
  return {
    isError: true,
    content: [{ type: "text", text: `${apiError.code}: ${apiError.message}` }],
    structuredContent: body,
  };
}

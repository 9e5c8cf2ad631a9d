/**
 * Operation descriptors: one object per endpoint method holding everything both the
 * handler wrapper and `/openapi.json` need (path, auth, scope, schemas, errors).
 * A route declares its scope here and nowhere else.
 */
import type { z } from "zod";
import type { Scope } from "../db/schema/enums.js";
import type { ErrorCode } from "./errors.js";

/** API-key scopes (spec "Authentication" 2), defined once with the schema. */
export { DEFAULT_SCOPES, SCOPES, type Scope } from "../db/schema/enums.js";

/**
 * Who may call: `none` (public), `optional` (a key is used when sent), `key` (a key
 * with `scope`), `admin` (a key with the `admin` scope), `cron` (Vercel Cron's bearer
 * secret), `delegated` (a valid key sent in the headers is used for rate limiting and
 * logging; an invalid one is ignored, and the endpoint itself decides — MCP tools).
 */
export type AuthMode = "none" | "optional" | "key" | "admin" | "cron" | "delegated";

export type HttpMethod = "GET" | "POST" | "DELETE";

/** The description of one endpoint method. */
export interface Operation<
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** OpenAPI operationId, camelCase. */
  id: string;
  method: HttpMethod;
  /** Public path, e.g. `/api/estimate`, `/api/webhooks/{webhook_id}/failures`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthMode;
  /** Scope required when `auth` is `key` or `optional` (and a key is sent). */
  scope?: Scope;
  query?: Q;
  body?: B;
  /** Schema of the success body, for OpenAPI. */
  response?: R;
  /** Success status, default 200. */
  successStatus?: number;
  /** Error codes this operation documents besides the generic ones. */
  errors?: ErrorCode[];
  /** Largest accepted body, bytes; default MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** `Cache-Control` of success responses. */
  cacheControl?: string;
  /** Response content type when not JSON (e.g. text/plain for llms.txt). */
  contentType?: string;
  /** Hidden from /openapi.json (cron jobs). */
  internal?: boolean;
  /** Accepts `Idempotency-Key` (every state-changing POST/DELETE; contract.md "Idempotency"). */
  idempotent?: boolean;
  /** Extra per-IP limits besides the general per-key / per-IP one. */
  rateLimits?: ("key_creation" | "login")[];
}

/** Declares an operation with its schema types preserved. */
export function defineOperation<Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  op: Operation<Q, B, R>,
): Operation<Q, B, R> {
  return op;
}

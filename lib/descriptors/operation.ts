/**
 * Operation descriptors: one object per endpoint method holding everything both the
 * handler wrapper and `/openapi.json` need (path, auth, scope, schemas, errors).
 * A route declares its scope here and nowhere else. The descriptors of a domain live beside it
 * (`lib/<domain>/operations.ts`) and import this module, which imports only the base layer, so a
 * domain folder never imports lib/http (lib/http/operation.ts re-exports it for the adapters).
 */
import type { z } from "zod";
import type { Scope } from "../db/schema/enums.js";
import type { Permission } from "../permissions.js";
import type { ErrorCode } from "./error-codes.js";

/** API-key scopes (spec "Authentication" 2), defined once with the schema. */
export { DEFAULT_SCOPES, SCOPES, type Scope } from "../db/schema/enums.js";

/**
 * Who may call: `none` (public), `optional` (a key is used when sent), `key` (a key
 * with `scope`), `admin` (a key with the `admin` scope), `cron` (Vercel Cron's bearer
 * secret), `delegated` (a valid key sent in the headers is used for rate limiting and
 * logging; an invalid one is ignored, and the endpoint itself decides — MCP tools),
 * `client` (the client JWT of a signed-in account owner, `Authorization: Bearer <jwt>`; a key
 * may be sent besides it, checked as under `optional`), `key_or_client` (the client JWT or a
 * key, at least one; the JWT wins when both are sent). In every mode but `delegated` a key
 * that is sent must be valid.
 */
export type AuthMode =
  | "none"
  | "optional"
  | "key"
  | "admin"
  | "cron"
  | "delegated"
  | "client"
  | "key_or_client";

/** The modes in which an API key is read when sent but not required. */
const KEY_OPTIONAL: ReadonlySet<AuthMode> = new Set(["optional", "client", "key_or_client"]);

/**
 * Public reads: no key needed (`none`), or a key optional on a GET. Their key check is bounded by
 * KEY_CHECK_TIMEOUT_MS and a key that storage cannot check is served as anonymous (with a
 * `Warning`); the wrapper and /openapi.json both use this rule.
 */
export function isPublicRead(operation: Pick<Operation, "auth" | "method">): boolean {
  return operation.auth === "none" || (KEY_OPTIONAL.has(operation.auth) && operation.method === "GET");
}

/**
 * The permission an admin operation needs (lib/permissions.ts): one, or one per value of a body
 * field (`POST /api/task-complete`: `dispatch` needs `tasks.dispatch`, the other actions
 * `tasks.execute`).
 */
export type PermissionRule = Permission | { field: string; by: Readonly<Record<string, Permission>> };

/** Every permission `rule` may require (for the docs, discovery and the tests). */
export function permissionsOf(rule: PermissionRule | undefined): Permission[] {
  if (rule === undefined) return [];
  return typeof rule === "string" ? [rule] : [...new Set(Object.values(rule.by))];
}

/**
 * The permission `rule` requires for a request whose validated body is `body`: the single one, or
 * the one of the body field's value (undefined when the value has none: the rule is incomplete).
 */
export function requiredPermission(rule: PermissionRule, body: unknown): Permission | undefined {
  if (typeof rule === "string") return rule;
  const value = (body as Record<string, unknown> | undefined)?.[rule.field];
  return typeof value === "string" ? rule.by[value] : undefined;
}

export type HttpMethod = "GET" | "POST" | "DELETE";

/** The description of one endpoint method. */
export interface Operation<
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  A extends AuthMode = AuthMode,
> {
  /** OpenAPI operationId, camelCase. */
  id: string;
  method: HttpMethod;
  /** Public path, e.g. `/api/estimate`, `/api/webhooks/{webhook_id}/failures`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: A;
  /**
   * `auth: "admin"` only, and required there: the permission the caller's role must hold
   * (lib/permissions.ts `ROLE_PERMISSIONS`; an admin key is `owner`). Missing → 403 FORBIDDEN
   * naming it (`error.permission`).
   */
  permission?: PermissionRule;
  /**
   * A non-admin operation that also reads a staff session (the task status, its stream): the
   * staff member is the caller, with its role (lib/tasks/state/task-access.ts decides what it sees).
   * Admin operations always read one; other operations ignore a staff cookie.
   */
  staffAccess?: boolean;
  /** Scope required when `auth` is `key` or `optional` (and a key is sent). */
  scope?: Scope;
  query?: Q;
  body?: B;
  /** Schema of the success body, for OpenAPI. */
  response?: R;
  /** Success status, default 200; `null` when the operation never succeeds (MCP GET and DELETE answer 405). */
  successStatus?: number | null;
  /** Error codes this operation documents besides the generic ones. */
  errors?: ErrorCode[];
  /** Largest accepted body, bytes; default MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** `Cache-Control` of success responses. */
  cacheControl?: string;
  /**
   * Success content type when not JSON (e.g. text/markdown for llms.txt); a list when the
   * operation answers in several (analytics: text/csv or application/json).
   */
  contentType?: string | readonly string[];
  /**
   * Responses documented besides the generated ones, by status (e.g. the MCP transport's own
   * 406 and 415); an entry replaces the generated one of the same status.
   */
  responses?: Record<number, OperationResponse>;
  /**
   * A request body that the endpoint reads itself (the wrapper neither parses nor validates
   * it): documented in /openapi.json only. MCP's JSON-RPC messages.
   */
  documentedBody?: z.ZodType;
  /** Request headers documented in /openapi.json (the endpoint checks them itself). */
  documentedHeaders?: {
    name: string;
    required: boolean;
    description: string;
    example?: string;
    /** The only values accepted (another value → 422 VALIDATION_ERROR, declared in `errors`). */
    enum?: string[];
  }[];
  /** Hidden from /openapi.json (cron jobs). */
  internal?: boolean;
  /**
   * A public GET that changes nothing the audit trail records (only the wrapper's activity row is
   * written): the wrapper runs it without an actor context (lib/db/actor.ts). An instance that
   * serves only such routes (a Vercel function of one route) then never switches on Node's async
   * hooks, which AsyncLocalStorage turns on for every promise and tick from its first `run`
   * (about 2 µs a request of the estimate, docs/performance.md). GET only, never `idempotent`
   * (tests/http/read-only-operations.test.ts).
   */
  readOnly?: boolean;
  /** Accepts `Idempotency-Key` (every state-changing POST/DELETE; docs/api-conventions.md "Idempotency"). */
  idempotent?: boolean;
  /**
   * With `idempotent`: the endpoint commits its own steps as it goes and is idempotent by itself
   * (POST /api/task-pay records an x402 settlement before broadcasting it), so the wrapper does not
   * run it inside the record's transaction; it replays a finished record and stores the final
   * answer afterwards (lib/http/idempotency.ts `outsideTransaction`).
   */
  idempotencyOutsideTransaction?: boolean;
  /**
   * A success answer to a caller without credentials carries a secret shown once (the key of
   * POST /api/api-keys, the `access_token` of POST /api/submit-task): an anonymous caller's
   * `Idempotency-Key` keeps the effect single but never replays that answer (docs/decisions.md,
   * "Idempotency records of anonymous callers"; lib/http/idempotency.ts `runIdempotent`).
   */
  anonymousSecret?: boolean;
  /** Extra per-IP limits besides the general per-key / per-IP one. */
  rateLimits?: ("key_creation" | "login" | "oauth" | "oauth_registration")[];
  /**
   * The wrapper does not count a request without a header key against the per-IP budget: the
   * endpoint counts it once it knows the credential (MCP: a tool call authenticated by its
   * `api_key` argument counts on that key's budget, see lib/mcp/rate-limit.ts).
   */
  deferAnonymousLimit?: boolean;
}

/** One documented response of an operation. */
export interface OperationResponse {
  description: string;
  /** Body schema; absent = no body. */
  schema?: z.ZodType;
  /** Content type of the body, default application/json. */
  contentType?: string;
  /** Response headers: name → description. */
  headers?: Record<string, string>;
}

/** Declares an operation with its schema types preserved. */
export function defineOperation<
  Q extends z.ZodType,
  B extends z.ZodType,
  R extends z.ZodType,
  A extends AuthMode,
>(op: Operation<Q, B, R, A>): Operation<Q, B, R, A> {
  return op;
}

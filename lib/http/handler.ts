/**
 * The one handler wrapper. Every `api/` file exports its methods through `route()`,
 * and each method through `endpoint(operation, fn)`, which owns: request id, CORS,
 * method check (405), body size limit (413), JSON parsing (400), query/body
 * validation (400/422), authentication and scopes (401/403), and error catching
 * (envelope; 503 STORAGE_ERROR for storage failures; 500 INTERNAL otherwise), so
 * handlers hold no try/catch (architecture.md habits 1-3).
 */
import { timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { type AgentIdentity, agentIdentityWarning, parseAgentIdentity } from "../activity/agent-identity.js";
import { recordActivity } from "../activity/record-activity.js";
import { type Config, getConfig } from "../config.js";
import { authenticateKey, type Caller, hasScope, presentedKey } from "../keys/authenticate.js";
import { getLimiter, rateLimitHeaders } from "../ratelimit/limiter.js";
import { clientIp } from "./client-ip.js";
import { ApiError } from "./errors.js";
import { idempotencyKeyOf, requestFingerprint, runIdempotent } from "./idempotency.js";
import type { HttpMethod, Operation } from "./operation.js";
import { newRequestId } from "./request-id.js";
import { errorResponse, json } from "./response.js";
import { isStorageFailure } from "./storage-failure.js";
import { parseOrThrow } from "./validation.js";

/** What an endpoint function receives. */
export interface RequestContext<Q = unknown, B = unknown> {
  request: Request;
  url: URL;
  requestId: string;
  config: Config;
  /** Client IP per TRUST_PROXY. */
  ip: string;
  /** Validated query parameters. */
  query: Q;
  /** Validated JSON body (undefined when the operation has no body). */
  body: B;
  /** Path parameters from `{name}` segments of the operation path. */
  params: Record<string, string>;
  /** The authenticated API key, or null for anonymous callers. */
  caller: Caller | null;
  /** The parsed X-Agent-Identity, or null. */
  agent: AgentIdentity | null;
}

export type Handler = (request: Request) => Promise<Response>;
type EndpointFn<Q, B> = (ctx: RequestContext<Q, B>) => Promise<Response | unknown> | Response | unknown;

/** A handler plus the operation it serves. */
export interface Endpoint extends Handler {
  operation: Operation;
}

const ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type AnyMethod = (typeof ALL_METHODS)[number];

const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "x-api-key",
  "idempotency-key",
  "x-service-mode",
  "x-agent-identity",
  "last-event-id",
  "x-stream-timeout",
].join(", ");
const EXPOSED_HEADERS = [
  "x-request-id",
  "retry-after",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "idempotency-replayed",
  "warning",
].join(", ");

/** The CORS headers of any origin (`CORS_ALLOWED_ORIGINS=*`); shared, never modified. */
const ANY_ORIGIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS,
});

/** CORS_ALLOWED_ORIGINS as parsed for the last configuration seen. */
let parsedOrigins: { source: string; any: boolean; origins: Set<string> } | undefined;

function allowedOrigins(config: Config): { any: boolean; origins: Set<string> } {
  const source = config.CORS_ALLOWED_ORIGINS;
  if (parsedOrigins?.source !== source) {
    const trimmed = source.trim();
    parsedOrigins = {
      source,
      any: trimmed === "*",
      origins: new Set(trimmed.split(",").map((o) => o.trim())),
    };
  }
  return parsedOrigins;
}

/** CORS headers for `request` under the configured origins. */
export function corsHeaders(request: Request, config: Config): Readonly<Record<string, string>> {
  const allowed = allowedOrigins(config);
  if (allowed.any) return ANY_ORIGIN_HEADERS;
  const origin = request.headers.get("origin");
  if (!origin || !allowed.origins.has(origin)) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "Origin",
  };
}

/**
 * Sets each header of `sources` that `response` does not have yet; where sources share a
 * name, the first source that has it wins.
 */
function withHeaders(response: Response, ...sources: Readonly<Record<string, string>>[]): Response {
  const headers = response.headers;
  for (const source of sources) {
    for (const k in source) {
      if (!headers.has(k)) headers.set(k, source[k]!);
    }
  }
  return response;
}

/** Turns anything thrown into the envelope response; logs the unexpected. */
export function toErrorResponse(error: unknown, requestId: string): Response {
  if (error instanceof ApiError) return errorResponse(error, requestId);
  if (isStorageFailure(error)) {
    console.error(`[${requestId}] storage failure:`, error);
    return errorResponse(
      new ApiError("STORAGE_ERROR", "Storage is temporarily unavailable; retry shortly", {
        headers: { "retry-after": "5" },
      }),
      requestId,
    );
  }
  console.error(`[${requestId}] unhandled error:`, error);
  return errorResponse(
    new ApiError("INTERNAL", "Internal error; the request id identifies it in our logs"),
    requestId,
  );
}

/**
 * Reads the body as UTF-8 text, refusing more than `limit` bytes (413) whether or not
 * Content-Length is sent.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(limit: number): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `Request body exceeds ${limit} bytes`, {
    extra: { max_bytes: limit },
  });
}

/** Parses a JSON body; empty → `{}`; anything but an object → 400 INVALID_FORMAT. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_FORMAT", "Request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("INVALID_FORMAT", "Request body must be a JSON object");
  }
  return value;
}

/** Query parameters as an object (the last value wins for a repeated name). */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = v;
  return out;
}

const pathPatterns = new Map<string, RegExp>();

/** Extracts `{name}` segments of `template` from `pathname`. */
export function pathParams(template: string, pathname: string): Record<string, string> {
  if (!template.includes("{")) return {};
  let re = pathPatterns.get(template);
  if (!re) {
    const source = template
      .split("/")
      .map((seg) =>
        /^\{\w+\}$/.test(seg) ? `(?<${seg.slice(1, -1)}>[^/]+)` : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    re = new RegExp(`^${source}/?$`);
    pathPatterns.set(template, re);
  }
  const groups = re.exec(pathname)?.groups ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(groups)) {
    if (v !== undefined) out[k] = decodeURIComponent(v);
  }
  return out;
}

/**
 * Wraps `fn` as the handler of `operation`. `fn` returns a `Response`, or a value
 * sent as JSON with `operation.successStatus` (default 200).
 *
 * Order: CORS → authentication and scope → rate limits → query/body validation →
 * idempotency → `fn` → activity log (after the response is built, off the critical path).
 */
export function endpoint<Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  operation: Operation<Q, B, R>,
  fn: EndpointFn<z.output<Q>, z.output<B>>,
): Endpoint {
  const handler = async (request: Request): Promise<Response> => {
    const started = performance.now();
    const requestId = newRequestId();
    const extraHeaders: Record<string, string> = {};
    let config: Config | undefined;
    let cors: Readonly<Record<string, string>> = {};
    let caller: Caller | null = null;
    let ip = "unknown";
    const identity = parseAgentIdentity(request.headers.get("x-agent-identity"));
    if (identity.kind === "invalid") extraHeaders.warning = agentIdentityWarning(identity.reason);
    let response: Response;
    try {
      config = getConfig();
      cors = corsHeaders(request, config);
      ip = clientIp(request, config);
      if (operation.auth === "cron") authorizeCron(request, config);
      else {
        caller = await authenticate(operation, request);
        Object.assign(extraHeaders, await enforceRateLimits(operation, caller, ip));
      }
      const url = new URL(request.url);
      const query = operation.query
        ? parseOrThrow(operation.query, queryObject(url))
        : (undefined as z.output<Q>);
      let body = undefined as z.output<B>;
      let bodyText = "";
      if (operation.body) {
        const limit = operation.maxBodyBytes ?? config.MAX_BODY_BYTES;
        bodyText = await readBodyText(request, limit);
        body = parseOrThrow(operation.body, parseJsonBody(bodyText));
      }
      const ctx: RequestContext<z.output<Q>, z.output<B>> = {
        request,
        url,
        requestId,
        config,
        ip,
        caller,
        agent: identity.kind === "valid" ? identity.identity : null,
        query,
        body,
        params: pathParams(operation.path, url.pathname),
      };
      const execute = async () => {
        const result = await fn(ctx);
        const res = result instanceof Response ? result : json(result, operation.successStatus ?? 200);
        if (operation.cacheControl && res.ok && !res.headers.has("cache-control")) {
          res.headers.set("cache-control", operation.cacheControl);
        }
        return res;
      };
      const idempotencyKey = operation.idempotent ? idempotencyKeyOf(request) : undefined;
      response = idempotencyKey
        ? await runIdempotent(
            caller ? `key:${caller.keyId}` : `ip:${ip}`,
            idempotencyKey,
            requestFingerprint(request, bodyText),
            `${operation.method} ${operation.path}`,
            execute,
            (error) => toErrorResponse(error, requestId),
          )
        : await execute();
    } catch (error) {
      response = toErrorResponse(error, requestId);
    }
    if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
    const final = withHeaders(response, cors, extraHeaders, { "x-request-id": requestId });
    if (operation.auth !== "cron") {
      recordActivity({
        requestId,
        apiKeyId: caller?.keyId ?? null,
        ip,
        method: request.method,
        endpoint: operation.path,
        status: final.status,
        latencyMs: Math.round(performance.now() - started),
        agentModel: identity.kind === "valid" ? identity.identity.model : null,
        agentName: identity.kind === "valid" ? identity.identity.agent_name : null,
        orgId: identity.kind === "valid" ? identity.identity.org_id : null,
        identityValid: identity.kind === "absent" ? null : identity.kind === "valid",
      });
    }
    return final;
  };
  return Object.assign(handler, { operation: operation as Operation });
}

/**
 * Authenticates per `operation.auth` and checks its scope. A credential that is sent
 * must be valid even where none is required. Missing `billing_read` → 401 (the spec
 * says so); other missing scopes → 403 FORBIDDEN.
 * @throws ApiError UNAUTHORIZED, FORBIDDEN
 */
async function authenticate(operation: Operation, request: Request): Promise<Caller | null> {
  const key = presentedKey(request);
  if (key === undefined || key === "") {
    if (operation.auth === "key" || operation.auth === "admin") {
      throw new ApiError(
        "UNAUTHORIZED",
        "An API key is required: x-api-key: <key> or Authorization: Bearer <key>",
      );
    }
    return null;
  }
  if (operation.auth === "delegated") {
    try {
      return await authenticateKey(key);
    } catch (error) {
      if (error instanceof ApiError && error.code === "UNAUTHORIZED") return null;
      throw error;
    }
  }
  const caller = await authenticateKey(key);
  if (operation.auth === "admin" && !caller.isAdmin) {
    throw new ApiError("FORBIDDEN", "This operation requires a key with the admin scope");
  }
  const scope = operation.scope;
  if (scope && !hasScope(caller, scope)) {
    if (scope === "billing_read") {
      throw new ApiError("UNAUTHORIZED", "This key lacks the billing_read scope required for billing");
    }
    throw new ApiError("FORBIDDEN", `This operation requires the ${scope} scope`);
  }
  return caller;
}

/**
 * Applies the general limit (per key, else per IP) and the operation's extra per-IP
 * limits; returns the rate-limit headers of the tightest one.
 * @throws ApiError RATE_LIMITED (429 with Retry-After); StorageError when the limiter's storage fails
 */
async function enforceRateLimits(
  operation: Operation,
  caller: Caller | null,
  ip: string,
): Promise<Record<string, string>> {
  const checks = [caller ? getLimiter("key").limit(caller.keyId) : getLimiter("anon").limit(ip)];
  for (const policy of operation.rateLimits ?? []) checks.push(getLimiter(policy).limit(ip));
  const results = checks.length === 1 ? [await checks[0]!] : await Promise.all(checks);
  const failed = results.find((r) => !r.success);
  const tightest = failed ?? results.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  const headers = rateLimitHeaders(tightest);
  if (failed) {
    const what =
      failed.policy === "key_creation"
        ? `${failed.limit} API keys per IP per hour`
        : failed.policy === "login"
          ? `${failed.limit} login attempts per IP per hour`
          : `${failed.limit} requests per minute ${failed.policy === "key" ? "per API key" : "per IP without a key"}`;
    throw new ApiError(
      "RATE_LIMITED",
      `Rate limit exceeded: ${what}; retry after ${headers["retry-after"]} s`,
      {
        headers,
        extra: { limit: failed.limit, policy: failed.policy },
      },
    );
  }
  return headers;
}

/**
 * Scheduled jobs: `Authorization: Bearer CRON_SECRET` as Vercel Cron sends it; without
 * a secret configured, allowed outside production only.
 * @throws ApiError UNAUTHORIZED
 */
function authorizeCron(request: Request, config: Config): void {
  const secret = config.CRON_SECRET;
  if (!secret) {
    if (config.NODE_ENV !== "production") return;
    throw new ApiError("UNAUTHORIZED", "CRON_SECRET is not configured; scheduled jobs are refused");
  }
  if (!timingSafeEqualString(request.headers.get("authorization") ?? "", `Bearer ${secret}`)) {
    throw new ApiError("UNAUTHORIZED", "Missing or invalid cron secret");
  }
}

function timingSafeEqualString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function methodNotAllowed(request: Request, allow: string): Response {
  const requestId = newRequestId();
  const response = errorResponse(
    new ApiError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; allowed: ${allow}`, {
      headers: { allow },
    }),
    requestId,
  );
  return withHeaders(response, corsHeaders(request, getConfig()));
}

/**
 * The exports of an `api/` file: the given methods, `HEAD` (as GET without a body)
 * and `OPTIONS` (CORS preflight), and 405 METHOD_NOT_ALLOWED with `Allow` for the rest.
 * Use as `export const { GET, POST, HEAD, OPTIONS, PUT, PATCH, DELETE } = route({ GET: endpoint(...) })`.
 */
export function route(methods: Partial<Record<HttpMethod, Handler>>): Record<AnyMethod, Handler> {
  const own = Object.keys(methods) as HttpMethod[];
  const allowList = [...own, ...(own.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
  const allow = allowList.join(", ");
  const out = {} as Record<AnyMethod, Handler>;
  for (const m of ALL_METHODS) {
    out[m] = async (request) => methodNotAllowed(request, allow);
  }
  for (const m of own) out[m] = methods[m]!;
  const get = methods.GET;
  if (get) {
    out.HEAD = async (request) => {
      const res = await get(new Request(request.url, { method: "GET", headers: request.headers }));
      return new Response(null, { status: res.status, headers: res.headers });
    };
  }
  out.OPTIONS = async (request) => {
    const config = getConfig();
    return new Response(null, {
      status: 204,
      headers: {
        allow,
        "access-control-allow-methods": allow,
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": "600",
        ...corsHeaders(request, config),
        "x-request-id": newRequestId(),
      },
    });
  };
  return out;
}

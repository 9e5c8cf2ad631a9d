/**
 * The one handler wrapper. Every `api/` file exports its methods through `route()`,
 * and each method through `endpoint(operation, fn)`, which owns: request id, CORS,
 * method check (405), body size limit (413), JSON parsing (400), query/body
 * validation (400/422), authentication and scopes (401/403), and error catching
 * (envelope; 503 STORAGE_ERROR for storage failures; 500 INTERNAL otherwise), so
 * handlers hold no try/catch (architecture.md habits 1-3).
 *
 * This file only composes the steps; each concern lives in its own module: cors.ts,
 * inputs.ts (query, path, NUL refusal), auth.ts (key, client JWT, cron), limits.ts (rate
 * limits), body.ts (size, JSON), idempotency.ts, error-response.ts (thrown → response,
 * configuration refusal) and route.ts (405, HEAD, OPTIONS).
 */
import type { z } from "zod";
import { type AgentIdentity, agentIdentityWarning, parseAgentIdentity } from "../activity/agent-identity.js";
import { recordActivity } from "../activity/record-activity.js";
import { runWithRequestOrigin, trustedRequestOrigin } from "../config/request-origin.js";
import { type Config, getConfig, productionProfile } from "../config.js";
import { type Actor, runAsActor, systemActor } from "../db/actor.js";
// Registers the outbox kick with the state layer's "events committed" hook (lib/db/after-events.ts).
import "../events/kick-outbox.js";
import { authenticate, authorizeCron, type Principal, principalWithoutCredential } from "./auth.js";
import { parseJsonBody, readBodyText } from "./body.js";
import { clientIp } from "./client-ip.js";
import { corsHeaders, withHeaders } from "./cors.js";
import { assertServable, toErrorResponse } from "./error-response.js";
import { errorCodeOf } from "./errors.js";
import { idempotencyKeyOf, idempotencyScope, requestFingerprint, runIdempotent } from "./idempotency.js";
import { pathParams, queryObject, rejectNulInputs } from "./inputs.js";
import { chargeFailedAuthentication, enforceRateLimits } from "./limits.js";
import type { AuthMode, Operation } from "./operation.js";
import { actorOf, checkPermission, roleOf } from "./permissions.js";
import { newRequestId } from "./request-id.js";
import { requestUrl } from "./request-url.js";
import { JSON_TYPE, json, jsonWithHeaders } from "./response.js";
import type { Handler } from "./route.js";
import { traceparentOf } from "./trace.js";
import { parseOrThrow, rejectNulBytes } from "./validation.js";

export { KEY_NOT_CHECKED_WARNING, type Principal } from "./auth.js";
export { parseJsonBody, readBodyText } from "./body.js";
export { corsHeaders } from "./cors.js";
export { assertServable, configurationRefusal, toErrorResponse } from "./error-response.js";
export { pathParams, queryObject } from "./inputs.js";
export { chargeFailedAuthentication, enforceGeneralLimit, enforceNamedLimit } from "./limits.js";
export { type Handler, route } from "./route.js";
export { noteTraceparent } from "./trace.js";

/**
 * What an endpoint function receives. `caller` and `client` are typed by the operation's auth
 * mode `A` (see `Principal` in auth.ts): e.g. `caller: Caller` under `key`, `Caller | null` under
 * `optional`, `client: ClientPrincipal` under `client`.
 */
export type RequestContext<Q = unknown, B = unknown, A extends AuthMode = AuthMode> = Principal<A> & {
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
  /** The parsed X-Agent-Identity, or null. */
  agent: AgentIdentity | null;
};

type EndpointFn<Q, B, A extends AuthMode> = (
  ctx: RequestContext<Q, B, A>,
) => Promise<Response | unknown> | Response | unknown;

/** A handler plus the operation it serves. */
export interface Endpoint extends Handler {
  operation: Operation;
}
/** A value, or a promise of it: what a step that is usually synchronous returns. */
type MaybePromise<T> = T | Promise<T>;

/** Whether `value` is a promise (or any thenable). */
function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** What one request carries from step to step of the wrapper. */
interface RequestState {
  request: Request;
  started: number;
  requestId: string;
  extraHeaders: Record<string, string>;
  config: Config | undefined;
  cors: Readonly<Record<string, string>>;
  principal: Principal;
  ip: string;
  url: URL | undefined;
  identity: AgentIdentityResult;
  /** The response `completeJson` built with every header, if that is the answer. */
  complete: Response | undefined;
}

type AgentIdentityResult = ReturnType<typeof parseAgentIdentity>;

/** No CORS headers (an origin not allowed), shared. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Wraps `fn` as the handler of `operation`. `fn` returns a `Response`, or a value
 * sent as JSON with `operation.successStatus` (default 200).
 *
 * Order: CORS → authentication and scope → rate limits → query/body validation →
 * idempotency → `fn` → activity log (after the response is built, off the critical path).
 *
 * The handler answers synchronously (a `Response`, not a promise) when no step has to wait: no
 * credential to check, limiters counting in this process, no body, no idempotency key, and `fn`
 * returning a value. The local host then writes the answer without any promise or microtask hop
 * (docs/performance.md); any step that returns a promise makes the rest of the request wait on it.
 */
export function endpoint<Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType, A extends AuthMode>(
  operation: Operation<Q, B, R, A>,
  fn: EndpointFn<z.output<Q>, z.output<B>, A>,
): Endpoint {
  const op = operation as unknown as Operation;
  const run = fn as EndpointFn<unknown, unknown, AuthMode>;
  const handler = (request: Request): MaybePromise<Response> => {
    const requestId = newRequestId();
    const state: RequestState = {
      request,
      started: performance.now(),
      requestId,
      extraHeaders: {},
      config: undefined,
      cors: NO_HEADERS,
      principal: ANONYMOUS,
      ip: "unknown",
      url: undefined,
      identity: parseAgentIdentity(request.headers.get("x-agent-identity")),
      complete: undefined,
    };
    if (state.identity.kind === "invalid")
      state.extraHeaders.warning = agentIdentityWarning(state.identity.reason);
    let response: MaybePromise<Response>;
    try {
      // Links built while answering use the origin the request reached us at, when trusted and no
      // PUBLIC_BASE_URL is set (lib/config/request-origin.ts).
      const config = getConfig();
      const origin = trustedRequestOrigin(request, config, productionProfile(config).active);
      response = runWithRequestOrigin(origin, () => begin(op, run, state));
    } catch (error) {
      response = toErrorResponse(error, requestId, request);
    }
    if (isPromise(response)) {
      return response.then(
        (r) => finish(op, state, r),
        (error: unknown) => finish(op, state, toErrorResponse(error, requestId, request)),
      );
    }
    return finish(op, state, response);
  };
  return Object.assign(handler, { operation: operation as Operation });
}

/** The principal of a request without any credential; shared, never modified. */
const ANONYMOUS: Principal = Object.freeze({ caller: null, client: null }) as Principal;

type AnyEndpointFn = EndpointFn<unknown, unknown, AuthMode>;

/**
 * The wrapper's steps up to authentication: configuration, CORS, client IP, URL, refusal of NUL
 * inputs, then the principal (the cron secret, no credential at once, else `authenticate`).
 * @throws (or rejects with) what the steps throw; the caller answers it as an error response
 */
function begin(operation: Operation, fn: AnyEndpointFn, state: RequestState): MaybePromise<Response> {
  const { request } = state;
  const config = getConfig();
  state.config = config;
  assertServable(config, state.requestId);
  state.cors = corsHeaders(request, config);
  state.ip = clientIp(request, config);
  const url = requestUrl(request);
  state.url = url;
  const rawQuery = queryObject(url);
  rejectNulInputs(request, url, operation.path, rawQuery);
  if (operation.auth === "cron") {
    authorizeCron(request, config);
    // each job names itself (lib/jobs/run-job.ts)
    return validated(operation, fn, state, rawQuery, systemActor(operation.id));
  }
  // A request without any credential is answered without waiting on `authenticate`.
  const principal =
    principalWithoutCredential(operation, request) ??
    authenticateOrCharge(operation, request, config, state.ip, state.extraHeaders);
  if (isPromise(principal)) return principal.then((p) => authorized(operation, fn, state, rawQuery, p));
  return authorized(operation, fn, state, rawQuery, principal);
}

/** After authentication: the scope check, then the rate limits (waited on only when a limiter is remote). */
function authorized(
  operation: Operation,
  fn: AnyEndpointFn,
  state: RequestState,
  rawQuery: Record<string, string>,
  principal: Principal,
): MaybePromise<Response> {
  state.principal = principal;
  checkPermission(operation, roleOf(principal), "auth");
  const limits = enforceRateLimits(operation, principal.caller, state.ip);
  if (isPromise(limits)) {
    return limits.then((headers) => {
      Object.assign(state.extraHeaders, headers);
      return validated(operation, fn, state, rawQuery, actorOf(principal));
    });
  }
  Object.assign(state.extraHeaders, limits);
  return validated(operation, fn, state, rawQuery, actorOf(principal));
}

/** After the limits: the query validated, then the body read and validated (if the operation has one). */
function validated(
  operation: Operation,
  fn: AnyEndpointFn,
  state: RequestState,
  rawQuery: Record<string, string>,
  actor: Actor,
): MaybePromise<Response> {
  const query = operation.query ? parseOrThrow(operation.query, rawQuery) : undefined;
  if (!operation.body) return answered(operation, fn, state, actor, query, undefined, "");
  return readBody(operation, state.request, state.config!).then(({ body, bodyText }) =>
    answered(operation, fn, state, actor, query, body, bodyText),
  );
}

/**
 * The endpoint run with its context as `actor` (inside the idempotency record when the request
 * carries a key), its result turned into the response.
 */
function answered(
  operation: Operation,
  fn: AnyEndpointFn,
  state: RequestState,
  actor: Actor,
  query: unknown,
  body: unknown,
  bodyText: string,
): MaybePromise<Response> {
  const { request, principal, requestId, ip } = state;
  checkPermission(operation, roleOf(principal), "body", body);
  const url = state.url!;
  // The principal's two members named, not spread: V8 builds a literal led by a spread slowly
  // (about 8 µs a request measured here, docs/performance.md).
  const ctx = {
    caller: principal.caller,
    client: principal.client,
    request,
    url,
    requestId,
    config: state.config!,
    ip,
    agent: state.identity.kind === "valid" ? state.identity.identity : null,
    query,
    body,
    params: pathParams(operation.path, url.pathname),
  } as RequestContext<unknown, unknown, AuthMode>;
  const idempotencyKey = operation.idempotent ? idempotencyKeyOf(request) : undefined;
  if (idempotencyKey) {
    const anonymous = !principal.caller && !principal.client;
    return runIdempotent(
      idempotencyScope(principal, ip),
      idempotencyKey,
      requestFingerprint(request, bodyText),
      `${operation.method} ${operation.path}`,
      () => runAsActor(actor, requestId, () => answer(operation, fn(ctx))),
      (error) => toErrorResponse(error, requestId, request),
      {
        withholdSuccess: anonymous && operation.anonymousSecret === true,
        outsideTransaction: operation.idempotencyOutsideTransaction === true,
      },
    );
  }
  // The endpoint's changes are recorded in the audit trail as this actor's (lib/db/audit.ts); a
  // read-only operation has none, and runs without the context (`Operation.readOnly`).
  const result = operation.readOnly ? fn(ctx) : runAsActor(actor, requestId, () => fn(ctx));
  if (isPromise(result)) return result.then((value) => responseOf(operation, state, value));
  return responseOf(operation, state, result);
}

/** The response of the endpoint's (settled) `result`: a `Response` as `answer` makes it, a value as complete JSON. */
function responseOf(operation: Operation, state: RequestState, result: unknown): Response {
  if (result instanceof Response) return answerNow(operation, result);
  // Every header known now: one Response with a plain header record, never a `Headers`.
  state.complete = completeJson(result, operation, state);
  return state.complete;
}

/**
 * The final response: the wrapper's headers added to any response but the complete one
 * (Cache-Control `no-store` unless set, CORS, rate-limit and warning headers, X-Request-Id), and
 * the request recorded in the activity log (but a cron's).
 */
function finish(operation: Operation, state: RequestState, response: Response): Response {
  let final = response;
  if (response !== state.complete) {
    if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
    final = withHeaders(response, state.cors, state.extraHeaders, { "x-request-id": state.requestId });
  }
  if (operation.auth !== "cron") logRequest(operation, final, state);
  return final;
}

/**
 * The response of an endpoint's `result` (awaited): a `Response` as it is, a value as JSON with
 * `operation.successStatus` (default 200); a success gets `operation.cacheControl` unless it set
 * its own Cache-Control.
 */
async function answer(operation: Operation, pending: unknown): Promise<Response> {
  const result = await pending;
  return answerNow(
    operation,
    result instanceof Response ? result : json(result, operation.successStatus ?? 200),
  );
}

/** `res` with `operation.cacheControl` on a success that set no Cache-Control. */
function answerNow(operation: Operation, res: Response): Response {
  if (operation.cacheControl && res.ok && !res.headers.has("cache-control")) {
    res.headers.set("cache-control", operation.cacheControl);
  }
  return res;
}

/**
 * The JSON response of an endpoint's value `result` (status `operation.successStatus`, default
 * 200) with every header the wrapper adds, given at once as a plain record: Content-Type,
 * Cache-Control (`operation.cacheControl`, else `no-store`), CORS, the rate-limit and warning
 * headers, X-Request-Id. The same headers as the general path (`withHeaders` on the built
 * response), without building a `Headers` object (docs/performance.md, issue 14).
 */
function completeJson(
  result: unknown,
  operation: Operation,
  parts: {
    requestId: string;
    cors: Readonly<Record<string, string>>;
    extraHeaders: Readonly<Record<string, string>>;
  },
): Response {
  const status = operation.successStatus ?? 200;
  const ok = status >= 200 && status < 300;
  const headers: Record<string, string> = {
    "content-type": JSON_TYPE,
    "cache-control": (ok && operation.cacheControl) || "no-store",
  };
  for (const k in parts.cors) if (!(k in headers)) headers[k] = parts.cors[k]!;
  for (const k in parts.extraHeaders) if (!(k in headers)) headers[k] = parts.extraHeaders[k]!;
  if (!("x-request-id" in headers)) headers["x-request-id"] = parts.requestId;
  return jsonWithHeaders(result, status, headers);
}

/**
 * Authenticates `request` per `operation.auth` (see `authenticate`); a failed credential (401)
 * also counts against the IP's budget of requests without a key, whose headers go to `extraHeaders`.
 * @throws what `authenticate` throws
 */
async function authenticateOrCharge(
  operation: Operation,
  request: Request,
  config: Config,
  ip: string,
  extraHeaders: Record<string, string>,
): Promise<Principal> {
  try {
    return await authenticate(operation, request, config, extraHeaders);
  } catch (error) {
    if (errorCodeOf(error) === "UNAUTHORIZED") {
      Object.assign(extraHeaders, await chargeFailedAuthentication(ip));
    }
    throw error;
  }
}

/**
 * Reads and validates the JSON body of `request` against `operation.body` (at most
 * `maxBodyBytes`, default MAX_BODY_BYTES); `bodyText` is the raw body, for the idempotency
 * fingerprint. The query is validated before, by the caller.
 * @throws DomainError from the body reader and the validation (400, 413, 422)
 */
async function readBody<B extends z.ZodType>(
  operation: Operation<z.ZodType, B, z.ZodType, AuthMode>,
  request: Request,
  config: Config,
): Promise<{ body: z.output<B>; bodyText: string }> {
  const limit = operation.maxBodyBytes ?? config.MAX_BODY_BYTES;
  const bodyText = await readBodyText(request, limit);
  const raw = parseJsonBody(bodyText);
  rejectNulBytes(raw);
  return { body: parseOrThrow(operation.body as B, raw), bodyText };
}

/** Records one answered request in the activity log (off the critical path; `state.started`: performance.now()). */
function logRequest(operation: Operation, final: Response, state: RequestState): void {
  const { requestId, principal, ip, identity, started } = state;
  const valid = identity.kind === "valid" ? identity.identity : null;
  recordActivity({
    at: new Date(),
    requestId,
    apiKeyId: principal.caller?.keyId ?? null,
    ip,
    method: state.request.method,
    endpoint: operation.path,
    status: final.status,
    latencyMs: Math.round(performance.now() - started),
    agentModel: valid ? valid.model : null,
    agentName: valid ? valid.agent_name : null,
    orgId: valid ? valid.org_id : null,
    identityValid: identity.kind === "absent" ? null : identity.kind === "valid",
    traceparent: traceparentOf(state.request),
  });
}

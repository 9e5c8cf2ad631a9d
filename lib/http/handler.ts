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
import { type Config, getConfig } from "../config.js";
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
import { parseOrThrow, rejectNulBytes } from "./validation.js";

export { KEY_NOT_CHECKED_WARNING, type Principal } from "./auth.js";
export { parseJsonBody, readBodyText } from "./body.js";
export { corsHeaders } from "./cors.js";
export { assertServable, configurationRefusal, toErrorResponse } from "./error-response.js";
export { pathParams, queryObject } from "./inputs.js";
export { chargeFailedAuthentication, enforceGeneralLimit, enforceNamedLimit } from "./limits.js";
export { type Handler, route } from "./route.js";

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
/**
 * Wraps `fn` as the handler of `operation`. `fn` returns a `Response`, or a value
 * sent as JSON with `operation.successStatus` (default 200).
 *
 * Order: CORS → authentication and scope → rate limits → query/body validation →
 * idempotency → `fn` → activity log (after the response is built, off the critical path).
 */
export function endpoint<Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType, A extends AuthMode>(
  operation: Operation<Q, B, R, A>,
  fn: EndpointFn<z.output<Q>, z.output<B>, A>,
): Endpoint {
  const handler = async (request: Request): Promise<Response> => {
    const started = performance.now();
    const requestId = newRequestId();
    const extraHeaders: Record<string, string> = {};
    let config: Config | undefined;
    let cors: Readonly<Record<string, string>> = {};
    let principal: Principal = { caller: null, client: null };
    let ip = "unknown";
    /** The response `completeJson` built with every header, if that is the answer. */
    let complete: Response | undefined;
    const identity = parseAgentIdentity(request.headers.get("x-agent-identity"));
    if (identity.kind === "invalid") extraHeaders.warning = agentIdentityWarning(identity.reason);
    let response: Response;
    try {
      config = getConfig();
      assertServable(config, requestId);
      cors = corsHeaders(request, config);
      ip = clientIp(request, config);
      const url = requestUrl(request);
      const rawQuery = queryObject(url);
      rejectNulInputs(request, url, operation.path, rawQuery);
      let actor: Actor;
      if (operation.auth === "cron") {
        authorizeCron(request, config);
        actor = systemActor(operation.id); // each job names itself (lib/jobs/run-job.ts)
      } else {
        // A request without any credential is answered without waiting on `authenticate`.
        principal =
          principalWithoutCredential(operation, request) ??
          (await authenticateOrCharge(operation, request, config, ip, extraHeaders));
        checkPermission(operation, roleOf(principal), "auth");
        const limits = enforceRateLimits(operation, principal.caller, ip);
        Object.assign(extraHeaders, limits instanceof Promise ? await limits : limits);
        actor = actorOf(principal);
      }
      const query = operation.query ? parseOrThrow(operation.query, rawQuery) : (undefined as z.output<Q>);
      const { body, bodyText } = operation.body
        ? await readBody(operation, request, config)
        : { body: undefined as z.output<B>, bodyText: "" };
      checkPermission(operation, roleOf(principal), "body", body);
      const ctx = {
        ...principal,
        request,
        url,
        requestId,
        config,
        ip,
        agent: identity.kind === "valid" ? identity.identity : null,
        query,
        body,
        params: pathParams(operation.path, url.pathname),
        // `authenticate` answered per `operation.auth`, so the principal has the shape of mode A.
      } as unknown as RequestContext<z.output<Q>, z.output<B>, A>;
      const idempotencyKey = operation.idempotent ? idempotencyKeyOf(request) : undefined;
      if (idempotencyKey) {
        const anonymous = !principal.caller && !principal.client;
        response = await runIdempotent(
          idempotencyScope(principal, ip),
          idempotencyKey,
          requestFingerprint(request, bodyText),
          `${operation.method} ${operation.path}`,
          () => runAsActor(actor, requestId, () => answer(operation, fn(ctx))),
          (error) => toErrorResponse(error, requestId),
          {
            withholdSuccess: anonymous && operation.anonymousSecret === true,
            outsideTransaction: operation.idempotencyOutsideTransaction === true,
          },
        );
      } else {
        // The endpoint's changes are recorded in the audit trail as this actor's (lib/db/audit.ts).
        const result = await runAsActor(actor, requestId, () => fn(ctx));
        if (result instanceof Response) response = await answer(operation, result);
        else {
          // Every header known now: one Response with a plain header record, never a `Headers`.
          complete = completeJson(result, operation, { requestId, cors, extraHeaders });
          response = complete;
        }
      }
    } catch (error) {
      response = toErrorResponse(error, requestId);
    }
    let final = response;
    if (response !== complete) {
      if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
      final = withHeaders(response, cors, extraHeaders, { "x-request-id": requestId });
    }
    if (operation.auth !== "cron") {
      logRequest(request, operation, final, { requestId, caller: principal.caller, ip, identity, started });
    }
    return final;
  };
  return Object.assign(handler, { operation: operation as Operation });
}

/**
 * The response of an endpoint's `result` (awaited): a `Response` as it is, a value as JSON with
 * `operation.successStatus` (default 200); a success gets `operation.cacheControl` unless it set
 * its own Cache-Control.
 */
async function answer(operation: Operation, pending: unknown): Promise<Response> {
  const result = await pending;
  const res = result instanceof Response ? result : json(result, operation.successStatus ?? 200);
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

/** Records one answered request in the activity log (off the critical path; `started`: performance.now()). */
function logRequest(
  request: Request,
  operation: Operation,
  final: Response,
  at: {
    requestId: string;
    caller: Principal["caller"];
    ip: string;
    identity: ReturnType<typeof parseAgentIdentity>;
    started: number;
  },
): void {
  const { requestId, caller, ip, identity, started } = at;
  recordActivity({
    at: new Date(),
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

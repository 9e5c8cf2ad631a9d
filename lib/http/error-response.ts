/**
 * From anything thrown to a response: `ApiError` → its envelope; `DomainError` → the envelope of
 * the same code (lib/http/errors.ts `fromDomainError`); `ConfigError` → 503
 * CONFIGURATION_ERROR; storage failures → 503 STORAGE_ERROR; the rest → 500 INTERNAL (logged).
 * Also the refusal to serve under an incomplete production profile.
 */
import { type Config, ConfigError, getConfig, productionProblems } from "../config.js";
import { DomainError } from "../errors.js";
import { describeError } from "../log-error.js";
import { ApiError, fromDomainError } from "./errors.js";
import { newRequestId } from "./request-id.js";
import { errorResponse } from "./response.js";
import { isStorageFailure } from "./storage-failure.js";
import { traceparentOf } from "./trace.js";

/** `requestId`, with ` traceparent=…` when `request` carried a valid one. */
function logTag(requestId: string, request: Request | undefined): string {
  const traceparent = request ? traceparentOf(request) : null;
  return traceparent ? `${requestId} traceparent=${traceparent}` : requestId;
}

/**
 * Turns anything thrown into the envelope response; logs the unexpected, tagged with the request id
 * and, when `request` carried one, its W3C `traceparent` (lib/http/trace.ts).
 */
export function toErrorResponse(error: unknown, requestId: string, request?: Request): Response {
  const tag = logTag(requestId, request);
  if (error instanceof ApiError) return errorResponse(error, requestId);
  if (error instanceof DomainError) return errorResponse(fromDomainError(error), requestId);
  if (error instanceof ConfigError) {
    // A bad or missing setting: the log names the variables (never their values); the caller gets
    // the code and the request id only (issue 25 item 9).
    console.error(`[${tag}] configuration error: ${error.message}`);
    return errorResponse(configurationError(requestId), requestId);
  }
  if (isStorageFailure(error)) {
    console.error(`[${tag}] storage failure: ${describeError(error)}`);
    return errorResponse(
      new ApiError("STORAGE_ERROR", "Storage is temporarily unavailable; retry shortly", {
        headers: { "retry-after": "5" },
      }),
      requestId,
    );
  }
  console.error(`[${tag}] unhandled error: ${describeError(error)}`);
  return errorResponse(
    new ApiError("INTERNAL", "Internal error; the request id identifies it in our logs"),
    requestId,
  );
}

/**
 * The CONFIGURATION_ERROR a caller gets (503, `Retry-After: 60`): the code and the request id,
 * nothing of which setting is at fault or where the database is (that is in the log).
 */
function configurationError(requestId: string): ApiError {
  return new ApiError(
    "CONFIGURATION_ERROR",
    `The service is not configured to serve requests; the operator has been told. Request id ${requestId}.`,
    { headers: { "retry-after": "60" } },
  );
}

/** The configuration whose refusal was last logged (one log line per instance and configuration). */
let refusalLogged: Config | undefined;

/**
 * Refuses to serve when the production profile applies (on Vercel, NODE_ENV=production, or a
 * non-loopback DATABASE_URL; `productionProfile` in lib/config.ts) and a variable it requires is
 * missing, or a setting it forbids is on. The log names every variable (once per instance and
 * configuration); every request then gets 503 with the code and its request id only.
 * @throws ApiError CONFIGURATION_ERROR (503, `Retry-After: 60`); ConfigError when a variable has a bad value
 */
export function assertServable(config: Config = getConfig(), requestId = newRequestId()): void {
  const problem = productionProblems(config);
  if (!problem) return;
  if (refusalLogged !== config) {
    refusalLogged = config;
    console.error(`[config] ${problem}`);
  }
  throw configurationError(requestId);
}

/**
 * The 503 CONFIGURATION_ERROR response when the process must not serve (see `assertServable`),
 * else undefined. For handlers outside `endpoint()` (405, OPTIONS, the 404 route).
 */
export function configurationRefusal(): Response | undefined {
  const requestId = newRequestId();
  try {
    assertServable(getConfig(), requestId);
    return undefined;
  } catch (error) {
    return toErrorResponse(error, requestId);
  }
}

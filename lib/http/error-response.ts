/**
 * From anything thrown to a response: `ApiError` → its envelope; `DomainError` → the envelope of
 * the same code (lib/http/errors.ts `fromDomainError`); `ConfigError` → 503
 * CONFIGURATION_ERROR; storage failures → 503 STORAGE_ERROR; the rest → 500 INTERNAL (logged).
 * Also the refusal to serve under an incomplete production profile.
 */
import { type Config, ConfigError, getConfig, productionProblems, productionProfile } from "../config.js";
import { DomainError } from "../errors.js";
import { describeError } from "../log-error.js";
import { ApiError, fromDomainError } from "./errors.js";
import { newRequestId } from "./request-id.js";
import { errorResponse } from "./response.js";
import { isStorageFailure } from "./storage-failure.js";

/** Turns anything thrown into the envelope response; logs the unexpected. */
export function toErrorResponse(error: unknown, requestId: string): Response {
  if (error instanceof ApiError) return errorResponse(error, requestId);
  if (error instanceof DomainError) return errorResponse(fromDomainError(error), requestId);
  if (error instanceof ConfigError) {
    // A bad or missing setting: the message names variables, never their values.
    console.error(`[${requestId}] configuration error: ${error.message}`);
    return errorResponse(
      new ApiError("CONFIGURATION_ERROR", error.message, { headers: { "retry-after": "60" } }),
      requestId,
    );
  }
  if (isStorageFailure(error)) {
    console.error(`[${requestId}] storage failure: ${describeError(error)}`);
    return errorResponse(
      new ApiError("STORAGE_ERROR", "Storage is temporarily unavailable; retry shortly", {
        headers: { "retry-after": "5" },
      }),
      requestId,
    );
  }
  console.error(`[${requestId}] unhandled error: ${describeError(error)}`);
  return errorResponse(
    new ApiError("INTERNAL", "Internal error; the request id identifies it in our logs"),
    requestId,
  );
}

/** The configuration whose refusal was last logged (one log line per instance and configuration). */
let refusalLogged: Config | undefined;

/**
 * Refuses to serve when the production profile applies (on Vercel, NODE_ENV=production, or a
 * non-loopback DATABASE_URL; `productionProfile` in lib/config.ts) and a variable it requires is
 * missing, or a setting it forbids is on. Logged once per instance; every request then gets 503.
 * @throws ApiError CONFIGURATION_ERROR (503, `Retry-After: 60`) whose message and `missing` /
 *   `refused` members name every variable; ConfigError when a variable has a bad value
 */
export function assertServable(config: Config = getConfig()): void {
  const problem = productionProblems(config);
  if (!problem) return;
  if (refusalLogged !== config) {
    refusalLogged = config;
    console.error(`[config] ${problem}`);
  }
  const profile = productionProfile(config);
  throw new ApiError("CONFIGURATION_ERROR", problem, {
    headers: { "retry-after": "60" },
    extra: { missing: profile.missing, refused: profile.refused },
  });
}

/**
 * The 503 CONFIGURATION_ERROR response when the process must not serve (see `assertServable`),
 * else undefined. For handlers outside `endpoint()` (405, OPTIONS, the 404 route).
 */
export function configurationRefusal(): Response | undefined {
  try {
    assertServable(getConfig());
    return undefined;
  } catch (error) {
    return toErrorResponse(error, newRequestId());
  }
}

/**
 * Rate limits of the wrapper: the general limit (per key, else per IP) plus an operation's extra
 * per-IP policies, and the charge of a failed authentication against the anonymous IP budget.
 */
import type { Caller } from "../keys/authenticate.js";
import { rateLimitExceeded } from "../ratelimit/enforce.js";
import {
  getLimiter,
  type Limiter,
  limitFacts,
  type RateLimitResult,
  rateLimitSubject,
} from "../ratelimit/limiter.js";
import { type ApiError, fromDomainError, rateLimitFields } from "./errors.js";
import type { Operation } from "./operation.js";

/**
 * Response headers for `result` (docs/api-conventions.md "Rate-limit headers"): the RateLimit-*
 * fields, and Retry-After (at least 1 s) when the limit is exceeded.
 * @param now ms since the epoch (default: the limiters' clock, `limitFacts`)
 */
export function rateLimitHeaders(result: RateLimitResult, now?: number): Record<string, string> {
  const { rateLimit, retryAfterSeconds } = limitFacts(result, now);
  const headers = rateLimitFields(rateLimit);
  if (!result.success) headers["retry-after"] = String(retryAfterSeconds);
  return headers;
}

/** 429 RATE_LIMITED for the exceeded `failed` result of a wrapper policy. */
function rateLimited(failed: RateLimitResult): ApiError {
  const what =
    failed.policy === "key_creation"
      ? `${failed.limit} API keys per IP per hour`
      : failed.policy === "login"
        ? `${failed.limit} login attempts per IP per hour`
        : failed.policy === "oauth_registration"
          ? `${failed.limit} client registrations per IP per hour`
          : failed.policy === "oauth"
            ? `${failed.limit} authorization server requests per IP per minute`
            : `${failed.limit} requests per minute ${failed.policy === "key" ? "per API key" : "per IP without a key"}`;
  return fromDomainError(rateLimitExceeded(failed, what));
}

/**
 * Applies the general limit (per key, else per IP, unless the operation defers the per-IP one
 * to the endpoint: `deferAnonymousLimit`) and the operation's extra per-IP limits; returns the rate-limit headers of the tightest one. Per-IP limits count an IPv6
 * client for its whole /64 (`rateLimitSubject`). Answers at once (no promise) when every limiter
 * counts in this process (`Limiter.limitNow`), else a promise; either way, `await` it.
 * @throws ApiError RATE_LIMITED (429 with Retry-After); StorageError when the limiter's storage fails
 */
export function enforceRateLimits(
  operation: Operation,
  caller: Caller | null,
  ip: string,
): Record<string, string> | Promise<Record<string, string>> {
  const subject = rateLimitSubject(ip);
  if (!caller && operation.deferAnonymousLimit && !operation.rateLimits?.length) return {};
  // An operation with its own budget for anonymous callers (the OAuth endpoints) is not counted
  // on the general one as well.
  const ownBudget = !caller && operation.deferAnonymousLimit;
  const checks: [Limiter, string][] = ownBudget
    ? []
    : [caller ? [getLimiter("key"), caller.keyId] : [getLimiter("anon"), subject]];
  for (const policy of operation.rateLimits ?? []) checks.push([getLimiter(policy), subject]);
  if (checks.every(([limiter]) => limiter.limitNow !== undefined)) {
    return tightestHeaders(checks.map(([limiter, identifier]) => limiter.limitNow!(identifier)));
  }
  return Promise.all(checks.map(([limiter, identifier]) => limiter.limit(identifier))).then(tightestHeaders);
}

/**
 * The rate-limit headers of the tightest of `results` (the wrapper's checks of one request).
 * @throws ApiError RATE_LIMITED for the first exceeded one
 */
function tightestHeaders(results: RateLimitResult[]): Record<string, string> {
  const failed = results.find((r) => !r.success);
  const tightest = failed ?? results.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  const headers = rateLimitHeaders(tightest);
  if (failed) throw rateLimited(failed);
  return headers;
}

/**
 * A request whose credential failed (401) counts against its IP's budget of requests without a
 * key (`RATE_LIMIT_ANON_PER_MIN`, per /64 for IPv6), so guessing keys costs the same as any
 * anonymous request and stops at the same limit. Returns the headers to add to the 401. Also
 * used by the MCP tools for a failed `api_key` argument (several tool calls may share a request).
 * @throws ApiError RATE_LIMITED once that budget is spent (the 429 replaces the 401)
 */
export async function chargeFailedAuthentication(ip: string): Promise<Record<string, string>> {
  const result = await getLimiter("anon").limit(rateLimitSubject(ip));
  const headers = rateLimitHeaders(result);
  if (!result.success) throw rateLimited(result);
  return headers;
}

/**
 * The general limit counted by an endpoint that defers it (`deferAnonymousLimit`): on `caller`'s
 * key budget (`RATE_LIMIT_PER_MIN`) when given, else on the IP's budget of requests without a key
 * (per /64 for IPv6), `cost` requests at once (a JSON-RPC batch counts each message). Returns the
 * RateLimit-* headers of the count.
 * @throws ApiError RATE_LIMITED (429 with Retry-After)
 */
export async function enforceGeneralLimit(
  caller: Caller | null,
  ip: string,
  cost = 1,
): Promise<Record<string, string>> {
  const result = caller
    ? await getLimiter("key").limit(caller.keyId, cost)
    : await getLimiter("anon").limit(rateLimitSubject(ip), cost);
  const headers = rateLimitHeaders(result);
  if (!result.success) throw rateLimited(result);
  return headers;
}

/**
 * Counts one request of `ip` on the named per-IP `policy` (a limit an endpoint applies to some of
 * its requests only: the OAuth client registrations).
 * @returns the rate-limit headers
 * @throws ApiError RATE_LIMITED
 */
export async function enforceNamedLimit(
  policy: "oauth_registration",
  ip: string,
): Promise<Record<string, string>> {
  const result = await getLimiter(policy).limit(rateLimitSubject(ip));
  const headers = rateLimitHeaders(result);
  if (!result.success) throw rateLimited(result);
  return headers;
}

/**
 * Rate limits counted inside an operation, once the value they are keyed on is known (an e-mail in
 * the body, the account of a code): the per-e-mail and per-IP limits of client login, password-reset
 * requests and e-mail verification (lib/accounts/client-auth.ts). Same limiter and storage as the
 * handler wrapper's limits (lib/ratelimit/limiter.ts), so the same 429 and 503 behaviour.
 */

import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { getLimiter, limitFacts, type RateLimitPolicy, type RateLimitResult } from "./limiter.js";

/**
 * Counts one attempt against each `[policy, identifier, what]` check (e-mails are counted by their
 * SHA-256, so the limiter's storage never holds an address).
 * @param checks at least one; what each limit is, for the message: "login attempts per e-mail per hour"
 * @returns the count of the tightest limit (fewest requests left), for the RateLimit-* headers
 *   (lib/http/limits.ts `rateLimitHeaders`)
 * @throws DomainError RATE_LIMITED naming the first exhausted limit (HTTP: 429 with Retry-After
 *   and RateLimit-* headers); StorageError when the limiter's storage fails (HTTP: 503)
 */
export async function enforceLimits(
  checks: { policy: RateLimitPolicy; identifier: string; what: string }[],
): Promise<RateLimitResult> {
  const results = await Promise.all(checks.map((c) => getLimiter(c.policy).limit(c.identifier)));
  const index = results.findIndex((r) => !r.success);
  if (index >= 0) {
    const failed = results[index]!;
    throw rateLimitExceeded(failed, `${failed.limit} ${checks[index]!.what}`);
  }
  return results.reduce((a, b) => (b.remaining < a.remaining ? b : a));
}

/**
 * The RATE_LIMITED error of an exhausted limit: "Rate limit exceeded: <what>; retry after N s",
 * with `limit`/`policy` members and the facts lib/http states as RateLimit-* and Retry-After
 * headers (seconds until the window refills; Retry-After at least 1). One shape for the wrapper's
 * limits (lib/http/limits.ts) and the limits counted inside operations.
 * @param what the limit in words, e.g. "5 login attempts per IP per hour"
 * @param now the current time in milliseconds since the epoch (default: the limiters' clock,
 *   `limitFacts`)
 */
export function rateLimitExceeded(failed: RateLimitResult, what: string, now?: number): DomainError {
  const { rateLimit, retryAfterSeconds } = limitFacts(failed, now);
  return new DomainError("RATE_LIMITED", `Rate limit exceeded: ${what}; retry after ${retryAfterSeconds} s`, {
    extra: { limit: failed.limit, policy: failed.policy },
    rateLimit,
    retryAfterSeconds,
  });
}

/** The limiter identifier of an e-mail address: the SHA-256 of its trimmed lowercase form. */
export function emailIdentifier(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

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
 * @param extra more `error.*` members (e.g. `reason`)
 */
export function rateLimitExceeded(
  failed: RateLimitResult,
  what: string,
  now?: number,
  extra: Record<string, unknown> = {},
): DomainError {
  const { rateLimit, retryAfterSeconds } = limitFacts(failed, now);
  return new DomainError("RATE_LIMITED", `Rate limit exceeded: ${what}; retry after ${retryAfterSeconds} s`, {
    extra: { limit: failed.limit, policy: failed.policy, ...extra },
    rateLimit,
    retryAfterSeconds,
  });
}

/** One failure-only limit: its policy, the identifier counted, the `reason` of its refusal and the limit in words. */
export interface FailureLimit {
  policy: RateLimitPolicy;
  identifier: string;
  /** `error.reason` of the 429, e.g. `account_locked`. */
  reason: string;
  /** The limit in words for the message, e.g. "failed sign-ins of this account in 15 min". */
  what: string;
}

/**
 * Limits that count failures only (staff sign-in, issue 44 item 4): `check` before the attempt
 * refuses when one is spent, without counting; `fail` counts one failure on each after the attempt
 * failed. A success counts nothing. Same limiters and storage as every other limit (@upstash/ratelimit
 * when configured), so the same 503 when the storage fails.
 */
export const failureLimits = {
  /**
   * @throws DomainError RATE_LIMITED (429, Retry-After) with `reason` of the first spent limit, in
   *   the order given; StorageError (503)
   */
  async check(limits: readonly FailureLimit[]): Promise<void> {
    const results = await Promise.all(limits.map((l) => getLimiter(l.policy).peek(l.identifier)));
    const index = results.findIndex((r) => !r.success);
    if (index < 0) return;
    const spent = limits[index]!;
    const failed = results[index]!;
    throw rateLimitExceeded(failed, `${failed.limit} ${spent.what}`, undefined, {
      reason: spent.reason,
      retry_after_seconds: limitFacts(failed).retryAfterSeconds,
    });
  },
  /** Counts one failure on each limit. @throws StorageError (503) */
  async fail(limits: readonly FailureLimit[]): Promise<void> {
    await Promise.all(limits.map((l) => getLimiter(l.policy).limit(l.identifier)));
  },
};

/** The limiter identifier of an e-mail address: the SHA-256 of its trimmed lowercase form. */
export function emailIdentifier(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

/**
 * The store of state that every instance of the service must read alike (issue 47, decision 40):
 * the rate limits (limiter.ts), the webhook circuit breaker (lib/webhooks/breaker.ts), the event
 * stream slots (lib/stream/stream-slots.ts) and the volume-alert throttle
 * (lib/activity/volume-alert.ts).
 *
 * The choice is the rate limiter's: Upstash Redis (the `@upstash/redis` client of limiter.ts
 * `getUpstashRedis`, bounded by RATE_LIMIT_TIMEOUT_MS, no retries) when UPSTASH_REDIS_REST_URL and
 * _TOKEN are set, which the production profile requires wherever it runs (lib/config/profile.ts);
 * else this process's memory, for the local profile's one process. What each user does when Redis
 * fails is its own rule (docs/reliability.md "Shared state across instances"); each says so in the
 * log through `reportSharedStoreFailure`.
 */
import type { Redis } from "@upstash/redis";
import { type Config, getConfig } from "../config.js";
import { describeError } from "../log-error.js";
import { getUpstashRedis } from "./limiter.js";

/** Keys of every shared-state user start with this (the rate limits use `ptes:rl:`). */
export const SHARED_KEY_PREFIX = "ptes:";

/**
 * The shared store under `config`: a promise of the Upstash Redis client, or undefined when
 * Upstash is not configured (the caller then keeps its state in this process).
 */
export function sharedRedis(config: Config = getConfig()): Promise<Redis> | undefined {
  return getUpstashRedis(config);
}

/** How often one user's store failure is logged at most, ms (a dead Redis would flood the log). */
const LOG_INTERVAL_MS = 60_000;
const lastLogged = new Map<string, number>();

/**
 * Logs that the shared store failed for `user` and what was done instead, at most once a minute
 * per user: `[shared-state] webhook breaker: Redis failed (<error>); <fallback>`.
 * @param user who failed, e.g. "webhook breaker"
 * @param fallback what happens instead, e.g. "this process's own breaker is used"
 * @param error the failure (described without values, lib/log-error.ts)
 * @param now epoch ms (tests)
 */
export function reportSharedStoreFailure(
  user: string,
  fallback: string,
  error: unknown,
  now = Date.now(),
): void {
  const last = lastLogged.get(user);
  if (last !== undefined && now - last < LOG_INTERVAL_MS) return;
  lastLogged.set(user, now);
  const reason = describeError(error).split("\n")[0];
  console.error(`[shared-state] ${user}: Redis failed (${reason}); ${fallback}`);
}

/** Forgets when each failure was last logged (tests). */
export function resetSharedStoreLog(): void {
  lastLogged.clear();
}

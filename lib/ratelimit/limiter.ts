/**
 * Rate limits (spec "Limits"): 60 requests/minute per API key, 20/minute per IP
 * without a key, 3 key creations per IP per hour, 5 login attempts per IP per hour
 * (each a setting, docs/api-conventions.md). Algorithm: the sliding-window counter of
 * @upstash/ratelimit (the current window's count plus the previous window's, weighted
 * by the part of it still inside the sliding window).
 *
 * Backends: Upstash Redis when UPSTASH_REDIS_REST_URL/TOKEN are set (production); else
 * an in-process implementation of the same algorithm (one local process). A storage
 * failure or timeout (RATE_LIMIT_TIMEOUT_MS) throws `StorageError`: the HTTP layer
 * answers 503 STORAGE_ERROR, failing closed as the spec requires. The Upstash packages are
 * imported on the first check that needs them, so instances without Upstash never load them
 * (cold start, docs/performance.md).
 */

import type { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import type Ipaddr from "ipaddr.js";
import { BoundedCache } from "../bounded-cache.js";
import { type Config, getConfig } from "../config.js";
import { type RateLimitFacts, StorageError } from "../errors.js";
import { ipaddrLib } from "../ip-address.js";

/**
 * The named limits. `login_email`, `reset_*` and `verify_*` are counted by lib/accounts/client-auth.ts
 * (per e-mail and per IP, lib/ratelimit/enforce.ts); `staff_sign_in_*` count the failed staff
 * sign-ins only (lib/staff/accounts.ts `signIn`, lib/ratelimit/enforce.ts `failureLimits`); the others
 * are counted by the handler wrapper.
 */
export type RateLimitPolicy =
  | "key"
  | "anon"
  | "key_creation"
  | "anon_submission"
  | "login"
  | "login_email"
  | "reset_ip"
  | "reset_email"
  | "verify_ip"
  | "verify_email"
  | "oauth"
  | "oauth_clients_ip"
  | "oauth_registration"
  | "staff_sign_in_ip"
  | "staff_sign_in_account";

/** Outcome of one check. `reset` is the epoch ms at which the current window ends. */
export interface RateLimitResult {
  policy: RateLimitPolicy;
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

/** A limiter for one policy. */
export interface Limiter {
  /** Counts `cost` requests (default 1) of `identifier`; refused whole when they do not all fit. */
  limit(identifier: string, cost?: number): Promise<RateLimitResult>;
  /** `limit` answered at once, for a limiter that keeps its counts in this process. */
  limitNow?(identifier: string, cost?: number): RateLimitResult;
  /**
   * What is left for `identifier` without counting anything (`success` false when nothing is):
   * for limits that count only failures, read before the attempt and spent only when it fails.
   */
  peek(identifier: string): Promise<RateLimitResult>;
}

/** Requests allowed and window length (seconds) of each policy under `config`. */
export function policyLimits(
  policy: RateLimitPolicy,
  config: Config,
): { tokens: number; windowSeconds: number } {
  switch (policy) {
    case "key":
      return { tokens: config.RATE_LIMIT_KEY_PER_MIN, windowSeconds: 60 };
    case "anon":
      return { tokens: config.RATE_LIMIT_ANON_PER_MIN, windowSeconds: 60 };
    case "key_creation":
      return { tokens: config.KEY_CREATIONS_PER_IP_PER_HOUR, windowSeconds: 3600 };
    case "anon_submission":
      return { tokens: config.ANON_SUBMISSIONS_PER_IP_PER_DAY, windowSeconds: 86_400 };
    case "login":
      return { tokens: config.LOGIN_ATTEMPTS_PER_IP_PER_HOUR, windowSeconds: 3600 };
    case "login_email":
      return { tokens: config.LOGIN_ATTEMPTS_PER_EMAIL_PER_HOUR, windowSeconds: 3600 };
    case "reset_ip":
    case "verify_ip":
      return { tokens: config.EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR, windowSeconds: 3600 };
    case "reset_email":
    case "verify_email":
      return { tokens: config.EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR, windowSeconds: 3600 };
    case "oauth":
      return { tokens: config.OAUTH_REQUESTS_PER_IP_PER_MIN, windowSeconds: 60 };
    case "oauth_clients_ip":
      return { tokens: config.OAUTH_CLIENT_REQUESTS_PER_IP_PER_MIN, windowSeconds: 60 };
    case "oauth_registration":
      return { tokens: config.OAUTH_REGISTRATIONS_PER_IP_PER_HOUR, windowSeconds: 3600 };
    case "staff_sign_in_ip":
      return { tokens: config.STAFF_SIGN_IN_FAILURES_PER_IP_PER_HOUR, windowSeconds: 3600 };
    case "staff_sign_in_account":
      return {
        tokens: config.STAFF_SIGN_IN_FAILURES_PER_ACCOUNT,
        windowSeconds: config.STAFF_LOCKOUT_SECONDS,
      };
  }
}

interface WindowState {
  window: number;
  current: number;
  previous: number;
}

/** The in-process sliding-window counter (same arithmetic as @upstash/ratelimit's slidingWindow). */
export class MemoryLimiter implements Limiter {
  private readonly states = new Map<string, WindowState>();

  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly tokens: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async limit(identifier: string, cost = 1): Promise<RateLimitResult> {
    return this.limitNow(identifier, cost);
  }

  async peek(identifier: string): Promise<RateLimitResult> {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    const state = this.states.get(identifier);
    const current = state?.window === window ? state.current : 0;
    const previous = !state
      ? 0
      : state.window === window
        ? state.previous
        : state.window === window - 1
          ? state.current
          : 0;
    const elapsed = (now - window * this.windowMs) / this.windowMs;
    const remaining = Math.max(0, this.tokens - current - Math.floor(previous * (1 - elapsed)));
    const reset = (window + 1) * this.windowMs;
    return { policy: this.policy, success: remaining > 0, limit: this.tokens, remaining, reset };
  }

  limitNow(identifier: string, cost = 1): RateLimitResult {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    let state = this.states.get(identifier);
    if (!state) {
      state = { window, current: 0, previous: 0 };
      this.states.set(identifier, state);
      if (this.states.size > 100_000) this.prune(window);
    } else if (state.window !== window) {
      state.previous = state.window === window - 1 ? state.current : 0;
      state.current = 0;
      state.window = window;
    }
    const elapsed = (now - window * this.windowMs) / this.windowMs;
    const weighted = Math.floor(state.previous * (1 - elapsed));
    const reset = (window + 1) * this.windowMs;
    if (state.current + weighted + cost > this.tokens) {
      return { policy: this.policy, success: false, limit: this.tokens, remaining: 0, reset };
    }
    state.current += cost;
    const remaining = Math.max(0, this.tokens - state.current - weighted);
    return { policy: this.policy, success: true, limit: this.tokens, remaining, reset };
  }

  private prune(window: number): void {
    for (const [id, s] of this.states) if (s.window < window - 1) this.states.delete(id);
  }
}

/** The Upstash backend: @upstash/ratelimit over @upstash/redis, failing closed. */
export class UpstashLimiter implements Limiter {
  private ratelimit: Promise<Ratelimit> | undefined;

  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly redis: () => Promise<Redis>,
    private readonly tokens: number,
    private readonly windowSeconds: number,
    private readonly timeoutMs: number,
  ) {}

  private async create(): Promise<Ratelimit> {
    const [{ Ratelimit }, redis] = await Promise.all([import("@upstash/ratelimit"), this.redis()]);
    return new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(this.tokens, `${this.windowSeconds} s`),
      prefix: `ptes:rl:${this.policy}`,
      timeout: this.timeoutMs,
      analytics: false,
      ephemeralCache: false,
    });
  }

  async limit(identifier: string, cost = 1): Promise<RateLimitResult> {
    let result: Awaited<ReturnType<Ratelimit["limit"]>>;
    try {
      this.ratelimit ??= this.create();
      result = await (await this.ratelimit).limit(identifier, cost === 1 ? undefined : { rate: cost });
    } catch (error) {
      throw new StorageError("rate-limit storage failed", { cause: error });
    }
    // @upstash/ratelimit fails open on timeout; the spec wants a storage failure (503).
    if (result.reason === "timeout") throw new StorageError("rate-limit storage timed out");
    void result.pending.catch(() => {});
    return {
      policy: this.policy,
      success: result.success,
      limit: result.limit,
      remaining: Math.max(0, result.remaining),
      reset: result.reset,
    };
  }

  async peek(identifier: string): Promise<RateLimitResult> {
    let left: Awaited<ReturnType<Ratelimit["getRemaining"]>>;
    try {
      this.ratelimit ??= this.create();
      left = await withTimeout((await this.ratelimit).getRemaining(identifier), this.timeoutMs);
    } catch (error) {
      throw new StorageError("rate-limit storage failed", { cause: error });
    }
    const remaining = Math.max(0, left.remaining);
    return { policy: this.policy, success: remaining > 0, limit: left.limit, remaining, reset: left.reset };
  }
}

/** `promise`, or a rejection after `ms` (getRemaining has no timeout of its own; the client's signal also bounds it). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let cache: { config: Config; limiters: Map<RateLimitPolicy, Limiter>; redis?: Promise<Redis> } | undefined;

/**
 * The clock (ms since the epoch) of the in-process limiters `getLimiter` makes and of `limitFacts`:
 * the real time (`Date.now`) unless a test gave `resetLimiters` another one.
 */
let clock: () => number = () => Date.now();

/**
 * An @upstash/redis client for the configured REST endpoint (imported and made on first call),
 * or undefined when Upstash is not configured.
 */
export function getUpstashRedis(config: Config = getConfig()): Promise<Redis> | undefined {
  if (!config.UPSTASH_REDIS_REST_URL || !config.UPSTASH_REDIS_REST_TOKEN) return undefined;
  if (cache?.config !== config) cache = { config, limiters: new Map() };
  const {
    UPSTASH_REDIS_REST_URL: url,
    UPSTASH_REDIS_REST_TOKEN: token,
    RATE_LIMIT_TIMEOUT_MS: timeoutMs,
  } = config;
  cache.redis ??= import("@upstash/redis").then(
    ({ Redis }) => new Redis({ url, token, retry: false, signal: () => AbortSignal.timeout(timeoutMs) }),
  );
  return cache.redis;
}

/** The limiter of `policy` under the current configuration (memoized). */
export function getLimiter(policy: RateLimitPolicy, config: Config = getConfig()): Limiter {
  if (cache?.config !== config) cache = { config, limiters: new Map() };
  let limiter = cache.limiters.get(policy);
  if (!limiter) {
    const { tokens, windowSeconds } = policyLimits(policy, config);
    const redis = getUpstashRedis(config);
    limiter = redis
      ? new UpstashLimiter(policy, () => redis, tokens, windowSeconds, config.RATE_LIMIT_TIMEOUT_MS)
      : new MemoryLimiter(policy, tokens, windowSeconds * 1000, clock);
    cache.limiters.set(policy, limiter);
  }
  return limiter;
}

/**
 * The identifier under which per-IP limits count `ip`: an IPv6 address counts for its whole /64
 * (one subscriber's allocation: RFC 6177, and what SLAAC hands out), so rotating addresses inside
 * it gains nothing; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) counts as its IPv4 address;
 * IPv4 addresses count alone. Anything unparsable (e.g. `unknown`) is used as it is.
 * @param ip the client IP as `clientIp` returns it
 * @returns e.g. `203.0.113.9` or `2001:db8:1:2::/64`
 */
export function rateLimitSubject(ip: string): string {
  let subject = subjects.get(ip);
  if (subject === undefined) {
    subject = subjectOf(ip);
    subjects.set(ip, subject);
  }
  return subject;
}

/** Addresses whose subject `rateLimitSubject` remembers before forgetting them all (a pure mapping). */
const SUBJECT_CACHE = 10_000;
const subjects = new BoundedCache<string, string>(SUBJECT_CACHE);

function subjectOf(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddrLib().isValid(bare)) return ip;
  const address = ipaddrLib().parse(bare);
  if (address.kind() === "ipv4") return address.toString();
  const v6 = address as Ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = ipaddrLib().IPv6.networkAddressFromCIDR(`${v6.toString()}/64`);
  return `${prefix.toString()}/64`;
}

/**
 * Forgets all limiter state (tests).
 * @param now the clock (ms since the epoch) of the in-process limiters made from now on and of
 *   `limitFacts` (Retry-After, RateLimit-Reset), until the next call; the real time (`Date.now`)
 *   when omitted. A test that spends a small budget gives a clock inside one window (e.g. a fixed
 *   time), so its counts and reset values do not depend on the time of day it runs at. Only for
 *   the in-process backend: @upstash/ratelimit reads `Date.now` itself.
 */
export function resetLimiters(now?: () => number): void {
  cache = undefined;
  clock = now ?? (() => Date.now());
}

/**
 * The facts of `result` at `now` (ms since the epoch): its limit, what is left and the seconds
 * until the window refills (`rateLimit` of a RATE_LIMITED error, the RateLimit-* headers), and
 * the Retry-After to state once it is exceeded (those seconds, at least 1).
 * @param now default: the limiters' clock (the real time, unless a test set one: `resetLimiters`)
 */
export function limitFacts(
  result: RateLimitResult,
  now = clock(),
): { rateLimit: RateLimitFacts; retryAfterSeconds: number } {
  const resetSeconds = Math.max(0, Math.ceil((result.reset - now) / 1000));
  return {
    rateLimit: { limit: result.limit, remaining: result.remaining, resetSeconds },
    retryAfterSeconds: Math.max(1, resetSeconds),
  };
}

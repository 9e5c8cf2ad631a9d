/**
 * Authentication and protection: API key cache and checks, rate limits, proxies, private callbacks, cron secret, CORS and MCP hosts.
 * One entry a variable, with its default; part of the configuration schema (lib/config/load.ts).
 */
import { z } from "zod";
import { bool, int, optionalString, optionalUrl } from "./values.js";

/** Security variables of the configuration schema, built on first use (lib/config/load.ts). */
export const securitySettings = () => ({
  /**
   * How long an instance reuses a verified API key without asking the database, ms (0: never).
   * A revocation takes effect at once on the instance that served it, on others within this time.
   */
  API_KEY_CACHE_TTL_MS: int(5_000, 0, 60_000),
  /**
   * Public reads (status, services, estimate...) sent with a key: past this many ms, or when
   * storage fails, the key check is skipped and the request is served as anonymous with a
   * `Warning` header (docs/security.md "Authentication, scopes and limits").
   */
  KEY_CHECK_TIMEOUT_MS: int(2_000, 100, 30_000),
  /** Requests per minute per API key (spec Limits). */
  RATE_LIMIT_KEY_PER_MIN: int(60, 1),
  /** Requests per minute per IP without a key (spec Limits). */
  RATE_LIMIT_ANON_PER_MIN: int(20, 1),
  /**
   * Real (non-sandbox) task submissions without an API key per IP (an IPv6 client per /64) per day,
   * over HTTP; MCP puts keyless submissions in sandbox. Each reaches a person's review queue.
   */
  ANON_SUBMISSIONS_PER_IP_PER_DAY: int(10, 1),
  /** API keys created per IP per hour (spec Limits). */
  KEY_CREATIONS_PER_IP_PER_HOUR: int(3, 1),
  /** Login attempts per IP per hour (spec Limits). */
  LOGIN_ATTEMPTS_PER_IP_PER_HOUR: int(5, 1),
  /** Login attempts per account e-mail per hour, from any IP (password guessing spread over many IPs). */
  LOGIN_ATTEMPTS_PER_EMAIL_PER_HOUR: int(10, 1),
  /**
   * Failed staff sign-ins per IP per hour (successes are not counted; issue 44 item 4): high enough
   * for an office or a carrier NAT where a whole team shares one address and mistypes now and then;
   * it stops a password sprayer hitting many accounts from one address.
   */
  STAFF_SIGN_IN_FAILURES_PER_IP_PER_HOUR: int(100, 1),
  /** Failed sign-ins of one staff account (from any IP) that lock it for STAFF_LOCKOUT_SECONDS. */
  STAFF_SIGN_IN_FAILURES_PER_ACCOUNT: int(5, 1),
  /** The window of STAFF_SIGN_IN_FAILURES_PER_ACCOUNT and the lockout it causes, seconds. */
  STAFF_LOCKOUT_SECONDS: int(900, 60, 86_400),
  /** `reset-request` and `verify-email` calls per IP per hour (each action counted on its own). */
  EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR: int(10, 1),
  /** `reset-request` and `verify-email` calls per account e-mail per hour (each action on its own). */
  EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR: int(5, 1),
  /**
   * Upstash Redis REST endpoint; with the token it holds what every instance must share: rate
   * limits, event-stream slots, the webhook breaker and the volume-alert throttle
   * (lib/ratelimit/shared-store.ts; idempotency records stay in the database). Required in the
   * production profile; unset, a local run keeps them in its process.
   */
  UPSTASH_REDIS_REST_URL: optionalUrl(),
  UPSTASH_REDIS_REST_TOKEN: optionalString(),
  /**
   * Bound of every Upstash call, ms: past it a rate limit or a stream slot answers 503
   * STORAGE_ERROR (fail closed); the webhook breaker and the volume-alert throttle use the
   * instance's own state meanwhile.
   */
  RATE_LIMIT_TIMEOUT_MS: int(1000, 50, 10_000),

  /** Volume alert floor: an hour with fewer requests than this never alerts (spec "What the service does" 9). */
  VOLUME_ALERT_MIN_REQUESTS: int(30, 1),

  /** Where the client IP comes from: `socket`, `vercel` (x-real-ip / x-vercel-forwarded-for) or `x-forwarded-for`. */
  TRUST_PROXY: z.enum(["auto", "socket", "vercel", "x-forwarded-for"]).default("auto"),
  /** Set by Vercel in its functions. */
  VERCEL: optionalString(),

  /** Requests per minute to the OAuth authorization server (/oauth/*, the metadata documents), per IP, and per client and IP for a request naming a `client_id` (lib/oauth/limits.ts): their own budget, not the general one. */
  OAUTH_REQUESTS_PER_IP_PER_MIN: int(30, 1),
  /** Requests per minute per IP to /oauth/* naming a client, all clients together: the ceiling of an address many clients share (a hosted assistant's). */
  OAUTH_CLIENT_REQUESTS_PER_IP_PER_MIN: int(600, 1),
  /** Dynamic client registrations (RFC 7591) per IP per hour. */
  OAUTH_REGISTRATIONS_PER_IP_PER_HOUR: int(10, 1),
  /** Bound of one fetch of a client ID metadata document, ms (connect, headers and body). */
  OAUTH_CLIENT_METADATA_TIMEOUT_MS: int(2_500, 100, 10_000),
  /** Largest client ID metadata document accepted, bytes. */
  OAUTH_CLIENT_METADATA_MAX_BYTES: int(5_120, 512, 65_536),
  /** Lifetime of an OAuth access token, seconds (refresh tokens rotate on use and live 30 days). */
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: int(3_600, 60, 86_400),

  /** Lets webhook and callback URLs use http:// and loopback addresses. Local development and tests only. */
  ALLOW_PRIVATE_CALLBACKS: bool(false),
  /** Bearer secret Vercel Cron sends to /api/cron/*; required in production. */
  CRON_SECRET: optionalString(),
  /** Comma-separated origins allowed by CORS; `*` allows any. */
  CORS_ALLOWED_ORIGINS: z.string().default("*"),

  /** MCP DNS-rebinding protection: extra allowed Host values (comma-separated); PUBLIC_BASE_URL's host is always allowed. */
  MCP_ALLOWED_HOSTS: optionalString(),
  /** MCP DNS-rebinding protection: extra allowed Origin values (comma-separated). */
  MCP_ALLOWED_ORIGINS: optionalString(),
  /**
   * Most messages in one JSON-RPC batch posted to /api/mcp (revisions before 2025-06-18 allow
   * batches); each message counts one request against the caller's rate limit, a larger batch → 400.
   */
  MCP_MAX_BATCH_MESSAGES: int(10, 1, 100),
});

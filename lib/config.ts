/**
 * Every environment variable the service reads, parsed once with zod.
 *
 * Each entry carries its default next to where it is parsed; `.env.example` lists
 * the same variables. A bad value throws a `ConfigError` naming the variable, so a
 * misconfigured deployment fails at its first request instead of misbehaving.
 */
import ipaddr from "ipaddr.js";
import { z } from "zod";

const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : v === "true" || v === "1" || v === "yes"));

const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const num = (fallback: number, min = 0, max = Number.MAX_VALUE) =>
  z.coerce.number().min(min).max(max).default(fallback);

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()))
  .pipe(z.url().optional());

/** The schema of the process environment, variable by variable, with defaults. */
export const configSchema = z.object({
  /** `development`, `test` or `production`. */
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Port of the local host (`npm start`). */
  PORT: int(3000, 0, 65535),
  /** Host interface the local host binds to. */
  HOST: z.string().default("127.0.0.1"),
  /** Public origin used in links (`_links`, `api_url`); defaults to http://localhost:PORT. */
  PUBLIC_BASE_URL: optionalUrl,

  /** Postgres URL. Unset: embedded PGlite under DATA_DIR. */
  DATABASE_URL: optionalString,
  /** `auto` (neon for *.neon.tech hosts, else node-postgres), `pg`, `neon` or `pglite`. */
  DATABASE_DRIVER: z.enum(["auto", "pg", "neon", "pglite"]).default("auto"),
  /** Directory of the embedded database (and other local state). */
  DATA_DIR: z.string().default(".data"),
  /** Neon driver only: a plain-ws proxy host:port (e.g. websockify) instead of Neon's endpoint; tests use it. */
  NEON_WS_PROXY: optionalString,
  /** Maximum connections of the node-postgres / Neon pool. */
  DATABASE_POOL_MAX: int(10, 1, 200),
  /**
   * Bound of every wait on a networked database (node-postgres or Neon), ms: one query, a new
   * connection or a free pooled one. Past it the request gets 503 STORAGE_ERROR and the
   * connection is discarded. The server cancels statements at 80 % of it and ends sessions
   * idle in a transaction after twice it (lib/db/client.ts `boundedPoolOptions`).
   */
  DB_QUERY_TIMEOUT_MS: int(5000, 100, 30_000),

  /** Prefix of API keys (`<prefix>_<random>`), contract.md. */
  KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, "lowercase letters and digits, 2-16 chars")
    .default("svc"),
  /** Prefix of task ids (`<prefix>-<base36>-<base36>`), contract.md. */
  TASK_PREFIX: z
    .string()
    .regex(/^[A-Z][A-Z0-9]{1,15}$/, "uppercase letters and digits, 2-16 chars")
    .default("TASK"),

  /** Largest request body accepted, bytes (413 above). Vercel itself caps bodies at 4.5 MB. */
  MAX_BODY_BYTES: int(1_048_576, 1024, 4_500_000),
  /** Largest body of the proof-upload operation (task-complete), bytes. */
  MAX_UPLOAD_BYTES: int(4_400_000, 1024, 4_500_000),

  /** Average road speed used to derive transport hours from round-trip km (contract.md). */
  TRANSPORT_SPEED_KMH: num(60, 1, 200),
  /** Great-circle distance x this factor = road distance, for gazetteer places without a provider. */
  ROAD_FACTOR: num(1.3, 1, 3),
  /** Distance-matrix provider for places outside the known-locations table: `none` or `osrm`. */
  DISTANCE_PROVIDER: z.enum(["none", "osrm"]).default("none"),
  /** Base URL of an OSRM server (its /table/v1/driving service). */
  OSRM_URL: optionalUrl,
  /** Timeout of one distance-matrix request, ms; on failure the estimate falls back to the gazetteer. */
  DISTANCE_TIMEOUT_MS: int(2000, 100, 30_000),

  /**
   * CAD→USD rate, USD per 1 CAD: the rate of the `fixed` provider, and with `valet` the
   * rate shown by estimates when no fresh live rate exists (approval never uses it there).
   */
  CAD_USD_FALLBACK_RATE: num(0.71, 0.1, 5),
  /** Exchange-rate provider: `fixed` (CAD_USD_FALLBACK_RATE) or `valet` (Bank of Canada). Unset: `valet` in production, `fixed` otherwise. */
  EXCHANGE_RATE_PROVIDER: z.enum(["fixed", "valet"]).optional(),
  /** Base URL of the Bank of Canada Valet API (series FXUSDCAD). */
  VALET_URL: z.url().default("https://www.bankofcanada.ca/valet"),
  /** Timeout of one Valet request, ms. */
  EXCHANGE_RATE_TIMEOUT_MS: int(3000, 100, 30_000),
  /** A cached live rate is re-fetched after this many minutes (Valet publishes once per business day). */
  EXCHANGE_RATE_REFRESH_MINUTES: int(60, 1, 1440),
  /** Hours after its `as_of` past which a live rate is stale: approval is refused (503 EXCHANGE_RATE_UNAVAILABLE). */
  EXCHANGE_RATE_MAX_AGE_HOURS: int(120, 1, 24 * 30),

  /** Ethereum (layer 1) JSON-RPC URL; the network accepts payments when this and ETHEREUM_WALLET are set. */
  ETHEREUM_RPC_URL: optionalUrl,
  /** Ethereum chain id (1 = mainnet). */
  ETHEREUM_CHAIN_ID: int(1, 1),
  /** USDC contract on Ethereum. */
  ETHEREUM_USDC_CONTRACT: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
    .default("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
  /** Service wallet receiving USDC on Ethereum. */
  ETHEREUM_WALLET: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** When an Ethereum block counts as confirmed: `finalized`, `safe`, `latest` or a number of confirmations (≥ 1). */
  ETHEREUM_CONFIRMATIONS: z
    .string()
    .regex(/^(finalized|safe|latest|[1-9][0-9]{0,3})$/, "finalized, safe, latest or 1-9999")
    .default("finalized"),
  /** First Ethereum block to scan when no cursor exists; unset: the confirmed head minus CHECKER_RESCAN_BLOCKS. */
  ETHEREUM_START_BLOCK: optionalString.pipe(z.coerce.number<string>().int().min(0).optional()),
  /** Base (layer 2) JSON-RPC URL; the network accepts payments when this and BASE_WALLET are set. */
  BASE_RPC_URL: optionalUrl,
  /** Base chain id (8453 = mainnet). */
  BASE_CHAIN_ID: int(8453, 1),
  /** USDC contract on Base. */
  BASE_USDC_CONTRACT: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
    .default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
  /** Service wallet receiving USDC on Base. */
  BASE_WALLET: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** When a Base block counts as confirmed: `finalized`, `safe`, `latest` or a number of confirmations (≥ 1). */
  BASE_CONFIRMATIONS: z
    .string()
    .regex(/^(finalized|safe|latest|[1-9][0-9]{0,3})$/, "finalized, safe, latest or 1-9999")
    .default("safe"),
  /** First Base block to scan when no cursor exists; unset: the confirmed head minus CHECKER_RESCAN_BLOCKS. */
  BASE_START_BLOCK: optionalString.pipe(z.coerce.number<string>().int().min(0).optional()),
  /** Largest block range of one eth_getLogs request (RPC providers cap it). */
  CHECKER_BLOCK_RANGE: int(1000, 1, 100_000),
  /** Most new blocks one checker run scans per network (a long backlog is caught up over several runs). */
  CHECKER_MAX_BLOCKS_PER_RUN: int(20_000, 1, 10_000_000),
  /** Blocks below the cursor re-scanned on every run to catch reorgs. */
  CHECKER_RESCAN_BLOCKS: int(12, 0, 10_000),
  /** Payments the checker records per database transaction (two such batches run at once). */
  CHECKER_PAY_BATCH: int(1000, 1, 10_000),
  /** Timeout of one JSON-RPC request of the checker, ms (no retries: the next run retries). */
  CHECKER_RPC_TIMEOUT_MS: int(10_000, 100, 60_000),
  /**
   * Hours during which a released USDC amount (its task paid, expired or cancelled) is given
   * to no other task, so a late transfer meant for the old task can never pay a new one
   * (0: reusable at once; the block-time rule still applies). Default 168 (7 days).
   */
  AMOUNT_REUSE_COOLDOWN_HOURS: int(168, 0, 24 * 366),

  /**
   * How long an instance reuses a verified API key without asking the database, ms (0: never).
   * A revocation takes effect at once on the instance that served it, on others within this time.
   */
  API_KEY_CACHE_TTL_MS: int(5_000, 0, 60_000),
  /**
   * Public reads (status, services, estimate...) sent with a key: past this many ms, or when
   * storage fails, the key check is skipped and the request is served as anonymous with a
   * `Warning` header (README "Authentication, scopes and limits").
   */
  KEY_CHECK_TIMEOUT_MS: int(2_000, 100, 30_000),
  /** Requests per minute per API key (spec Limits). */
  RATE_LIMIT_KEY_PER_MIN: int(60, 1),
  /** Requests per minute per IP without a key (spec Limits). */
  RATE_LIMIT_ANON_PER_MIN: int(20, 1),
  /** API keys created per IP per hour (spec Limits). */
  KEY_CREATIONS_PER_IP_PER_HOUR: int(3, 1),
  /** Login attempts per IP per hour (spec Limits). */
  LOGIN_ATTEMPTS_PER_IP_PER_HOUR: int(5, 1),
  /** Login attempts per account e-mail per hour, from any IP (password guessing spread over many IPs). */
  LOGIN_ATTEMPTS_PER_EMAIL_PER_HOUR: int(10, 1),
  /** `reset-request` and `verify-email` calls per IP per hour (each action counted on its own). */
  EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR: int(10, 1),
  /** `reset-request` and `verify-email` calls per account e-mail per hour (each action on its own). */
  EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR: int(5, 1),
  /** Upstash Redis REST endpoint; with the token it backs rate limits and idempotency. */
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  /** Rate-limit storage timeout, ms; past it the request gets 503 STORAGE_ERROR (fail closed). */
  RATE_LIMIT_TIMEOUT_MS: int(1000, 50, 10_000),

  /** Volume alert floor: an hour with fewer requests than this never alerts (spec "What the service does" 9). */
  VOLUME_ALERT_MIN_REQUESTS: int(30, 1),

  /** Where the client IP comes from: `socket`, `vercel` (x-real-ip / x-vercel-forwarded-for) or `x-forwarded-for`. */
  TRUST_PROXY: z.enum(["auto", "socket", "vercel", "x-forwarded-for"]).default("auto"),
  /** Set by Vercel in its functions. */
  VERCEL: optionalString,

  /** Lets webhook and callback URLs use http:// and loopback addresses. Local development and tests only. */
  ALLOW_PRIVATE_CALLBACKS: bool(false),
  /** Bearer secret Vercel Cron sends to /api/cron/*; required in production. */
  CRON_SECRET: optionalString,
  /** Comma-separated origins allowed by CORS; `*` allows any. */
  CORS_ALLOWED_ORIGINS: z.string().default("*"),

  /** MCP DNS-rebinding protection: extra allowed Host values (comma-separated); PUBLIC_BASE_URL's host is always allowed. */
  MCP_ALLOWED_HOSTS: optionalString,
  /** MCP DNS-rebinding protection: extra allowed Origin values (comma-separated). */
  MCP_ALLOWED_ORIGINS: optionalString,

  /**
   * AES-256-GCM key that encrypts webhook signing secrets at rest: base64 of 32 bytes
   * (`openssl rand -base64 32`). Required in production; elsewhere a fixed development key
   * (documented in README) is used when unset.
   */
  WEBHOOK_SECRET_KEY: optionalString,
  /**
   * Private Ed25519 JWK (`{"kty":"OKP","crv":"Ed25519","d":…,"x":…,"kid":…}`) that signs completion
   * receipts (lib/receipts). Required in production; elsewhere a key is generated once into
   * DATA_DIR (receipt-signing-key.json). docs/receipts.md: generation and rotation.
   */
  RECEIPT_SIGNING_KEY: optionalString,
  /**
   * Public JWKs of retired receipt keys, still served at /.well-known/jwks.json so that old
   * receipts verify: a JSON array of JWKs or a JWK Set (`{"keys":[…]}`).
   */
  RECEIPT_PREVIOUS_KEYS: optionalString,
  /** Bound of one webhook / callback delivery attempt (connect, headers, body), ms; at most 10 s. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 10_000),
  /** Delays before each retry of a failed delivery, seconds, comma-separated (contract.md: 30 s, 5 min, 30 min). */
  WEBHOOK_RETRY_DELAYS_SECONDS: z
    .string()
    .default("30,300,1800")
    .transform((v) => v.split(",").map((x) => Number(x.trim())))
    .pipe(z.array(z.number().int().min(1).max(86_400)).min(1).max(10)),
  /**
   * Deliveries in flight at once in one worker process (a slow receiver holds a slot for at
   * most WEBHOOK_TIMEOUT_MS; a freed slot is refilled at once). Outgoing requests mostly wait
   * on the network, so this is high enough that a hundred hanging receivers leave room.
   */
  WEBHOOK_CONCURRENCY: int(128, 1, 1024),
  /**
   * Deliveries in flight at once to one destination (scheme://host[:port]) across every
   * worker: the fairness cap, so one customer's slow or dead receiver never takes the slots
   * of another's.
   */
  WEBHOOK_DESTINATION_CONCURRENCY: int(4, 1, 64),
  /**
   * Circuit breaker: after this many consecutive failed attempts to one destination, its due
   * deliveries are recorded as failed without a request for WEBHOOK_BREAKER_COOLDOWN_SECONDS
   * (retry schedule and dead letters unchanged). 0 turns the breaker off.
   */
  WEBHOOK_BREAKER_FAILURES: int(5, 0, 1000),
  /** Circuit breaker: how long a destination stays open after its failures, seconds. */
  WEBHOOK_BREAKER_COOLDOWN_SECONDS: int(60, 1, 3600),
  /** Dead-letter retention, hours (spec Limits: 72). */
  DEAD_LETTER_RETENTION_HOURS: int(72, 1, 24 * 30),
  /**
   * Dispatch and deliver notifications right after a state change commits (`waitUntil` on
   * Vercel, in-process locally). Default on, except under NODE_ENV=test where tests drive the
   * outbox explicitly. Off: only the deliver-webhooks cron (every minute) sends them.
   */
  OUTBOX_KICK: z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v === "true" || v === "1" || v === "yes")),
  /**
   * Task e-mails per rolling 24 h to one address that no client account has verified (such
   * e-mails carry only the task id, status and a link); beyond it they are recorded as
   * `suppressed` and not sent. Bounds what an anonymous submitter can make us send to a stranger.
   */
  UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY: int(5, 0, 1000),
  /** Resend API key; unset = the embedded outbox (messages stored in `emails` and logged, not sent). */
  RESEND_API_KEY: optionalString,
  /** Resend API base URL (tests point it at a loopback server). */
  RESEND_BASE_URL: optionalUrl,
  /** Sender of client-facing e-mail (a domain verified with Resend in production). */
  EMAIL_FROM: z.string().default("Physical Task Execution Service <no-reply@example.com>"),
  /** Reply-To of client-facing e-mail; default CONTACT_EMAIL. */
  EMAIL_REPLY_TO: optionalString.pipe(z.email().optional()),
  /**
   * Longest life of one event-stream connection, seconds (max 14 400 = 4 h). Default 14 400,
   * or 55 on Vercel (below the functions' maxDuration of 60 s): the stream then sends
   * `stream.timeout` and the client reconnects with Last-Event-ID.
   */
  STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(14_400).optional(),
  /** How often the event stream reads new events from the database, ms. */
  STREAM_POLL_MS: int(500, 50, 10_000),
  /** Heartbeat (comment line) interval of idle event streams, seconds. */
  STREAM_HEARTBEAT_SECONDS: int(15, 1, 300),

  /**
   * HS256 secret of client-dashboard JWTs (POST /api/client-auth login), at least 32
   * characters. Required in production (login and JWT checks fail with 500 without it);
   * elsewhere a fixed development secret (README) is used when unset.
   */
  JWT_SECRET: optionalString.pipe(z.string().min(32).optional()),
  /** bcrypt cost of client passwords (2^cost rounds). */
  BCRYPT_COST: int(10, 4, 15),
  /** Cloudflare Turnstile secret for web registration; unset outside production = tokens not checked. */
  TURNSTILE_SECRET_KEY: optionalString,
  /**
   * Cloudflare Turnstile site key (public) of the client dashboard's registration form,
   * published in GET /api/capabilities `features.web_registration`.
   */
  TURNSTILE_SITE_KEY: optionalString,
  /** Turnstile siteverify endpoint (tests point it at a loopback stand-in). */
  TURNSTILE_VERIFY_URL: z.url().default("https://challenges.cloudflare.com/turnstile/v0/siteverify"),
  /** Timeout of one siteverify request, ms; past it web registration answers 503. */
  TURNSTILE_TIMEOUT_MS: int(5000, 100, 30_000),
  /** Prepaid accounts: `spending_level` is `warning` below this available balance, CAD. */
  BILLING_WARNING_BELOW_CAD: num(250, 0, 1_000_000),
  /** Prepaid accounts: `spending_level` is `alert` below this available balance, CAD. */
  BILLING_ALERT_BELOW_CAD: num(100, 0, 1_000_000),

  /** Operator's public contact e-mail (capabilities, cancellation policy). */
  CONTACT_EMAIL: z.email().default("operations@example.com"),
  /** Operator's inbox for alerts. */
  OPERATOR_EMAIL: z.email().default("operator@example.com"),
  /** Operator's public website. */
  WEBSITE_URL: z.url().default("https://example.com"),
  /** Operator company name. */
  OPERATOR_NAME: z.string().default("Physical Task Execution Service Inc."),
});

export type Config = z.infer<typeof configSchema>;

/** Raised when an environment variable has a bad value; the message names the variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

let cached: Config | undefined;

/** Whether `value` is the JSON of a private Ed25519 JWK (the shape RECEIPT_SIGNING_KEY needs). */
function isPrivateEd25519Jwk(value: string): boolean {
  try {
    const k = JSON.parse(value) as Record<string, unknown>;
    return k.kty === "OKP" && k.crv === "Ed25519" && typeof k.x === "string" && typeof k.d === "string";
  } catch {
    return false;
  }
}

/**
 * Parses `env` (default `process.env`) into a `Config`.
 * @throws ConfigError naming every variable with a bad value.
 */
export function parseConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${lines.join("; ")}`);
  }
  const config = result.data;
  if (config.ALLOW_PRIVATE_CALLBACKS && config.NODE_ENV === "production") {
    throw new ConfigError("ALLOW_PRIVATE_CALLBACKS: refused when NODE_ENV=production");
  }
  if (config.WEBHOOK_SECRET_KEY && Buffer.from(config.WEBHOOK_SECRET_KEY, "base64").length !== 32) {
    throw new ConfigError(
      "WEBHOOK_SECRET_KEY: must be the base64 of exactly 32 bytes (openssl rand -base64 32)",
    );
  }
  if (config.RECEIPT_SIGNING_KEY && !isPrivateEd25519Jwk(config.RECEIPT_SIGNING_KEY)) {
    throw new ConfigError(
      'RECEIPT_SIGNING_KEY: must be a private Ed25519 JWK ({"kty":"OKP","crv":"Ed25519","x":…,"d":…}; npx tsx scripts/receipt-key.ts)',
    );
  }
  if (config.DISTANCE_PROVIDER === "osrm" && !config.OSRM_URL) {
    throw new ConfigError("OSRM_URL: required when DISTANCE_PROVIDER=osrm");
  }
  if (Boolean(config.UPSTASH_REDIS_REST_URL) !== Boolean(config.UPSTASH_REDIS_REST_TOKEN)) {
    throw new ConfigError("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN: set both or neither");
  }
  return config;
}

/** The process configuration, parsed on first use and cached. */
export function getConfig(): Config {
  cached ??= parseConfig();
  return cached;
}

/** Forgets the cached configuration (tests that change `process.env`). */
export function resetConfig(): void {
  cached = undefined;
}

/** Whether `hostname` (a name or an IP literal, brackets allowed) designates this machine. */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (!ipaddr.isValid(h)) return false;
  let address = ipaddr.parse(h);
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  return address.range() === "loopback";
}

/**
 * Whether DATABASE_URL points at this machine: unset (embedded PGlite), a loopback host
 * (`localhost`, 127.0.0.0/8, ::1) or a Unix socket (`postgres:///db?host=/run/postgresql`).
 * An unparsable URL counts as remote.
 */
export function databaseIsLocal(databaseUrl: string | undefined): boolean {
  if (!databaseUrl) return true;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false;
  }
  if (url.hostname === "") {
    const socketHost = url.searchParams.get("host");
    return !socketHost || socketHost.startsWith("/") || isLoopbackHost(socketHost);
  }
  return isLoopbackHost(url.hostname);
}

/**
 * The production profile. It applies on Vercel (`VERCEL` set), with `NODE_ENV=production`, or
 * with a DATABASE_URL whose host is not loopback; only a loopback/embedded development run gets
 * the relaxed defaults (development JWT secret, fixed webhook key, unauthenticated cron,
 * unchecked CAPTCHA, http/loopback callbacks).
 */
export interface ProductionProfile {
  /** Whether the profile applies. */
  active: boolean;
  /** Why it applies, e.g. `VERCEL=1`, `NODE_ENV=production`, `DATABASE_URL host db.example.com is not loopback`. */
  reasons: string[];
  /** Variables the profile requires that are unset, in a fixed order. */
  missing: string[];
  /** Settings the profile refuses (`ALLOW_PRIVATE_CALLBACKS=true`). */
  refused: string[];
}

const profiles = new WeakMap<Config, ProductionProfile>();

/** Evaluates the production profile of `config` (see `ProductionProfile`); memoized per config. */
export function productionProfile(config: Config = getConfig()): ProductionProfile {
  let profile = profiles.get(config);
  if (!profile) {
    profile = evaluateProfile(config);
    profiles.set(config, profile);
  }
  return profile;
}

function evaluateProfile(config: Config): ProductionProfile {
  const reasons: string[] = [];
  if (config.VERCEL) reasons.push(`VERCEL=${config.VERCEL}`);
  if (config.NODE_ENV === "production") reasons.push("NODE_ENV=production");
  if (!databaseIsLocal(config.DATABASE_URL)) {
    let host = "(unparsable URL)";
    try {
      host = new URL(config.DATABASE_URL!).hostname || host;
    } catch {
      // keep the placeholder: the URL itself may hold a password
    }
    reasons.push(`DATABASE_URL host ${host} is not loopback`);
  }
  const active = reasons.length > 0;
  const missing: string[] = [];
  const refused: string[] = [];
  if (active) {
    if (!config.JWT_SECRET) missing.push("JWT_SECRET");
    if (!config.WEBHOOK_SECRET_KEY) missing.push("WEBHOOK_SECRET_KEY");
    if (!config.CRON_SECRET) missing.push("CRON_SECRET");
    if (!config.TURNSTILE_SECRET_KEY) missing.push("TURNSTILE_SECRET_KEY");
    if (!config.RECEIPT_SIGNING_KEY) missing.push("RECEIPT_SIGNING_KEY");
    // On Vercel each instance would keep its own in-process counters: limits need Upstash.
    if (config.VERCEL && !config.UPSTASH_REDIS_REST_URL) missing.push("UPSTASH_REDIS_REST_URL");
    if (config.VERCEL && !config.UPSTASH_REDIS_REST_TOKEN) missing.push("UPSTASH_REDIS_REST_TOKEN");
    if (config.ALLOW_PRIVATE_CALLBACKS) refused.push("ALLOW_PRIVATE_CALLBACKS");
  }
  return { active, reasons, missing, refused };
}

/**
 * Why the process must not serve, as one message naming every missing or refused variable, or
 * undefined when it may (development run, or production profile fully configured).
 */
export function productionProblems(config: Config = getConfig()): string | undefined {
  const profile = productionProfile(config);
  if (profile.missing.length === 0 && profile.refused.length === 0) return undefined;
  const parts: string[] = [];
  if (profile.missing.length) parts.push(`missing ${profile.missing.join(", ")}`);
  if (profile.refused.length) parts.push(`${profile.refused.map((v) => `${v}=true`).join(", ")} is refused`);
  return `Refusing to serve: the production profile applies (${profile.reasons.join("; ")}) and ${parts.join("; ")}. Set them (see README, "Production profile").`;
}

/**
 * The relaxed development defaults in effect (empty in the production profile), one line each,
 * for `npm start` to print.
 */
export function relaxedSettings(config: Config = getConfig()): string[] {
  if (productionProfile(config).active) return [];
  const out: string[] = [];
  if (!config.JWT_SECRET) out.push("JWT_SECRET unset: client JWTs use the public development secret");
  if (!config.WEBHOOK_SECRET_KEY)
    out.push("WEBHOOK_SECRET_KEY unset: webhook secrets use the fixed development key");
  if (!config.CRON_SECRET) out.push("CRON_SECRET unset: /api/cron/* runs for any caller");
  if (!config.TURNSTILE_SECRET_KEY)
    out.push("TURNSTILE_SECRET_KEY unset: registration CAPTCHA tokens are not checked");
  if (!config.RECEIPT_SIGNING_KEY)
    out.push("RECEIPT_SIGNING_KEY unset: completion receipts are signed with a key generated into DATA_DIR");
  if (config.ALLOW_PRIVATE_CALLBACKS)
    out.push("ALLOW_PRIVATE_CALLBACKS=true: http:// and loopback callbacks allowed");
  if (!config.UPSTASH_REDIS_REST_URL)
    out.push("UPSTASH_REDIS_REST_URL unset: rate limits are counted in this process");
  return out;
}

/** Public origin for absolute links, without a trailing slash. */
export function publicBaseUrl(config: Config = getConfig()): string {
  return (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, "");
}

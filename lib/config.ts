/**
 * Every environment variable the service reads, parsed once with zod.
 *
 * Each entry carries its default next to where it is parsed; `.env.example` lists
 * the same variables. A bad value throws a `ConfigError` naming the variable, so a
 * misconfigured deployment fails at its first request instead of misbehaving.
 */
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

  /** CAD→USD rate used when no live rate is available (USD per 1 CAD). */
  CAD_USD_FALLBACK_RATE: num(0.71, 0.1, 5),

  /** Requests per minute per API key (spec Limits). */
  RATE_LIMIT_KEY_PER_MIN: int(60, 1),
  /** Requests per minute per IP without a key (spec Limits). */
  RATE_LIMIT_ANON_PER_MIN: int(20, 1),
  /** API keys created per IP per hour (spec Limits). */
  KEY_CREATIONS_PER_IP_PER_HOUR: int(3, 1),
  /** Login attempts per IP per hour (spec Limits). */
  LOGIN_ATTEMPTS_PER_IP_PER_HOUR: int(5, 1),
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

/** Public origin for absolute links, without a trailing slash. */
export function publicBaseUrl(config: Config = getConfig()): string {
  return (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, "");
}

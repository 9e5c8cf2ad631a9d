/**
 * Loads the configuration: the schema of the whole process environment (the groups of
 * lib/config/*.ts), its parsing with the cross-variable checks, and the cached instance.
 */

import { z } from "zod";
import { accountsSettings } from "./accounts.js";
import { notificationsSettings } from "./notifications.js";
import { paymentsSettings } from "./payments.js";
import { privacyTaxSettings } from "./privacy-taxes.js";
import { currentRequestOrigin } from "./request-origin.js";
import { securitySettings } from "./security.js";
import { serverSettings } from "./server.js";

/** Builds the schema of the process environment, variable by variable, with defaults. */
function buildConfigSchema() {
  return z.object({
    ...serverSettings(),
    ...paymentsSettings(),
    ...securitySettings(),
    ...notificationsSettings(),
    ...accountsSettings(),
    ...privacyTaxSettings(),
  });
}

let schema: ReturnType<typeof buildConfigSchema> | undefined;

/**
 * The schema of the process environment, built by its first use (the first `getConfig()`), not
 * when a function loads: its ~150 zod schemas cost tens of ms of CPU to build (cold start,
 * docs/performance.md).
 */
export function configSchema(): ReturnType<typeof buildConfigSchema> {
  schema ??= buildConfigSchema();
  return schema;
}

export type Config = z.infer<ReturnType<typeof buildConfigSchema>>;

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
 * Why the VAPID pair is unusable (RFC 8292 keys as web-push prints them: base64url of the
 * 65-byte uncompressed P-256 public point and of the 32-byte private scalar; both or neither), or
 * undefined when it is fine or absent.
 */
function vapidKeyProblem(publicKey: string | undefined, privateKey: string | undefined): string | undefined {
  if (!publicKey && !privateKey) return undefined;
  if (!publicKey || !privateKey) return "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: set both or neither";
  const bytes = (v: string) => (/^[A-Za-z0-9_-]+$/.test(v) ? Buffer.from(v, "base64url") : Buffer.alloc(0));
  const pub = bytes(publicKey);
  if (pub.length !== 65 || pub[0] !== 4) {
    return "VAPID_PUBLIC_KEY: must be the base64url of a 65-byte uncompressed P-256 point (npx web-push generate-vapid-keys)";
  }
  if (bytes(privateKey).length !== 32) {
    return "VAPID_PRIVATE_KEY: must be the base64url of 32 bytes (npx web-push generate-vapid-keys)";
  }
  return undefined;
}

/**
 * Parses `env` (default `process.env`) into a `Config`.
 * @throws ConfigError naming every variable with a bad value.
 */
export function parseConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = configSchema().safeParse(env);
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
  const vapidProblem = vapidKeyProblem(config.VAPID_PUBLIC_KEY, config.VAPID_PRIVATE_KEY);
  if (vapidProblem) throw new ConfigError(vapidProblem);
  if (config.VAPID_SUBJECT && !/^(mailto:|https:\/\/)/.test(config.VAPID_SUBJECT)) {
    throw new ConfigError("VAPID_SUBJECT: must be a mailto: or https: URL (RFC 8292)");
  }
  if (env.WEBHOOK_DESTINATION_CONCURRENCY !== undefined) {
    throw new ConfigError(
      "WEBHOOK_DESTINATION_CONCURRENCY: renamed WEBHOOK_ENDPOINT_CONCURRENCY (per registered endpoint); WEBHOOK_HOST_CONCURRENCY caps a host",
    );
  }
  if (config.WEBHOOK_ENDPOINT_CONCURRENCY * 2 > config.WEBHOOK_HOST_CONCURRENCY) {
    throw new ConfigError(
      "WEBHOOK_ENDPOINT_CONCURRENCY: at most half of WEBHOOK_HOST_CONCURRENCY, so one endpoint cannot take its host's slots",
    );
  }
  if (config.STREAM_SLOT_LEASE_SECONDS < 2 * config.STREAM_HEARTBEAT_SECONDS) {
    throw new ConfigError(
      "STREAM_SLOT_LEASE_SECONDS: at least twice STREAM_HEARTBEAT_SECONDS, so a live stream's heartbeat renews its slot before the lease lapses",
    );
  }
  if (config.DISTANCE_PROVIDER === "osrm" && !config.OSRM_URL) {
    throw new ConfigError("OSRM_URL: required when DISTANCE_PROVIDER=osrm");
  }
  if (Boolean(config.UPSTASH_REDIS_REST_URL) !== Boolean(config.UPSTASH_REDIS_REST_TOKEN)) {
    throw new ConfigError("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN: set both or neither");
  }
  if (config.TAX_REGISTERED && (!config.GST_NUMBER || !config.QST_NUMBER)) {
    throw new ConfigError("TAX_REGISTERED: GST_NUMBER and QST_NUMBER are required when registered");
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

/**
 * Public origin for absolute links, without a trailing slash: PUBLIC_BASE_URL; unset, the origin
 * the current request reached us at when its Host is trusted (lib/config/request-origin.ts: a
 * loopback name or MCP_ALLOWED_HOSTS), else `http://localhost:PORT`.
 */
export function publicBaseUrl(config: Config = getConfig()): string {
  return (config.PUBLIC_BASE_URL ?? currentRequestOrigin() ?? `http://localhost:${config.PORT}`).replace(
    /\/+$/,
    "",
  );
}

/**
 * The production profile: when it applies (Vercel, NODE_ENV=production, a remote database),
 * which variables it requires or refuses, and the relaxed development defaults otherwise.
 */
import { isLoopbackHost } from "../ip-address.js";
import { type Config, getConfig } from "./load.js";

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
 * unchecked CAPTCHA, http/loopback callbacks, state kept in one process instead of Upstash).
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
    // Wherever it runs, a production deployment may have several instances (Vercel's functions,
    // processes behind a load balancer): without a shared store each would count the rate limits,
    // the stream slots and the webhook breaker on its own (issue 47 item 4, decision 40).
    if (!config.UPSTASH_REDIS_REST_URL) missing.push("UPSTASH_REDIS_REST_URL");
    if (!config.UPSTASH_REDIS_REST_TOKEN) missing.push("UPSTASH_REDIS_REST_TOKEN");
    // Mail carries sign-up and reset codes: without a provider they would go to the log.
    if (!config.RESEND_API_KEY && !config.MAIL_DISABLED) missing.push("RESEND_API_KEY");
    // x402 settles on chain: a relayer key or a facilitator must do it (docs/x402.md).
    if (config.X402_ENABLED === true && !config.X402_RELAYER_PRIVATE_KEY && !config.X402_FACILITATOR_URL) {
      missing.push("X402_RELAYER_PRIVATE_KEY");
    }
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
  if (profile.missing.length) {
    const named = profile.missing.map((v) =>
      v === "RESEND_API_KEY"
        ? `${v} (or MAIL_DISABLED=true)`
        : v === "X402_RELAYER_PRIVATE_KEY"
          ? `${v} (or X402_FACILITATOR_URL, or X402_ENABLED=false)`
          : v,
    );
    parts.push(`missing ${named.join(", ")}`);
  }
  if (profile.refused.length) parts.push(`${profile.refused.map((v) => `${v}=true`).join(", ")} is refused`);
  return `Refusing to serve: the production profile applies (${profile.reasons.join("; ")}) and ${parts.join("; ")}. Set them (see docs/configuration.md "Production profile").`;
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
  if (!config.VAPID_PUBLIC_KEY)
    out.push(
      "VAPID_PUBLIC_KEY unset: staff push notifications are signed with a key pair generated into DATA_DIR",
    );
  if (config.ALLOW_PRIVATE_CALLBACKS)
    out.push("ALLOW_PRIVATE_CALLBACKS=true: http:// and loopback callbacks allowed");
  if (!config.UPSTASH_REDIS_REST_URL)
    out.push(
      "UPSTASH_REDIS_REST_URL unset: rate limits, stream slots, the webhook breaker and the volume-alert throttle are kept in this process",
    );
  return out;
}

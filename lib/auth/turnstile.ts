/**
 * Cloudflare Turnstile server-side check of web registrations (spec "Client accounts":
 * `cf_turnstile_token` required without a key). Wire format of siteverify: a
 * form-encoded POST of `secret`, `response` and `remoteip`, answered with JSON
 * `{ "success": boolean, "error-codes": string[], … }`.
 *
 * TURNSTILE_SECRET_KEY unset: in a loopback/embedded development run any non-empty token passes;
 * in the production profile (lib/config.ts) web registration is refused (503).
 */
import { getConfig, productionProfile } from "../config.js";
import { DomainError } from "../errors.js";

/** Outcome of one check: `skipped` when no secret is configured outside production. */
export type TurnstileResult = { ok: true; skipped: boolean } | { ok: false; errorCodes: string[] };

/**
 * Verifies `token` from `ip` with Turnstile's siteverify.
 * @throws DomainError UPSTREAM_UNAVAILABLE (not configured in production; siteverify unreachable,
 *   timed out or answered something other than its JSON)
 */
export async function verifyTurnstile(token: string, ip: string | undefined): Promise<TurnstileResult> {
  const config = getConfig();
  if (!config.TURNSTILE_SECRET_KEY) {
    if (productionProfile(config).active) {
      throw new DomainError(
        "UPSTREAM_UNAVAILABLE",
        "Web registration is not available: CAPTCHA not configured",
        { retryAfterSeconds: 3600 },
      );
    }
    return { ok: true, skipped: true };
  }
  const form = new URLSearchParams({ secret: config.TURNSTILE_SECRET_KEY, response: token });
  if (ip && ip !== "unknown") form.set("remoteip", ip);
  let data: { success?: unknown; "error-codes"?: unknown };
  try {
    const res = await fetch(config.TURNSTILE_VERIFY_URL, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      signal: AbortSignal.timeout(config.TURNSTILE_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`siteverify answered HTTP ${res.status}`);
    data = (await res.json()) as typeof data;
    if (typeof data?.success !== "boolean") throw new Error("siteverify answer has no boolean success");
  } catch (error) {
    throw new DomainError("UPSTREAM_UNAVAILABLE", "CAPTCHA verification is unavailable; retry shortly", {
      retryAfterSeconds: 30,
      cause: error,
    });
  }
  if (data.success) return { ok: true, skipped: false };
  const codes = Array.isArray(data["error-codes"]) ? data["error-codes"].map(String) : [];
  return { ok: false, errorCodes: codes };
}

/**
 * Client accounts and the operator: JWT sessions, passwords, CAPTCHA, balance alerts, contact and company details.
 * One entry a variable, with its default; part of the configuration schema (lib/config/load.ts).
 */
import { z } from "zod";
import { int, num, optionalString } from "./values.js";

/** Accounts variables of the configuration schema, built on first use (lib/config/load.ts). */
export const accountsSettings = () => ({
  /**
   * HS256 secret of client-dashboard JWTs (POST /api/client-auth login), and of the
   * purpose-bound tokens signed the same way (MCP session ids, lib/mcp/session.ts; pay-page
   * tokens, lib/payments/pay-link.ts), at least 32 characters. Required in production (login and JWT checks fail with 500 without it);
   * elsewhere a fixed development secret (README) is used when unset.
   */
  JWT_SECRET: optionalString().pipe(z.string().min(32).optional()),
  /** bcrypt cost of client passwords (2^cost rounds). */
  BCRYPT_COST: int(10, 4, 15),
  /** Cloudflare Turnstile secret for web registration; unset outside production = tokens not checked. */
  TURNSTILE_SECRET_KEY: optionalString(),
  /**
   * Cloudflare Turnstile site key (public) of the client dashboard's registration form,
   * published in GET /api/capabilities `features.web_registration`.
   */
  TURNSTILE_SITE_KEY: optionalString(),
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

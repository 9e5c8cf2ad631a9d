/**
 * Client-dashboard session tokens (spec "Authentication" 7): JWTs signed HS256 with
 * JWT_SECRET (jose), valid 24 hours, carrying the account id (`sub`), `org_id` and the
 * session id (`jti`, a `client_sessions` row that logout revokes; lib/auth/sessions.ts).
 * Presented as `Authorization: Bearer <jwt>` (docs/accounts.md "Accounts, billing and client login").
 */
import type * as Jose from "jose";
import { ConfigError, getConfig, productionProfile } from "../config.js";
import { DomainError } from "../errors.js";

/** jose, imported on first use: most requests carry no client token (cold start, docs/performance.md). */
let jose: Promise<typeof Jose> | undefined;
const loadJose = () => (jose ??= import("jose"));

/** Lifetime of a client JWT, seconds (spec "Limits": 24 hours). */
export const CLIENT_JWT_TTL_SECONDS = 24 * 3600;
/** `iss` and `aud` of client JWTs: tokens made for anything else are refused. */
export const JWT_ISSUER = "physical-task-execution-service";
export const JWT_AUDIENCE = "client-dashboard";
/** Signing secret used outside production when JWT_SECRET is unset (documented; never secret). */
export const DEV_JWT_SECRET = "development-only-jwt-secret-do-not-use-in-production";

/** Claims of a verified client JWT. */
export interface ClientSession {
  /** `jti`: the `client_sessions` row of this login. */
  sessionId: string;
  accountId: string;
  orgId: string;
  email: string;
  /** `iat`: when the token was signed (whole seconds). */
  issuedAt: Date;
  expiresAt: Date;
}

function secret(): Uint8Array {
  const config = getConfig();
  const value = config.JWT_SECRET ?? (productionProfile(config).active ? undefined : DEV_JWT_SECRET);
  if (!value)
    throw new ConfigError("JWT_SECRET: required in the production profile (client login and dashboard)");
  return new TextEncoder().encode(value);
}

/**
 * Signs a 24 h JWT for an account and session `sessionId` (its `jti`); returns it with its expiry.
 * The session row itself is written by lib/auth/sessions.ts `openSession`.
 */
export async function signClientJwt(
  account: { id: string; orgId: string; email: string },
  sessionId: string,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + CLIENT_JWT_TTL_SECONDS;
  const { SignJWT } = await loadJose();
  const token = await new SignJWT({ org_id: account.orgId, email: account.email })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(account.id)
    .setJti(sessionId)
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secret());
  return { token, expiresAt: new Date(exp * 1000) };
}

/**
 * Verifies a client JWT (signature, HS256 only, issuer, audience, expiry).
 * @throws DomainError UNAUTHORIZED (expired, forged, malformed or foreign token)
 */
export async function verifyClientJwt(token: string): Promise<ClientSession> {
  const { jwtVerify, errors: joseErrors } = await loadJose();
  try {
    const { payload } = await jwtVerify(token, secret(), {
      algorithms: ["HS256"],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
    });
    if (
      typeof payload.sub !== "string" ||
      typeof payload.org_id !== "string" ||
      typeof payload.jti !== "string" ||
      !payload.exp ||
      !payload.iat
    ) {
      throw new DomainError("UNAUTHORIZED", "The client token lacks its claims; log in again");
    }
    return {
      sessionId: payload.jti,
      accountId: payload.sub,
      orgId: payload.org_id,
      email: typeof payload.email === "string" ? payload.email : "",
      issuedAt: new Date(payload.iat * 1000),
      expiresAt: new Date(payload.exp * 1000),
    };
  } catch (error) {
    if (error instanceof DomainError || error instanceof ConfigError) throw error;
    if (error instanceof joseErrors.JWTExpired) {
      throw new DomainError("UNAUTHORIZED", "The client token has expired; log in again", {
        extra: { reason: "token_expired" },
      });
    }
    throw new DomainError("UNAUTHORIZED", "Invalid client token", { extra: { reason: "token_invalid" } });
  }
}

/** True when `value` has the shape of a JWS compact token (three base64url parts). API keys never do. */
export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
}

/** The JWT of `Authorization: Bearer <jwt>`, or undefined when the header carries none. */
export function presentedJwt(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization")?.trim() ?? "");
  return match && looksLikeJwt(match[1]!) ? match[1] : undefined;
}

/**
 * Whether a session signed at `session.issuedAt` predates the account's last password change
 * (then it must be refused: a reset ends every session opened with the old password). JWT
 * `iat` has whole seconds, so a token signed in the same second as the change still counts.
 */
export function predatesPasswordChange(
  session: Pick<ClientSession, "issuedAt">,
  account: { passwordChangedAt: Date | null },
): boolean {
  if (!account.passwordChangedAt) return false;
  return session.issuedAt.getTime() < Math.floor(account.passwordChangedAt.getTime() / 1000) * 1000;
}

/**
 * Signs a purpose-bound token (HS256 with JWT_SECRET, `iss` {@link JWT_ISSUER}): `audience` names
 * what it is for ("mcp-session", "task-pay") and no other verifier accepts it, since each checks
 * its own audience. `subject` is what it is about (a task id, or none), `claims` its data,
 * `expiresAt` its end (none: it lives as long as the secret).
 * @returns the compact JWS (visible ASCII only, usable as an HTTP header value)
 */
export async function signPurposeToken(
  audience: string,
  claims: Record<string, unknown>,
  options: { subject?: string; expiresAt?: Date; now?: Date } = {},
): Promise<string> {
  const { SignJWT } = await loadJose();
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(JWT_ISSUER)
    .setAudience(audience)
    .setIssuedAt(Math.floor((options.now ?? new Date()).getTime() / 1000));
  if (options.subject) jwt.setSubject(options.subject);
  if (options.expiresAt) jwt.setExpirationTime(Math.floor(options.expiresAt.getTime() / 1000));
  return jwt.sign(secret());
}

/**
 * The claims of a token made by {@link signPurposeToken} for `audience` (signature, HS256 only,
 * issuer, audience, expiry), or undefined for anything else: a forged, expired, malformed or
 * foreign token is simply not one of ours.
 */
export async function verifyPurposeToken(
  token: string,
  audience: string,
): Promise<(Record<string, unknown> & { sub?: string }) | undefined> {
  if (!looksLikeJwt(token)) return undefined;
  const { jwtVerify } = await loadJose();
  try {
    const { payload } = await jwtVerify(token, secret(), {
      algorithms: ["HS256"],
      issuer: JWT_ISSUER,
      audience,
    });
    return payload as Record<string, unknown> & { sub?: string };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return undefined;
  }
}

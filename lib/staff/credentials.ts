/**
 * What a request presents as a staff session, without the database (the handler wrapper reads it
 * on every request; lib/staff/sessions.ts checks it). A staff session token (`sts_…`) comes as
 * `Authorization: Bearer sts_…` (a client that keeps it in memory) or as the `staff_session`
 * cookie the sign-in sets (`HttpOnly; SameSite=Strict`, `Secure` over HTTPS). A cookie-borne
 * session must also present its CSRF token (`X-CSRF-Token`) on every unsafe method: the token is
 * derived from the session token, so only a page that read it from the sign-in or
 * `GET /api/staff-auth` (same origin) can send it (OWASP "Synchronizer token", stateless variant).
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** Prefix of a staff session token: never a key's, an access token's or a JWT's. */
export const STAFF_TOKEN_PREFIX = "sts_";
/** Name of the session cookie. */
export const STAFF_SESSION_COOKIE = "staff_session";
/** Header carrying the CSRF token of a cookie-borne session. */
export const CSRF_HEADER = "x-csrf-token";

/** A presented staff session token and how it came. */
export interface PresentedStaffToken {
  token: string;
  via: "bearer" | "cookie";
}

/** The value of cookie `name` in `header` (RFC 6265 §5.4 `cookie-string`), or undefined. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The staff session token a request presents (bearer first, then the cookie), or undefined. */
export function presentedStaffToken(request: Request): PresentedStaffToken | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "");
  if (match?.[1]?.startsWith(STAFF_TOKEN_PREFIX)) return { token: match[1], via: "bearer" };
  const cookie = cookieValue(request.headers.get("cookie"), STAFF_SESSION_COOKIE);
  if (cookie?.startsWith(STAFF_TOKEN_PREFIX)) return { token: cookie, via: "cookie" };
  return undefined;
}

/** The CSRF token of session token `token`: base64url(SHA-256("csrf\0" + token)). */
export function csrfTokenFor(token: string): string {
  return createHash("sha256").update(`csrf\0${token}`).digest("base64url");
}

/** Whether `request` carries the CSRF token of `token` (constant-time compare). */
export function csrfMatches(request: Request, token: string): boolean {
  const sent = Buffer.from(request.headers.get(CSRF_HEADER) ?? "");
  const expected = Buffer.from(csrfTokenFor(token));
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/**
 * The `Set-Cookie` value of a session `token` valid for `maxAgeSeconds` (0 clears it):
 * `HttpOnly; SameSite=Strict; Path=/`, plus `Secure` when `secure` (HTTPS, and always in production).
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${STAFF_SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

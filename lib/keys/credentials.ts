/**
 * What a request presents as an API key and what a verified key may do, without the database:
 * the handler wrapper, MCP and the workflows read these on every request, and only a key that is
 * actually checked loads the store (lib/keys/authenticate.ts, with drizzle and the tables).
 */
import type { Role, Scope } from "../db/schema/enums.js";

/** The authenticated caller. */
export interface Caller {
  keyId: string;
  name: string;
  contact: string;
  scopes: Scope[];
  isAdmin: boolean;
  /**
   * The role the key acts with for admin operations (lib/permissions.ts): `owner` for an admin key,
   * null for any other (a requester).
   */
  role: Role | null;
  /** The client account the key is linked to (docs/accounts.md "Accounts, billing and client login"), or null. */
  accountId: string | null;
  /**
   * Set when the caller is a signed-in staff member (lib/staff/sessions.ts), not a key: `keyId` is
   * then the staff id (rate limits, idempotency), `role` the staff member's, `isAdmin` true for an
   * owner only, and `scopes` empty.
   */
  staff?: { id: string; displayName: string; sessionId: string };
}

/** The API key id of `caller` for columns that reference `api_keys`: null for a staff member. */
export function keyIdOf(caller: Caller): string | null {
  return caller.staff ? null : caller.keyId;
}

/** Prefix of a task's `access_token` (keyless submissions): never a key's prefix. */
export const ACCESS_TOKEN_PREFIX = "tok_";

/**
 * The task access token a request presents in a header: `X-Task-Access-Token: <token>`, or
 * `Authorization: Bearer tok_…` (a token is told from a key by its prefix). Undefined when none;
 * the `access_token` query parameter of the stream and the cancellation is read by their schemas.
 */
export function presentedAccessToken(request: Request): string | undefined {
  const header = request.headers.get("x-task-access-token")?.trim();
  if (header) return header;
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "");
  return match?.[1]?.startsWith(ACCESS_TOKEN_PREFIX) ? match[1] : undefined;
}

/**
 * The raw API key of a request, or undefined when none is sent. `Authorization: Bearer`
 * carrying a client JWT (docs/accounts.md "Accounts, billing and client login") is not a key.
 */
export function presentedKey(request: Request): string | undefined {
  const header = request.headers.get("x-api-key");
  if (header !== null) return header.trim();
  const authorization = request.headers.get("authorization");
  if (authorization === null) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  const value = match ? match[1]!.trim() : authorization.trim();
  // A task's access token or a staff session token sent as a bearer credential is not a key
  // either (presentedAccessToken; lib/staff/credentials.ts).
  if (match && (value.startsWith(ACCESS_TOKEN_PREFIX) || value.startsWith("sts_"))) return undefined;
  // A client JWT (three dot-separated base64url parts; keys never contain a dot) is not a
  // key: the handler wrapper reads it for the auth modes `client` and `key_or_client`
  // (lib/http/auth.ts, through lib/auth/jwt.ts presentedJwt).
  return match && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value) ? undefined : value;
}

/** True when `caller` holds `scope` (the `admin` scope holds every scope). */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.isAdmin || caller.scopes.includes(scope);
}

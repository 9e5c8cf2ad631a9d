/**
 * Authenticates the API key a request carries (spec "Authentication" 1): header
 * `x-api-key: <key>` or `Authorization: Bearer <key>`. A malformed, unknown, revoked or
 * foreign-prefix key is 401 UNAUTHORIZED, never 500. `last_used_at` is written at most
 * once a minute per key, off the request's critical path.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import type { Scope } from "../db/schema/enums.js";
import { apiKeys } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import { sha256Hex } from "../ids.js";
import { looksLikeApiKey } from "./api-key-format.js";

/** The authenticated caller. */
export interface Caller {
  keyId: string;
  name: string;
  contact: string;
  scopes: Scope[];
  isAdmin: boolean;
}

/**
 * The raw API key of a request, or undefined when none is sent. `Authorization: Bearer`
 * carrying a client JWT (README "Accounts, billing and client login") is not a key.
 */
export function presentedKey(request: Request): string | undefined {
  const header = request.headers.get("x-api-key");
  if (header !== null) return header.trim();
  const authorization = request.headers.get("authorization");
  if (authorization === null) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  const value = match ? match[1]!.trim() : authorization.trim();
  // A client JWT (three dot-separated base64url parts; keys never contain a dot) is not a
  // key: operations that accept it read it themselves (lib/auth/jwt.ts presentedJwt).
  return match && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value) ? undefined : value;
}

/** True when `caller` holds `scope` (the `admin` scope holds every scope). */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.isAdmin || caller.scopes.includes(scope);
}

/**
 * Looks up `key`.
 * @throws ApiError UNAUTHORIZED for anything but an active key of this deployment.
 */
export async function authenticateKey(key: string): Promise<Caller> {
  const config = getConfig();
  if (!looksLikeApiKey(key, config.KEY_PREFIX)) {
    throw new ApiError(
      "UNAUTHORIZED",
      `Invalid API key; keys look like ${config.KEY_PREFIX}_… (POST /api/api-keys)`,
    );
  }
  const db = await getDb();
  const [row] = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      contact: apiKeys.contact,
      scopes: apiKeys.scopes,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256Hex(key)));
  if (!row) throw new ApiError("UNAUTHORIZED", "Unknown API key");
  if (row.revokedAt) throw new ApiError("UNAUTHORIZED", "This API key has been revoked");
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > 60_000) {
    const cutoff = new Date(now - 60_000);
    void db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(now) })
      .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, cutoff))))
      .catch(() => {});
  }
  return {
    keyId: row.id,
    name: row.name,
    contact: row.contact,
    scopes: row.scopes,
    isAdmin: row.scopes.includes("admin"),
  };
}

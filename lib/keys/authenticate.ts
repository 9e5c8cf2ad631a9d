/**
 * Authenticates the API key a request carries (spec "Authentication" 1): header
 * `x-api-key: <key>` or `Authorization: Bearer <key>`. A malformed, unknown, revoked or
 * foreign-prefix key is 401 UNAUTHORIZED, never 500. `last_used_at` is written at most
 * once a minute per key, off the request's critical path.
 *
 * A verified key is remembered per instance (and per database handle) for
 * `API_KEY_CACHE_TTL_MS` (default 5 s), by its SHA-256, so a busy key costs one lookup per
 * interval instead of one per request. Only active keys are remembered: an unknown or revoked
 * key is looked up every time. A key linked to an account with a pending erasure request is
 * refused with 403 FORBIDDEN, `reason: erasure_pending` (the account is on hold until the request
 * is processed or withdrawn; docs/privacy.md). `revokeApiKey` forgets the key on the instance that revokes it,
 * so it is refused there at once; another instance may accept it until its entry expires, at
 * most `API_KEY_CACHE_TTL_MS` after the revocation.
 */
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { afterCommit } from "../db/ambient.js";
import { getDb, getRootDb } from "../db/client.js";
import { apiKeys, erasureRequests, pendingErasureOf } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { looksLikeApiKey } from "./api-key-format.js";
import type { Caller } from "./credentials.js";

export type { Caller } from "./credentials.js";

/** A remembered active key: the caller, when the entry expires, when this instance last wrote `last_used_at`. */
interface CachedKey {
  caller: Caller;
  expiresAt: number;
  lastUsedAt: number;
}

/** Most keys remembered per database handle; the oldest entry goes first when full. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

/** Verified keys by SHA-256, per database handle (a new handle, as in tests, starts empty). */
const keyCaches = new WeakMap<object, Map<string, CachedKey>>();
/** Bumped by every `forgetCachedKey`: a lookup that began before a revocation is not remembered. */
let forgetEpoch = 0;

function keyCache(db: object): Map<string, CachedKey> {
  let cache = keyCaches.get(db);
  if (!cache) {
    cache = new Map();
    keyCaches.set(db, cache);
  }
  return cache;
}

/**
 * Forgets the key whose SHA-256 is `keyHash` on this instance, so its next use is looked
 * up again (called on revocation).
 */
export async function forgetCachedKey(keyHash: string): Promise<void> {
  const db = await getRootDb();
  const forget = () => {
    forgetEpoch++;
    keyCaches.get(db)?.delete(keyHash);
  };
  forget();
  // Inside a request's transaction the revocation is not visible yet: a lookup made before
  // COMMIT would remember the key again, so forget it once more after COMMIT.
  afterCommit(forget);
}

function copyCaller(caller: Caller): Caller {
  return { ...caller, scopes: [...caller.scopes] };
}

/** Writes `last_used_at` = `now` unless another request did within the minute; never throws. */
function touchLastUsed(db: Awaited<ReturnType<typeof getDb>>, keyId: string, now: number): void {
  const cutoff = new Date(now - 60_000);
  void db
    .update(apiKeys)
    .set({ lastUsedAt: new Date(now) })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, cutoff))))
    .catch(() => {});
}

/**
 * Looks up `key`: from this instance's cache of verified keys when its entry is younger
 * than `API_KEY_CACHE_TTL_MS`, else from the database.
 * @throws DomainError UNAUTHORIZED for anything but an active key of this deployment; FORBIDDEN
 *   (`reason: erasure_pending`) for a key of an account on hold for erasure.
 */
export async function authenticateKey(key: string): Promise<Caller> {
  const config = getConfig();
  if (!looksLikeApiKey(key, config.KEY_PREFIX)) {
    throw new DomainError(
      "UNAUTHORIZED",
      `Invalid API key; keys look like ${config.KEY_PREFIX}_… (POST /api/api-keys)`,
    );
  }
  const db = await getDb();
  const keyHash = sha256Hex(key);
  const ttl = config.API_KEY_CACHE_TTL_MS;
  const cache = keyCache(await getRootDb());
  const cached = cache.get(keyHash);
  const now = Date.now();
  if (cached && ttl > 0 && now < cached.expiresAt) {
    if (now - cached.lastUsedAt > 60_000) {
      cached.lastUsedAt = now;
      touchLastUsed(db, cached.caller.keyId, now);
    }
    return copyCaller(cached.caller);
  }
  if (cached) cache.delete(keyHash);
  const epoch = forgetEpoch;
  const [row] = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      contact: apiKeys.contact,
      scopes: apiKeys.scopes,
      accountId: apiKeys.accountId,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      erasurePending: sql<boolean>`exists (select 1 from ${erasureRequests} where ${pendingErasureOf(apiKeys.accountId)})`,
    })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, keyHash));
  if (!row) throw new DomainError("UNAUTHORIZED", "Unknown API key");
  if (row.revokedAt) throw new DomainError("UNAUTHORIZED", "This API key has been revoked");
  if (row.erasurePending) {
    throw new DomainError(
      "FORBIDDEN",
      "This key's account asked for the erasure of its personal information: its keys are refused while the " +
        "request is pending. Sign in to the client dashboard to export your data or withdraw the request.",
      { extra: { reason: "erasure_pending" } },
    );
  }
  let lastUsedAt = row.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (now - lastUsedAt > 60_000) {
    lastUsedAt = now;
    touchLastUsed(db, row.id, now);
  }
  const caller: Caller = {
    keyId: row.id,
    name: row.name,
    contact: row.contact,
    scopes: row.scopes,
    isAdmin: row.scopes.includes("admin"),
    role: row.scopes.includes("admin") ? "owner" : null,
    accountId: row.accountId,
  };
  if (ttl > 0 && epoch === forgetEpoch) {
    if (cache.size >= KEY_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(keyHash, { caller: copyCaller(caller), expiresAt: now + ttl, lastUsedAt });
  }
  return caller;
}

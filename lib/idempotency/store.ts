/**
 * Storage of `Idempotency-Key` records, table `idempotency_keys` (docs/reliability.md,
 * "Idempotency"). A record exists only once its request finished: it is written by
 * `saveRecord` inside the very transaction that holds the request's effects, so a record
 * without its effect, or an effect without its record, never commits. While a request runs,
 * its key is held by a transaction-scoped advisory lock (`tryLockKey`), which PostgreSQL
 * releases when the transaction ends for any reason — commit, rollback, or a client that
 * died — so a failed request never blocks its key.
 *
 * The records always live in the database, also when Upstash Redis is configured (Redis keeps
 * the rate-limit counters): Redis cannot commit together with the effect. Records are kept
 * 24 h (spec); expired ones are ignored, overwritten, and purged by `purgeExpiredRecords`.
 * Bodies are stored encrypted (lib/idempotency/seal.ts).
 */
import { and, eq, gt, lt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { rowsOf } from "../db/rows.js";
import { idempotencyKeys } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { openBody, sealBody } from "./seal.js";

/** Retention of a record, seconds (spec: keys expire after 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/**
 * On PostgreSQL servers, a request's transaction that sits idle this long (a client that
 * vanished behind a partition) is ended by the server, which frees its key and row locks.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** A stored response. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A finished request's record: its request fingerprint and response. */
export interface IdempotencyRecord {
  requestHash: string;
  response: StoredResponse;
}

/**
 * The finished, unexpired record of (`scope`, `key`), body decrypted, or undefined.
 * @throws DomainError CONFLICT when the body no longer decrypts (WEBHOOK_SECRET_KEY changed); the database's error.
 */
export async function findRecord(
  db: Db,
  scope: string,
  key: string,
  now = new Date(),
): Promise<IdempotencyRecord | undefined> {
  const [row] = await db
    .select({
      requestHash: idempotencyKeys.requestHash,
      status: idempotencyKeys.responseStatus,
      headers: idempotencyKeys.responseHeaders,
      body: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.scope, scope),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.state, "completed"),
        gt(idempotencyKeys.expiresAt, now),
      ),
    );
  if (!row || row.status === null) return undefined;
  let body: string;
  try {
    body = openBody(row.body ?? "", scope, key);
  } catch {
    // WEBHOOK_SECRET_KEY changed since: refuse rather than run the request a second time.
    throw new DomainError(
      "CONFLICT",
      "The answer stored for this Idempotency-Key can no longer be read; send the request with a new key",
      { field: "Idempotency-Key" },
    );
  }
  return { requestHash: row.requestHash, response: { status: row.status, headers: row.headers ?? {}, body } };
}

/**
 * Takes the transaction-scoped advisory lock of (`scope`, `key`) without waiting; on a
 * PostgreSQL server (`bounded`), also bounds the transaction's idle time
 * (IDLE_IN_TRANSACTION_TIMEOUT_MS). The lock is a 64-bit hash of the pair.
 * @returns false when another transaction holds it (a request with this key is running).
 */
export async function tryLockKey(tx: Db, scope: string, key: string, bounded: boolean): Promise<boolean> {
  const lock = sql`pg_try_advisory_xact_lock(hashtextextended(${`idempotency\n${scope}\n${key}`}, 0))`;
  const query = bounded
    ? sql`select ${lock} as locked, set_config('idle_in_transaction_session_timeout', ${String(IDLE_IN_TRANSACTION_TIMEOUT_MS)}, true) as idle`
    : sql`select ${lock} as locked`;
  return rowsOf<{ locked: boolean }>(await tx.execute(query))[0]?.locked === true;
}

/**
 * Writes the finished record of (`scope`, `key`) with `response` (body encrypted), replacing
 * an expired record or one left `in_progress` by an earlier version of the service.
 * @throws Error when a live finished record exists (the caller holds the key's lock, so this
 *   does not happen); the database's error.
 */
export async function saveRecord(
  tx: Db,
  record: { scope: string; key: string; requestHash: string; endpoint: string; response: StoredResponse },
  now = new Date(),
): Promise<void> {
  const { scope, key, requestHash, endpoint, response } = record;
  const values = {
    requestHash,
    endpoint,
    state: "completed" as const,
    responseStatus: response.status,
    responseHeaders: response.headers,
    responseBody: sealBody(response.body, scope, key),
    lockedUntil: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000),
  };
  const written = await tx
    .insert(idempotencyKeys)
    .values({ scope, key, ...values })
    .onConflictDoUpdate({
      target: [idempotencyKeys.scope, idempotencyKeys.key],
      set: values,
      setWhere: or(lt(idempotencyKeys.expiresAt, now), ne(idempotencyKeys.state, "completed")),
    })
    .returning({ key: idempotencyKeys.key });
  if (written.length === 0) throw new Error(`idempotency record ${scope}/${key} already exists`);
}

/**
 * Deletes records expired before `now`, at most `limit` per call (the oldest first).
 * @returns how many were deleted.
 */
export async function purgeExpiredRecords(db: Db, now = new Date(), limit = 5000): Promise<number> {
  const result = await db.execute(sql`
    with gone as (
      delete from ${idempotencyKeys} where ctid in (
        select ctid from ${idempotencyKeys} where ${idempotencyKeys.expiresAt} < ${now.toISOString()}::timestamptz
        order by ${idempotencyKeys.expiresAt} limit ${limit}
      ) returning 1
    ) select count(*)::int as n from gone`);
  return Number(rowsOf<{ n: number | string }>(result)[0]?.n ?? 0);
}

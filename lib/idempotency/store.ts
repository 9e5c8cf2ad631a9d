/**
 * Storage of `Idempotency-Key` records (contract.md "Idempotency"): the database by
 * default, Upstash Redis when configured. A record is claimed atomically by the first
 * request (insert-if-absent), then completed with the response, or released when the
 * request failed with a 5xx so that a retry runs again. Records live 24 h; an
 * `in_progress` claim whose lease ran out (a crashed request) may be taken over.
 */

import type { Redis } from "@upstash/redis";
import { and, eq, lt, or } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { idempotencyKeys } from "../db/schema/index.js";
import { StorageError } from "../http/storage-failure.js";
import { getUpstashRedis } from "../ratelimit/limiter.js";

/** Retention of a record, seconds (spec: keys expire after 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Lease of an in-progress claim, seconds. */
export const IDEMPOTENCY_LEASE_SECONDS = 60;

/** A stored response. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Result of a claim attempt. */
export type ClaimResult =
  | { kind: "claimed" }
  | { kind: "replay"; response: StoredResponse }
  | { kind: "in_progress" }
  | { kind: "mismatch" };

/** The store interface. */
export interface IdempotencyStore {
  claim(scope: string, key: string, requestHash: string, endpoint: string): Promise<ClaimResult>;
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  release(scope: string, key: string): Promise<void>;
}

/** Database store (table `idempotency_keys`). */
export class DbIdempotencyStore implements IdempotencyStore {
  async claim(scope: string, key: string, requestHash: string, endpoint: string): Promise<ClaimResult> {
    const db = await getDb();
    const now = new Date();
    const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LEASE_SECONDS * 1000);
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000);
    // Insert, or take over an expired record or a crashed claim, in one statement.
    const claimed = await db
      .insert(idempotencyKeys)
      .values({ scope, key, requestHash, endpoint, state: "in_progress", lockedUntil, expiresAt })
      .onConflictDoUpdate({
        target: [idempotencyKeys.scope, idempotencyKeys.key],
        set: {
          requestHash,
          endpoint,
          state: "in_progress",
          lockedUntil,
          expiresAt,
          createdAt: now,
          responseStatus: null,
          responseHeaders: null,
          responseBody: null,
        },
        setWhere: or(
          lt(idempotencyKeys.expiresAt, now),
          and(
            eq(idempotencyKeys.state, "in_progress"),
            lt(idempotencyKeys.lockedUntil, now),
            eq(idempotencyKeys.requestHash, requestHash),
          ),
        ),
      })
      .returning({ key: idempotencyKeys.key });
    if (claimed.length > 0) return { kind: "claimed" };
    const [row] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
    if (!row) return this.claim(scope, key, requestHash, endpoint); // released meanwhile
    if (row.requestHash !== requestHash) return { kind: "mismatch" };
    if (row.state !== "completed") return { kind: "in_progress" };
    return {
      kind: "replay",
      response: {
        status: row.responseStatus!,
        headers: row.responseHeaders ?? {},
        body: row.responseBody ?? "",
      },
    };
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    const db = await getDb();
    await db
      .update(idempotencyKeys)
      .set({
        state: "completed",
        responseStatus: response.status,
        responseHeaders: response.headers,
        responseBody: response.body,
        lockedUntil: null,
      })
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
  }

  async release(scope: string, key: string): Promise<void> {
    const db = await getDb();
    await db
      .delete(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.scope, scope),
          eq(idempotencyKeys.key, key),
          eq(idempotencyKeys.state, "in_progress"),
        ),
      );
  }

  /** Deletes expired records; returns how many. */
  async purgeExpired(now = new Date()): Promise<number> {
    const db = await getDb();
    const rows = await db
      .delete(idempotencyKeys)
      .where(lt(idempotencyKeys.expiresAt, now))
      .returning({ k: idempotencyKeys.key });
    return rows.length;
  }
}

interface RedisRecord {
  h: string;
  s: "in_progress" | "completed";
  r?: StoredResponse;
}

/** Upstash Redis store: `SET NX EX` claims, records expire by TTL. */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: Redis) {}

  private k(scope: string, key: string): string {
    return `ptes:idem:${scope}:${key}`;
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw new StorageError("idempotency storage failed", { cause: error });
    }
  }

  async claim(scope: string, key: string, requestHash: string): Promise<ClaimResult> {
    const id = this.k(scope, key);
    const record: RedisRecord = { h: requestHash, s: "in_progress" };
    const ok = await this.run(() => this.redis.set(id, record, { nx: true, ex: IDEMPOTENCY_LEASE_SECONDS }));
    if (ok === "OK") return { kind: "claimed" };
    const existing = await this.run(() => this.redis.get<RedisRecord>(id));
    if (!existing) return this.claim(scope, key, requestHash);
    if (existing.h !== requestHash) return { kind: "mismatch" };
    if (existing.s !== "completed" || !existing.r) return { kind: "in_progress" };
    return { kind: "replay", response: existing.r };
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    const id = this.k(scope, key);
    const existing = await this.run(() => this.redis.get<RedisRecord>(id));
    const record: RedisRecord = { h: existing?.h ?? "", s: "completed", r: response };
    await this.run(() => this.redis.set(id, record, { ex: IDEMPOTENCY_TTL_SECONDS }));
  }

  async release(scope: string, key: string): Promise<void> {
    await this.run(() => this.redis.del(this.k(scope, key)));
  }
}

/** The configured store. */
export function getIdempotencyStore(): IdempotencyStore {
  const redis = getUpstashRedis(getConfig());
  return redis ? new RedisIdempotencyStore(redis) : dbStore;
}

const dbStore = new DbIdempotencyStore();

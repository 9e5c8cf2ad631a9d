/**
 * `Idempotency-Key` handling for the wrapper (README "Authentication, scopes and limits";
 * docs/reliability.md "Idempotency"). Keys are scoped to the caller (API key id, else client
 * IP), 1-128 printable ASCII characters (longer → 400 INVALID_FORMAT), kept 24 h. The first
 * request runs; a replay gets the first response's status, headers and byte-identical body
 * with `Idempotency-Replayed: true`; the same key with another body → 422
 * IDEMPOTENCY_KEY_REUSED; while the first still runs → 409 CONFLICT. The request's effects
 * and its record commit in one transaction. Responses of 5xx are not kept and their effects
 * are rolled back, so a retry runs again; requests that fail validation never reach here
 * and are not stored.
 */

import { runAfterCommit, withAmbientTransaction } from "../db/ambient.js";
import { getDatabase } from "../db/client.js";
import type { IdempotencyRecord, StoredResponse } from "../idempotency/store.js";
import { sha256Hex } from "../ids.js";
import { ApiError } from "./errors.js";

const KEY_SHAPE = /^[\x21-\x7e]{1,128}$/;
const VOLATILE = new Set([
  "x-request-id",
  "date",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
]);

/**
 * Reads and checks the request's key.
 * @throws ApiError INVALID_FORMAT for a malformed key.
 */
export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!KEY_SHAPE.test(key)) {
    throw new ApiError(
      "INVALID_FORMAT",
      key.length > 128
        ? "Idempotency-Key exceeds 128 characters"
        : "Idempotency-Key must be 1-128 printable ASCII characters",
      { field: "Idempotency-Key" },
    );
  }
  return key;
}

/** Fingerprint of the request: method, path, sorted query and body text. */
export function requestFingerprint(request: Request, bodyText: string): string {
  const url = new URL(request.url);
  const query = [...url.searchParams].sort(([a], [b]) => a.localeCompare(b));
  return sha256Hex(`${request.method} ${url.pathname}?${new URLSearchParams(query)}\n${bodyText}`);
}

async function toStored(response: Response): Promise<StoredResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    if (!VOLATILE.has(k) && !k.startsWith("access-control-")) headers[k] = v;
  });
  return { status: response.status, headers, body: await response.text() };
}

function fromStored(stored: StoredResponse, replayed: boolean): Response {
  const headers = new Headers(stored.headers);
  if (replayed) headers.set("idempotency-replayed", "true");
  return new Response(stored.body, { status: stored.status, headers });
}

/** Thrown inside the request's transaction to roll it back while keeping `response`. */
class RollBack extends Error {
  constructor(readonly response: Response) {
    super("rolled back");
  }
}

function reused(): ApiError {
  return new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request", {
    field: "Idempotency-Key",
  });
}

function replayOrRefuse(record: IdempotencyRecord, fingerprint: string): Response {
  if (record.requestHash !== fingerprint) throw reused();
  return fromStored(record.response, true);
}

/**
 * Runs `execute` at most once per (`scope`, `key`), its effects and its record in one
 * transaction (docs/reliability.md, "Idempotency"):
 *
 * 1. A finished record of the key is replayed (another `fingerprint` → 422), without a
 *    transaction.
 * 2. Otherwise a transaction takes the key's advisory lock (held → 409 CONFLICT with
 *    `Retry-After: 1`), looks for a record again (one may have committed meanwhile), and runs
 *    `execute` with that transaction as the ambient one (lib/db/ambient.ts): `getDb()` returns
 *    it, the domain's transactions become savepoints in it.
 * 3. A response below 500 (or an error `toResponse` turns into one) is stored, encrypted, in
 *    the same transaction, which then commits; a 5xx rolls everything back, so a retry runs
 *    again. Work deferred with `afterCommit` (outbox kicks) runs after COMMIT.
 *
 * A request that dies (crash, lost connection) rolls back: its key is free at once. When
 * COMMIT itself fails, the outcome is unknown to this process and the caller gets 503: a
 * retry replays the record if the commit happened, runs again if it did not.
 *
 * @throws ApiError IDEMPOTENCY_KEY_REUSED (422), CONFLICT (409); storage failures (→ 503).
 */
export async function runIdempotent(
  scope: string,
  key: string,
  fingerprint: string,
  endpoint: string,
  execute: () => Promise<Response>,
  toResponse: (error: unknown) => Response,
): Promise<Response> {
  // The store (drizzle-orm, the table definitions) is imported by the first idempotent request,
  // not with the handler wrapper (cold start, docs/performance.md).
  const { findRecord, saveRecord, tryLockKey } = await import("../idempotency/store.js");
  const handle = await getDatabase();
  const root = handle.db;
  const earlier = await findRecord(root, scope, key);
  if (earlier) return replayOrRefuse(earlier, fingerprint);
  let outcome: { kind: "replay"; record: IdempotencyRecord } | { kind: "done"; stored: StoredResponse };
  let deferred: (() => void)[] = [];
  try {
    outcome = await root.transaction(async (tx) => {
      if (!(await tryLockKey(tx, scope, key, handle.driver !== "pglite"))) {
        throw new ApiError(
          "CONFLICT",
          "A request with this Idempotency-Key is still being processed; retry shortly",
          { field: "Idempotency-Key", headers: { "retry-after": "1" } },
        );
      }
      const record = await findRecord(tx, scope, key);
      if (record) return { kind: "replay" as const, record };
      const run = await withAmbientTransaction(tx, async () => {
        try {
          return await execute();
        } catch (error) {
          return toResponse(error);
        }
      });
      if (run.result.status >= 500) throw new RollBack(run.result);
      const stored = await toStored(run.result);
      await saveRecord(tx, { scope, key, requestHash: fingerprint, endpoint, response: stored });
      deferred = run.afterCommit;
      return { kind: "done" as const, stored };
    });
  } catch (error) {
    if (error instanceof RollBack) return error.response;
    throw error;
  }
  if (outcome.kind === "replay") return replayOrRefuse(outcome.record, fingerprint);
  runAfterCommit(deferred);
  return fromStored(outcome.stored, false);
}

/**
 * `Idempotency-Key` handling for the wrapper (docs/security.md "Authentication, scopes and limits";
 * docs/reliability.md "Idempotency"). Keys are scoped to the caller (API key id, else the
 * signed-in client account, else client IP: `idempotencyScope`), 1-128 printable ASCII
 * characters (longer → 400 INVALID_FORMAT), kept 24 h. The first request runs; a replay gets the
 * first response's status, headers and byte-identical body with `Idempotency-Replayed: true`;
 * the same key with another request (body, query, `X-Service-Mode`) → 422
 * IDEMPOTENCY_KEY_REUSED; while the first still runs → 409 CONFLICT. The request's effects
 * and its record commit in one transaction. Responses of 5xx and transient failures (a DNS
 * lookup that failed: `DomainError.transient`) are not kept and their effects are rolled back,
 * so a retry runs again; requests that fail validation never reach here and are not stored.
 * An anonymous caller's success answer that carries a secret shown once is never replayed
 * (409 instead; docs/decisions.md "Idempotency records of anonymous callers").
 */

import { runAfterCommit, withAmbientTransaction } from "../db/ambient.js";
import { getDatabase } from "../db/client.js";
import { DomainError } from "../errors.js";
import type { IdempotencyRecord, StoredResponse } from "../idempotency/store.js";
import { sha256Hex } from "../ids.js";
import type { Principal } from "./auth.js";
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

/**
 * Whose records a request reads and writes (issue 25): `key:<api key id>` when an API key
 * authenticated it, else `account:<client account id>` for a client session (JWT), else
 * `ip:<client IP>`. Two accounts signed in behind one IP never share records.
 */
export function idempotencyScope(principal: Principal, ip: string): string {
  if (principal.caller) return `key:${principal.caller.keyId}`;
  if (principal.client) return `account:${principal.client.account.id}`;
  return `ip:${ip}`;
}

/**
 * Fingerprint of the request (SHA-256 hex): method, path, sorted query, the `X-Service-Mode`
 * header when sent (a sandbox request is another request than a live one), the hash of an x402
 * payment header when sent (`PAYMENT-SIGNATURE` / `X-PAYMENT`), and body text.
 * Without the header the fingerprint is the one earlier versions stored.
 */
export function requestFingerprint(request: Request, bodyText: string): string {
  const url = new URL(request.url);
  const query = [...url.searchParams].sort(([a], [b]) => a.localeCompare(b));
  const head = `${request.method} ${url.pathname}?${new URLSearchParams(query)}`;
  // A JSON body never starts with "x-service-mode:", so the two forms cannot collide.
  const mode = request.headers.get("x-service-mode") || null;
  // An x402 payment (POST /api/task-pay) is part of the request: another signed payment under the
  // same key is another request. Absent, the fingerprint is the one earlier versions stored.
  const payment = request.headers.get("payment-signature") || request.headers.get("x-payment") || null;
  const paid = payment === null ? bodyText : `x402-payment: ${sha256Hex(payment)}\n${bodyText}`;
  return sha256Hex(mode === null ? `${head}\n${paid}` : `${head}\nx-service-mode: ${mode}\n${paid}`);
}

/** True when `error` is a failure a retry may not meet (`DomainError.transient`): never stored. */
function isTransient(error: unknown): boolean {
  return error instanceof DomainError && error.transient;
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

/** Options of `runIdempotent`. */
export interface IdempotencyOptions {
  /**
   * A success (2xx) answer carries a secret shown once and the caller has no credential to bind
   * it to (an anonymous caller of an `anonymousSecret` operation): a later request with the key
   * gets 409 CONFLICT instead of the answer. The effect still happens once.
   */
  withholdSuccess?: boolean;
  /**
   * The endpoint commits its own steps as it goes (an x402 settlement is recorded before its
   * transaction is broadcast, and concurrent requests must see it): it runs outside any
   * transaction, and its final answer is stored afterwards (never a 202 or a 402, which say "ask
   * again", nor a 5xx). A finished record is replayed as usual; two requests with one key that overlap
   * may both run, so such an endpoint is idempotent by itself (x402: one settlement per signed
   * authorization). Operation flag `idempotencyOutsideTransaction`.
   */
  outsideTransaction?: boolean;
}

function replayOrRefuse(
  record: IdempotencyRecord,
  fingerprint: string,
  options: IdempotencyOptions,
): Response {
  if (record.requestHash !== fingerprint) throw reused();
  if (options.withholdSuccess && record.response.status >= 200 && record.response.status < 300) {
    throw new ApiError(
      "CONFLICT",
      "This Idempotency-Key was already used: its request ran, and its answer carried a secret shown once " +
        "that is not replayed to a caller without credentials; send a new Idempotency-Key to make a new request",
      { field: "Idempotency-Key" },
    );
  }
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
 *    the same transaction, which then commits; a 5xx, or a transient error (`DomainError`
 *    with `transient`, e.g. a DNS lookup that failed), rolls everything back and is not
 *    stored, so a retry runs again. Work deferred with `afterCommit` (outbox kicks) runs after
 *    COMMIT.
 *
 * A request that dies (crash, lost connection) rolls back: its key is free at once. When
 * COMMIT itself fails, the outcome is unknown to this process and the caller gets 503: a
 * retry replays the record if the commit happened, runs again if it did not.
 *
 * @param scope whose records (`idempotencyScope`); `fingerprint`: `requestFingerprint`;
 *   `endpoint`: "METHOD /path", kept with the record; `options`: see `IdempotencyOptions`.
 * @throws ApiError IDEMPOTENCY_KEY_REUSED (422), CONFLICT (409: still running, or a withheld
 *   answer); storage failures (→ 503).
 */
export async function runIdempotent(
  scope: string,
  key: string,
  fingerprint: string,
  endpoint: string,
  execute: () => Promise<Response>,
  toResponse: (error: unknown) => Response,
  options: IdempotencyOptions = {},
): Promise<Response> {
  // The store (drizzle-orm, the table definitions) is imported by the first idempotent request,
  // not with the handler wrapper (cold start, docs/performance.md).
  const { findRecord, saveRecord, tryLockKey } = await import("../idempotency/store.js");
  const handle = await getDatabase();
  const root = handle.db;
  const earlier = await findRecord(root, scope, key);
  if (earlier) return replayOrRefuse(earlier, fingerprint, options);
  if (options.outsideTransaction) {
    let response: Response;
    try {
      response = await execute();
    } catch (error) {
      response = toResponse(error);
      if (isTransient(error)) return response;
    }
    // 202 (in flight) and 402 (pay, or pay again) say "ask again": an x402 client resends the same
    // Idempotency-Key with its payment, which must run, not replay the 402.
    if (response.status >= 500 || response.status === 202 || response.status === 402) return response;
    const stored = await toStored(response);
    try {
      await root.transaction((tx) =>
        saveRecord(tx, { scope, key, requestHash: fingerprint, endpoint, response: stored }),
      );
    } catch (error) {
      // A request with the same key finished first: its record is the answer.
      const record = await findRecord(root, scope, key);
      if (record) return replayOrRefuse(record, fingerprint, options);
      throw error;
    }
    return fromStored(stored, false);
  }
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
          return { response: await execute(), transient: false };
        } catch (error) {
          return { response: toResponse(error), transient: isTransient(error) };
        }
      });
      const { response, transient } = run.result;
      if (transient || response.status >= 500) throw new RollBack(response);
      const stored = await toStored(response);
      await saveRecord(tx, { scope, key, requestHash: fingerprint, endpoint, response: stored });
      deferred = run.afterCommit;
      return { kind: "done" as const, stored };
    });
  } catch (error) {
    if (error instanceof RollBack) return error.response;
    throw error;
  }
  if (outcome.kind === "replay") return replayOrRefuse(outcome.record, fingerprint, options);
  runAfterCommit(deferred);
  return fromStored(outcome.stored, false);
}

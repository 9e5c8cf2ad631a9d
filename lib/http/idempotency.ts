/**
 * `Idempotency-Key` handling for the wrapper (contract.md "Idempotency"). Keys are
 * scoped to the caller (API key id, else client IP), 1-128 printable ASCII characters
 * (longer → 400 INVALID_FORMAT), kept 24 h. The first request runs; a replay gets the
 * first response's status, headers and byte-identical body with
 * `Idempotency-Replayed: true`; the same key with another body → 422
 * IDEMPOTENCY_KEY_REUSED; while the first still runs → 409 CONFLICT. Responses of
 * 5xx are not kept, so a retry runs again; requests that fail validation never
 * reach here and are not stored.
 */

import { getIdempotencyStore, type StoredResponse } from "../idempotency/store.js";
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

/**
 * Runs `execute` at most once per (scope, key). `execute` returns the response, or
 * throws; thrown errors are turned into responses by `toResponse` and kept unless 5xx.
 */
export async function runIdempotent(
  scope: string,
  key: string,
  fingerprint: string,
  endpoint: string,
  execute: () => Promise<Response>,
  toResponse: (error: unknown) => Response,
): Promise<Response> {
  const store = getIdempotencyStore();
  const claim = await store.claim(scope, key, fingerprint, endpoint);
  if (claim.kind === "replay") return fromStored(claim.response, true);
  if (claim.kind === "mismatch") {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request", {
      field: "Idempotency-Key",
    });
  }
  if (claim.kind === "in_progress") {
    throw new ApiError(
      "CONFLICT",
      "A request with this Idempotency-Key is still being processed; retry shortly",
      {
        field: "Idempotency-Key",
        headers: { "retry-after": "1" },
      },
    );
  }
  let response: Response;
  try {
    response = await execute();
  } catch (error) {
    response = toResponse(error);
  }
  if (response.status >= 500) {
    await store.release(scope, key);
    return response;
  }
  const stored = await toStored(response);
  await store.complete(scope, key, stored);
  return fromStored(stored, false);
}

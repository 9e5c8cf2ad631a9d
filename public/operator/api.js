/**
 * The console's HTTP client: same-origin fetch with the admin key in `x-api-key` (never in a
 * URL), `Idempotency-Key` on every POST, and the service's error envelope
 * `{ error: { code, message, field?, details }, request_id }` turned into an ApiError.
 *
 * The key lives in sessionStorage: it survives a reload of the tab but not closing it, and is
 * never written to localStorage, cookies or URLs (README "Operator console").
 */

import { ApiError, fetchJson, newIdempotencyKey } from "../shared/api.js";

export { ApiError, newIdempotencyKey };

const KEY_STORAGE = "operator.apiKey";

/** The stored admin key, or null. */
export function getKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return memoryKey;
  }
}

let memoryKey = null;

/** Stores the key for this tab (memory only when sessionStorage is unavailable). */
export function setKey(key) {
  memoryKey = key;
  try {
    if (key === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // private mode: memory only
  }
}

/**
 * Calls the API. `key` overrides the stored key (used to check a key before storing it).
 * @returns {Promise<any>} the parsed JSON body of a 2xx answer
 * @throws {ApiError}
 */
export async function request(method, path, { body, idempotencyKey, key } = {}) {
  const headers = {};
  const apiKey = key ?? getKey();
  if (apiKey) headers["x-api-key"] = apiKey;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  return fetchJson(method, path, { body, headers });
}

/** GET `path`. */
export function get(path, options = {}) {
  return request("GET", path, options);
}

/**
 * POSTs `body` with an Idempotency-Key owned by `owner` (a form): the key is kept while the
 * body stays the same, so a double tap or a retry after a network error replays the first
 * answer instead of acting twice; a changed body gets a new key.
 */
export function postIdempotent(owner, path, body) {
  const serialized = JSON.stringify(body);
  let state = owners.get(owner);
  if (!state || state.body !== serialized) {
    state = { body: serialized, key: newIdempotencyKey() };
    owners.set(owner, state);
  }
  return request("POST", path, { body, idempotencyKey: state.key });
}

const owners = new WeakMap();

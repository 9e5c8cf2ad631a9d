/**
 * The HTTP client of the operator pages (console and analytics): same-origin fetch carrying the
 * staff session cookie (`staff_session`, HttpOnly: this script never sees it), the session's CSRF
 * token as `X-CSRF-Token` on every POST/DELETE, `Idempotency-Key` on every POST, and the service's
 * error envelope `{ error: { code, message, field?, permission?, details }, request_id }` turned
 * into an ApiError.
 *
 * What the page knows of the session — the signed-in staff member, the CSRF token, the role's
 * permissions — lives in memory only: never in sessionStorage, localStorage or a URL. A reload
 * reads it again with GET /api/staff-auth (./login.js).
 */

import { ApiError, fetchJson, newIdempotencyKey } from "../shared/api.js";

export { ApiError, newIdempotencyKey };

/** @type {{ staff: { staff_id: string, email: string, display_name: string, role: string }, csrfToken: string, permissions: string[] } | null} */
let session = null;

/** The signed-in staff member's session as the page keeps it (memory), or null. */
export function getSession() {
  return session;
}

/**
 * Keeps (or with null forgets) the session: the staff member, the CSRF token and the permissions
 * of its role (from /api/capabilities; the server still checks each request).
 */
export function setSession(value) {
  session = value;
}

/** Whether the signed-in staff member's role holds `permission` (false when signed out). */
export function can(permission) {
  return Boolean(session?.permissions.includes(permission));
}

/**
 * Calls the API with the session cookie; unsafe methods carry the CSRF token.
 * @returns {Promise<any>} the parsed JSON body of a 2xx answer
 * @throws {ApiError}
 */
export async function request(method, path, { body, idempotencyKey } = {}) {
  const headers = {};
  if (method !== "GET" && method !== "HEAD" && session?.csrfToken)
    headers["x-csrf-token"] = session.csrfToken;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  return fetchJson(method, path, { body, headers, credentials: "same-origin" });
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

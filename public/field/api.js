/**
 * The field app's HTTP client. The staff session rides in the `staff_session` cookie (HttpOnly,
 * SameSite=Strict: the page never sees the token); requests send it (`credentials:
 * "same-origin"`), and every POST carries the session's CSRF token (`X-CSRF-Token`, read from GET
 * /api/staff-auth and kept in memory only: nothing is written to any storage) and an
 * `Idempotency-Key`. The service's error envelope becomes an ApiError (shared/api.js).
 */

import { ApiError, fetchJson, newIdempotencyKey } from "../shared/api.js";

export { ApiError, newIdempotencyKey };

/** The signed-in session as GET /api/staff-auth answers it, in memory; null when signed out. */
let session = null;

/** The session (`{ staff, csrf_token, expires_at }`), or null. */
export function currentSession() {
  return session;
}

/** Forgets the session (after sign-out, or when the server refused it). */
export function forgetSession() {
  session = null;
}

/**
 * Reads the session of the cookie (GET /api/staff-auth): keeps its CSRF token in memory.
 * @returns the session, or null when there is none (401)
 */
export async function loadSession() {
  try {
    session = await fetchJson("GET", "/api/staff-auth", { credentials: "same-origin" });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) session = null;
    else throw error;
  }
  return session;
}

/**
 * Calls the API with the session cookie; a POST also sends the CSRF token and `idempotencyKey`.
 * @returns {Promise<any>} the parsed JSON body of a 2xx answer
 * @throws {ApiError}
 */
export function request(method, path, { body, idempotencyKey } = {}) {
  const headers = {};
  if (method !== "GET" && session?.csrf_token) headers["x-csrf-token"] = session.csrf_token;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  return fetchJson(method, path, { body, headers, credentials: "same-origin" });
}

/** GET `path`. */
export function get(path) {
  return request("GET", path);
}

const owners = new WeakMap();

/**
 * POSTs `body` with an Idempotency-Key owned by `owner` (a form, a file): the key is kept while
 * the body stays the same, so a double tap or a retry after a network error replays the first
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

/** Signs in (POST /api/staff-auth): the answer sets the cookie; only its CSRF token is kept, re-read from the session. */
export async function signIn({ email, password, totp_code, recovery_code }) {
  await fetchJson("POST", "/api/staff-auth?action=sign-in", {
    body: { email, password, ...(recovery_code ? { recovery_code } : { totp_code }) },
    credentials: "same-origin",
  });
  return loadSession();
}

/** Signs out (the server revokes the session and clears the cookie). */
export async function signOut() {
  try {
    await request("POST", "/api/staff-auth?action=sign-out", { body: {} });
  } finally {
    forgetSession();
  }
}

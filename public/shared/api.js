/**
 * The fetch core shared by the operator console (public/operator/api.js, admin key in
 * `x-api-key`), the client dashboard (public/client/api.js, JWT as `Authorization: Bearer`) and the
 * staff pages (the operator console and the field app, the staff session's HttpOnly cookie):
 * same-origin fetch without cookies unless asked (`credentials: "same-origin"`) and without cache,
 * and the service's error envelope
 * `{ error: { code, message, field?, details }, request_id }` turned into an ApiError.
 */

/** An error answered by the API (or `NETWORK` when no answer came). */
export class ApiError extends Error {
  /**
   * @param {number} status HTTP status (0 when the server could not be reached)
   * @param {{ code?: string, message?: string, field?: string, details?: unknown[] }} error
   * @param {string | null} requestId
   */
  constructor(status, error, requestId) {
    super(error.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error.code ?? (status === 0 ? "NETWORK" : `HTTP_${status}`);
    this.field = error.field ?? null;
    this.details = Array.isArray(error.details) ? error.details : [];
    /** A 403's missing permission and the caller's role (`error.permission`, `error.role`), else null. */
    this.permission = typeof error.permission === "string" ? error.permission : null;
    this.role = typeof error.role === "string" ? error.role : null;
    /** The envelope's `error` object as answered (its extra members, e.g. `max_amount_cad`). */
    this.body = error;
    this.requestId = requestId;
    /** The whole `error` member, with the members a code adds (e.g. `distance_m`, `current_status`). */
    this.error = error;
  }
}

/**
 * Sends `method path` with `headers` (plus `accept` and, with a `body`, `content-type` JSON).
 * @param {string} method
 * @param {string} path same-origin path
 * @param {{ body?: unknown, headers?: Record<string, string>, credentials?: RequestCredentials }} options
 *   `credentials`: "omit" (default) or "same-origin" (the staff pages' HttpOnly session cookie)
 * @returns {Promise<any>} the parsed JSON body of a 2xx answer (null when empty)
 * @throws {ApiError} the envelope of a non-2xx answer, or `NETWORK` when no answer came
 */
export async function fetchJson(method, path, { body, headers: extra = {}, credentials = "omit" } = {}) {
  const headers = { accept: "application/json", ...extra };
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials,
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch {
    throw new ApiError(0, { code: "NETWORK" }, null);
  }
  const requestId = response.headers.get("x-request-id");
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = json && typeof json.error === "object" && json.error ? json.error : {};
    throw new ApiError(response.status, error, json?.request_id ?? requestId);
  }
  return json;
}

/** A random idempotency key (crypto.randomUUID where available, i.e. secure contexts). */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

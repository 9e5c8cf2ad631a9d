/**
 * The client dashboard's HTTP client: same-origin fetch with the client JWT (from
 * POST /api/client-auth?action=login) in `Authorization: Bearer <jwt>` — never in a URL —
 * and the service's error envelope turned into an ApiError (public/shared/api.js).
 *
 * The JWT lives in sessionStorage with its expiry: it survives a reload of the tab but not
 * closing it, and is never written to localStorage, cookies or URLs (docs/pages.md "Client dashboard and analytics").
 */
import { ApiError, fetchJson } from "../shared/api.js";

export { ApiError };

const JWT_STORAGE = "client.jwt";

let memorySession = null;

/** The stored session `{ token, expiresAt }` when present and not expired, else null. */
export function getSession() {
  let session = memorySession;
  try {
    const raw = sessionStorage.getItem(JWT_STORAGE);
    session = raw ? JSON.parse(raw) : null;
  } catch {
    // storage unavailable (private mode): memory only
  }
  if (!session || typeof session.token !== "string") return null;
  if (Date.parse(session.expiresAt) <= Date.now()) {
    setSession(null);
    return null;
  }
  return session;
}

/** Stores (or with null, forgets) the session of this tab. */
export function setSession(session) {
  memorySession = session;
  try {
    if (session === null) sessionStorage.removeItem(JWT_STORAGE);
    else sessionStorage.setItem(JWT_STORAGE, JSON.stringify(session));
  } catch {
    // memory only
  }
}

/**
 * Calls the API. `auth: true` sends the stored JWT as a Bearer token.
 * @returns {Promise<any>} the parsed JSON body of a 2xx answer
 * @throws {ApiError}
 */
export async function request(method, path, { body, auth = false } = {}) {
  const headers = {};
  const session = auth ? getSession() : null;
  if (session) headers.authorization = `Bearer ${session.token}`;
  return fetchJson(method, path, { body, headers });
}

/**
 * Downloads `path` (GET, with the stored JWT as a Bearer token: the invoice PDF and the data
 * export need it, so a plain link cannot fetch them) and saves the answer as `filename` through a
 * temporary blob URL. A JSON answer is saved pretty-printed.
 * @throws {ApiError} the envelope of a non-2xx answer, or `NETWORK`
 */
export async function download(path, filename) {
  const session = getSession();
  const headers = session ? { authorization: `Bearer ${session.token}` } : {};
  let response;
  try {
    response = await fetch(path, {
      headers,
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch {
    throw new ApiError(0, { code: "NETWORK" }, null);
  }
  if (!response.ok) {
    let json = null;
    try {
      json = await response.json();
    } catch {
      json = null;
    }
    throw new ApiError(
      response.status,
      json?.error ?? {},
      json?.request_id ?? response.headers.get("x-request-id"),
    );
  }
  const type = response.headers.get("content-type") ?? "";
  const blob = type.includes("json")
    ? new Blob([JSON.stringify(await response.json(), null, 2)], { type: "application/json" })
    : await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * GET /api/capabilities, read once per page: the pages take the lists the server owns from it
 * (task statuses in lifecycle order, service ids, the registration settings) instead of keeping
 * copies of them.
 */
import { fetchJson } from "./api.js";

let pending = null;

/**
 * The capabilities manifest (cached for the page's life; a failed read is retried next call).
 * @returns {Promise<{ task_statuses: string[], services: { id: string }[], features: Record<string, any>,
 *   platform: Record<string, any> }>}
 * @throws {import("./api.js").ApiError} when the manifest cannot be read
 */
export function capabilities() {
  pending ??= fetchJson("GET", "/api/capabilities").catch((error) => {
    pending = null;
    throw error;
  });
  return pending;
}

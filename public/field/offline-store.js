/**
 * The field app's outbox in IndexedDB (issue 44 item 5; docs/staff-and-audit.md "Offline"): the
 * check-ins and photos made without a network, kept on the phone until the server has them.
 *
 * Database `field-offline` (version 1), store `outbox`, key `id` (auto-increment: the capture
 * order, which is the sending order). An item:
 *
 *   { id, kind: "check_in" | "photo", staff_id, task_id,
 *     key,                      Idempotency-Key generated at capture (a retry never doubles anything)
 *     captured_at,              ISO 8601, the phone's clock at capture
 *     position,                 { latitude, longitude, accuracy_m } at capture, or null (a photo without one)
 *     state,                    "waiting" | "refused"
 *     refusal?,                 { status, code, message, assigned_to? } of a refused item (kept to be shown)
 *     reason?,                  check_in: the reason given for a check-in outside the geofence
 *     file?, filename?, type?   photo: the Blob, its name and MIME type }
 *
 * A small promise wrapper over the IndexedDB API (four operations; no library: docs/decisions.md 54).
 */

const DB_NAME = "field-offline";
const STORE = "outbox";

/** @type {Promise<IDBDatabase> | null} */
let opening = null;

/** The open database (created on first use). */
function database() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE, { keyPath: "id", autoIncrement: true });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => {
      opening = null;
      reject(request.error);
    };
  });
  return opening;
}

/** Runs `work(store)` in a transaction of `mode`; resolves with the request's result once committed. */
async function run(mode, work) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** Stores a new item; resolves with its id. */
export function addItem(item) {
  return run("readwrite", (store) => store.add(item));
}

/** Replaces item `item.id`. */
export function putItem(item) {
  return run("readwrite", (store) => store.put(item));
}

/** Removes item `id`. */
export function deleteItem(id) {
  return run("readwrite", (store) => store.delete(id));
}

/** Every item, in capture order. */
export async function allItems() {
  const items = await run("readonly", (store) => store.getAll());
  return items.sort((a, b) => a.id - b.id);
}

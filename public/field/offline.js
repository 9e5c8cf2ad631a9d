/**
 * The field app offline (issue 44 item 5; docs/staff-and-audit.md "Offline"): the service worker
 * (field/sw.js: the app shell and the assigned tasks readable without a network), the outbox of
 * check-ins and photos made without one (field/offline-store.js, IndexedDB) and their sending, in
 * capture order, when the network returns.
 *
 * - A check-in or photo whose request fails for want of a network (ApiError NETWORK) is kept with
 *   its capture time (`captured_at`), the phone's position at capture and a new Idempotency-Key,
 *   and shown as "Waiting to send" on its task (and counted in the list and the offline banner).
 * - On `online` (and at start, and every minute while items wait) the session is re-read (its CSRF
 *   token) and the items are sent one by one, each with its own key: the answer of a retry is the
 *   first one's, so nothing is recorded twice. A sent item leaves the phone.
 * - A refusal (4xx other than 401, 408, 429) is kept on the phone with its reason, shown on the task
 *   ("reassigned to …" from a 409's `assigned_to`, a cancelled task's status), until the person
 *   removes it; a network failure, 401, 408, 429 or 5xx stops the round (tried again later).
 */
import { h } from "../shared/dom.js";
import { addMessages } from "../shared/i18n.js";
import { readBase64 } from "../shared/photos.js";
import { ApiError, currentSession, loadSession, newIdempotencyKey, request } from "./api.js";
import { messages, render } from "./context.js";
import { formatDateTime, formatDistance, t } from "./i18n.js";
import { EN, FR } from "./offline-messages.js";
import { addItem, allItems, deleteItem, putItem } from "./offline-store.js";

addMessages({ en: EN, fr: FR });

const { announce } = messages;
/** Dispatched on `window` whenever the outbox changes (sections re-read it). */
const CHANGED = "field-outbox";
/** How often items still waiting are tried again while the page is open, ms. */
const RETRY_MS = 60_000;

/** Whether `error` is a request that got no answer (no network). */
export function isNetworkError(error) {
  return error instanceof ApiError && error.status === 0;
}

/** The signed-in staff member's id, or null. */
const staffId = () => currentSession()?.staff?.staff_id ?? null;

/** The outbox items of the signed-in person (of `taskId` when given), in capture order. */
export async function pendingItems(taskId) {
  const me = staffId();
  try {
    return (await allItems()).filter(
      (i) => i.staff_id === me && (taskId === undefined || i.task_id === taskId),
    );
  } catch {
    return []; // IndexedDB unavailable (private mode of some browsers): nothing kept
  }
}

const changed = () => window.dispatchEvent(new Event(CHANGED));

/**
 * Keeps a check-in made without a network.
 * @param {{ task_id: string }} task
 * @param {{ latitude: number, longitude: number, accuracy?: number }} coords the position at capture
 * @param {string} capturedAt ISO time of the capture
 * @param {string} [reason] the reason of a check-in outside the geofence
 */
export async function queueCheckIn(task, coords, capturedAt, reason) {
  await addItem({
    kind: "check_in",
    staff_id: staffId(),
    task_id: task.task_id,
    key: newIdempotencyKey(),
    captured_at: capturedAt,
    position: {
      latitude: coords.latitude,
      longitude: coords.longitude,
      accuracy_m: Math.max(0, coords.accuracy ?? 0),
    },
    state: "waiting",
    ...(reason ? { reason } : {}),
  });
  changed();
  announce(t("offline.check_in_queued"));
}

/** The phone's last known position (within 5 minutes, 10 s at most), or null: a photo is kept either way. */
function quickPosition() {
  return new Promise((resolve) => {
    if (!navigator.geolocation) return resolve(null);
    navigator.geolocation.getCurrentPosition(
      (p) =>
        resolve({
          latitude: p.coords.latitude,
          longitude: p.coords.longitude,
          accuracy_m: p.coords.accuracy,
        }),
      () => resolve(null),
      { enableHighAccuracy: true, timeout: 10_000, maximumAge: 300_000 },
    );
  });
}

/**
 * Keeps a photo taken without a network.
 * @param {{ task_id: string }} task
 * @param {File} file the (shrunk) photo
 * @param {string} capturedAt ISO time it was picked
 */
export async function queuePhoto(task, file, capturedAt) {
  await addItem({
    kind: "photo",
    staff_id: staffId(),
    task_id: task.task_id,
    key: newIdempotencyKey(),
    captured_at: capturedAt,
    position: await quickPosition(),
    state: "waiting",
    file,
    filename: file.name.slice(0, 200) || "photo.jpg",
    type: file.type || "image/jpeg",
  });
  changed();
  announce(t("offline.photo_queued", { name: file.name }));
}

/** POSTs one item with its own Idempotency-Key. */
async function sendItem(item) {
  if (item.kind === "check_in") {
    return request("POST", "/api/field-visit", {
      idempotencyKey: item.key,
      body: {
        task_id: item.task_id,
        action: "check_in",
        latitude: item.position.latitude,
        longitude: item.position.longitude,
        accuracy_m: item.position.accuracy_m,
        captured_at: item.captured_at,
        ...(item.reason ? { reason: item.reason } : {}),
      },
    });
  }
  return request("POST", "/api/field-proof", {
    idempotencyKey: item.key,
    body: {
      task_id: item.task_id,
      file: { filename: item.filename, type: item.type, content: await readBase64(item.file) },
      captured_at: item.captured_at,
    },
  });
}

/** Whether a refusal is worth trying again later (no network, session, timeout, rate limit, server). */
const transient = (e) => isNetworkError(e) || [401, 408, 429].includes(e.status) || e.status >= 500;

let syncing = null;
let retryTimer = null;
/** How long after an interrupted round the next one starts while the page is online, ms. */
const RETRY_SOON_MS = 3_000;

/** Schedules one more round soon (the network may be back before the server can be reached). */
function retryLater() {
  if (retryTimer || !navigator.onLine) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    syncOutbox();
  }, RETRY_SOON_MS);
}

/**
 * Re-reads the session from the server (GET /api/staff-auth through the worker): true when it is a
 * live one with its CSRF token, false when signed out, unreachable or only the worker's offline
 * copy came back (then the page cannot send yet).
 */
export async function freshSession() {
  try {
    await loadSession();
  } catch {
    return false;
  }
  return Boolean(currentSession()?.csrf_token);
}

/**
 * Sends the waiting items in capture order; resolves with how many were sent. One round at a time
 * (a second call while one runs joins it).
 */
export function syncOutbox() {
  syncing ??= (async () => {
    let sent = 0;
    try {
      let any = false;
      try {
        any = (await allItems()).some((i) => i.state === "waiting");
      } catch {
        return 0;
      }
      if (!any) return 0;
      // The signed-in person and the CSRF token: a session read offline (the worker's copy) has none.
      if (!(await freshSession())) {
        retryLater();
        return 0;
      }
      for (const item of await pendingItems()) {
        if (item.state !== "waiting") continue;
        try {
          await sendItem(item);
          await deleteItem(item.id);
          sent += 1;
        } catch (e) {
          if (!(e instanceof ApiError) || transient(e)) {
            retryLater();
            break;
          }
          await putItem({
            ...item,
            state: "refused",
            refusal: {
              status: e.status,
              code: e.code,
              message: e.message,
              ...("assigned_to" in e.error ? { assigned_to: e.error.assigned_to } : {}),
            },
          });
        }
        changed();
      }
      return sent;
    } finally {
      syncing = null;
      if (sent) {
        announce(t("offline.sent", { count: sent }));
        await render({ focus: false });
      }
    }
  })();
  return syncing;
}

/** What a refused item says: the new assignee of a reassigned task, else the server's sentence. */
function refusalText(refusal) {
  if (refusal.status === 409 && "assigned_to" in refusal) {
    return refusal.assigned_to
      ? t("offline.reassigned", { name: refusal.assigned_to.display_name })
      : t("offline.unassigned");
  }
  return t("offline.refused", { message: refusal.message });
}

/** One outbox item as a list entry. */
function itemView(item) {
  const time = formatDateTime(item.captured_at);
  const where = item.position
    ? t("offline.position", {
        lat: item.position.latitude.toFixed(5),
        lon: item.position.longitude.toFixed(5),
        accuracy: formatDistance(item.position.accuracy_m),
      })
    : t("offline.no_position");
  const thumb =
    item.kind === "photo" && item.file
      ? h("img", {
          class: "thumb",
          src: URL.createObjectURL(item.file),
          alt: t("photos.thumb", { name: item.filename }),
        })
      : null;
  return h(
    "li",
    { class: ["proof-item", "outbox-item", `outbox-${item.state}`], "data-kind": item.kind },
    thumb,
    h(
      "div",
      {},
      h(
        "p",
        { class: "proof-name" },
        item.kind === "check_in"
          ? t("offline.check_in", { time })
          : t("offline.photo", { name: item.filename, time }),
      ),
      h("p", { class: "muted" }, where),
      item.state === "refused"
        ? h("p", { class: "form-error", role: "alert" }, refusalText(item.refusal))
        : h("p", { class: "badges" }, h("span", { class: "badge warn" }, t("offline.waiting"))),
      item.state === "refused"
        ? h(
            "button",
            {
              type: "button",
              class: "button secondary small",
              onclick: async () => {
                if (!window.confirm(t("offline.remove_confirm"))) return;
                await deleteItem(item.id);
                changed();
              },
            },
            t("offline.remove"),
          )
        : null,
    ),
  );
}

/**
 * The "Waiting to send" panel of task `taskId`: its kept items, refreshed when the outbox changes;
 * hidden when there are none.
 */
export function outboxSection(taskId, { title = t("offline.title") } = {}) {
  const list = h("ul", { class: "proof-list" });
  const headingId = `sec-outbox-${taskId.replace(/[^\w-]/g, "_")}`;
  const section = h(
    "section",
    { class: "panel outbox", "aria-labelledby": headingId, hidden: true, "data-task-id": taskId },
    h("h2", { id: headingId }, title),
    list,
  );
  const refresh = async () => {
    if (!section.isConnected && section.dataset.shown) {
      window.removeEventListener(CHANGED, refresh);
      return;
    }
    section.dataset.shown = "1";
    const items = await pendingItems(taskId);
    section.hidden = items.length === 0;
    list.replaceChildren(...items.map(itemView));
  };
  window.addEventListener(CHANGED, refresh);
  refresh();
  return section;
}

/** How many items of each task wait or were refused, by task id. */
export async function pendingCounts() {
  const counts = new Map();
  for (const item of await pendingItems()) counts.set(item.task_id, (counts.get(item.task_id) ?? 0) + 1);
  return counts;
}

/** The offline banner (above the page's content), kept up to date with the network and the outbox. */
function banner() {
  const box = h("p", { class: "notice offline-banner", role: "status", hidden: true, id: "offline-banner" });
  const update = async () => {
    const count = (await pendingItems()).filter((i) => i.state === "waiting").length;
    box.hidden = navigator.onLine;
    box.textContent = count ? t("offline.banner_count", { count }) : t("offline.banner");
  };
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  window.addEventListener(CHANGED, update);
  // The language changed (shared/i18n.js sets <html lang>): say it again in the new one.
  new MutationObserver(update).observe(document.documentElement, {
    attributes: true,
    attributeFilter: ["lang"],
  });
  update();
  return { box, update };
}

/** Empties the cached tasks and session (at sign-out): the next person on this phone reads none. */
export async function forgetOfflineData() {
  try {
    navigator.serviceWorker?.controller?.postMessage({ type: "forget-data" });
    await caches.delete("field-data-v1");
  } catch {
    // no Cache Storage here: nothing was cached
  }
}

/**
 * Starts the offline mode: registers the service worker (scope /field/), shows the banner, sends
 * the waiting items now, on `online` and every minute.
 * @param {HTMLElement} main the page's main element (the banner goes just before it)
 */
export function startOffline(main) {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/field/sw.js", { scope: "/field/" }).catch(() => {
      // not registered (an insecure origin, a browser without it): the app works online only
    });
    // The worker took over this page (first visit): read the session and the tasks once through it,
    // so they are kept for reading offline from now on (the view is not redrawn under the person).
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      if (!currentSession()) return;
      for (const path of ["/api/staff-auth", "/api/field-visit"]) {
        fetch(path, { credentials: "same-origin", headers: { accept: "application/json" } }).catch(() => {});
      }
    });
  }
  const { box, update } = banner();
  main.before(box);
  window.addEventListener("online", async () => {
    update();
    // A page opened offline holds the worker's copy of the session (no CSRF token): read it again,
    // so that what the person does next (complete, fail) can be sent.
    if (currentSession() && !currentSession().csrf_token) await freshSession();
    syncOutbox();
  });
  setInterval(() => {
    if (navigator.onLine) syncOutbox();
  }, RETRY_MS);
  if (navigator.onLine) syncOutbox();
  return { refreshBanner: update };
}

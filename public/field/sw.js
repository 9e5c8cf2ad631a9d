/**
 * The field app's service worker (issue 44 item 5; docs/staff-and-audit.md "Offline";
 * hand-written, docs/decisions.md 54): scope /field/, so it serves the field app's pages and every
 * request they make.
 *
 * - The app shell (SHELL: the page, its modules, styles, icons, manifest) is cached at install, and
 *   every same-origin GET outside /api/ is answered network first, the cache refreshed with each
 *   answer, the cached copy when the network fails: the app opens and works in a basement.
 * - The assigned tasks (GET /api/field-visit) and the session (GET /api/staff-auth) are network
 *   first too, in their own cache (DATA), so the tasks can be read offline. The session is stored
 *   WITHOUT its CSRF token (the page re-reads the session online before sending anything); a 401
 *   empties DATA, and the page empties it at sign-out (message `forget-data`).
 * - Nothing else of /api/ is cached; POSTs are never touched (the page queues its check-ins and
 *   photos in IndexedDB itself: field/offline.js).
 * - Push notifications (issue 44 item 6): one scope has one worker, so this one pulls in the push
 *   handlers of field/push-sw.js (`push`, `notificationclick`), and the page's push button
 *   subscribes through this registration (field/app.js).
 */

importScripts("/field/push-sw.js");

const VERSION = "v1";
const SHELL_CACHE = `field-shell-${VERSION}`;
const DATA_CACHE = `field-data-${VERSION}`;

/** What the field app needs to start without a network (tests/field/pwa-shell.test.ts checks it is complete). */
const SHELL = [
  "/field/",
  "/field/manifest.webmanifest",
  "/field/icons/icon-192.png",
  "/field/icons/icon-512.png",
  "/field/app.js",
  "/field/api.js",
  "/field/context.js",
  "/field/i18n.js",
  "/field/login.js",
  "/field/messages.js",
  "/field/offline.js",
  "/field/offline-messages.js",
  "/field/offline-store.js",
  "/field/passkey-banner.js",
  "/field/photos.js",
  "/field/push-sw.js",
  "/field/views.js",
  "/field/visit.js",
  "/shared/api.js",
  "/shared/dom.js",
  "/shared/feedback.js",
  "/shared/i18n.js",
  "/shared/messages.js",
  "/shared/passkeys.js",
  "/shared/photos.js",
  "/shared/push.js",
  "/shared/render-hook.js",
  "/shared/shell.js",
  "/shared/staff-enrol.js",
  "/shared/views.js",
  "/styles.css",
  "/css/base.css",
  "/css/shell.css",
  "/css/controls.css",
  "/css/views.css",
  "/css/tables.css",
  "/css/legal.css",
  "/vendor/simplewebauthn-browser.umd.min.js",
  "/favicon.svg",
  "/mark.svg",
];

/** The API reads kept for offline reading. */
const DATA_PATHS = new Set(["/api/field-visit", "/api/staff-auth"]);

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // One by one: a file missing (renamed in a later version) must not stop the others.
      await Promise.all(SHELL.map((url) => cache.add(new Request(url, { cache: "reload" })).catch(() => {})));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const keep = new Set([SHELL_CACHE, DATA_CACHE]);
      for (const name of await caches.keys()) {
        if (name.startsWith("field-") && !keep.has(name)) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  if (event.data?.type === "forget-data") event.waitUntil(caches.delete(DATA_CACHE));
});

/** The session answer without its CSRF token or any token (never stored). */
async function withoutToken(response) {
  const body = await response.clone().json();
  delete body.csrf_token;
  delete body.token;
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "x-field-offline-copy": "1" },
  });
}

/** Network first into `cacheName`; the cached copy (ignoring the query) when the network fails. */
async function networkFirst(request, cacheName, store) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const cache = await caches.open(cacheName);
      await cache.put(request, store ? await store(response) : response.clone());
    } else if (response.status === 401 && cacheName === DATA_CACHE) {
      await caches.delete(DATA_CACHE);
    }
    return response;
  } catch (error) {
    const cached = await caches.match(request, { cacheName, ignoreSearch: cacheName === SHELL_CACHE });
    if (cached) return cached;
    if (request.mode === "navigate") {
      const shell = await caches.match("/field/", { cacheName: SHELL_CACHE });
      if (shell) return shell;
    }
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) {
    if (!DATA_PATHS.has(url.pathname) || url.search) return;
    event.respondWith(
      networkFirst(request, DATA_CACHE, url.pathname === "/api/staff-auth" ? withoutToken : undefined),
    );
    return;
  }
  event.respondWith(networkFirst(request, SHELL_CACHE));
});

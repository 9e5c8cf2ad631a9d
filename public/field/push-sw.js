/**
 * Push handling of the staff pages' service worker (issue 44 item 6; docs/notifications.md "Push
 * notifications"). A classic worker script with no imports or exports, so that it works both ways:
 * registered on its own (public/shared/push.js registers it when its scope has no worker) or pulled
 * into another worker of the same scope — `importScripts("/field/push-sw.js")` from a classic
 * worker, `import "/field/push-sw.js"` from a module worker (the field app's offline worker must do
 * one of these, since one scope has one worker). The console's /operator/push-sw.js imports it.
 *
 * - `push`: the payload is the JSON the server encrypted for this subscription
 *   (`{kind, task_id, title, body, url, tag}`, in the language chosen when subscribing): shown as a
 *   notification; a newer one of the same task and kind replaces the older (`tag`).
 * - `notificationclick`: opens the task (`url`, same origin only): focuses a window of the app
 *   already open and sends it there, else opens one.
 */
/* global self, clients */

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { title: event.data ? event.data.text() : "" };
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Physical Task Execution Service";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === "string" ? data.body : "",
      tag: typeof data.tag === "string" ? data.tag : undefined,
      icon: "/mark.svg",
      badge: "/mark.svg",
      data: { url: typeof data.url === "string" ? data.url : "/" },
    }),
  );
});

/** `url` as an absolute URL of this origin, or the origin's root when it points elsewhere. */
function sameOrigin(url) {
  try {
    const target = new URL(url, self.location.origin);
    return target.origin === self.location.origin ? target.href : `${self.location.origin}/`;
  } catch {
    return `${self.location.origin}/`;
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = sameOrigin(event.notification.data?.url ?? "/");
  const appPath = new URL(target).pathname;
  event.waitUntil(
    (async () => {
      const windows = await clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).pathname === appPath);
      if (open) {
        // focus() needs the click's user activation; without it (refused), still send the window on.
        await open.focus().catch(() => {});
        if ("navigate" in open) {
          try {
            await open.navigate(target);
            return;
          } catch {
            // an uncontrolled window cannot be navigated by the worker: open a new one
          }
        } else return;
      }
      await clients.openWindow(target);
    })(),
  );
});

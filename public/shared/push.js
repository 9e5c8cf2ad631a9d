/**
 * Web Push for the staff pages (issue 44 item 6; docs/notifications.md "Push notifications"): a
 * "Notifications" button in the top bar of the field app and the console for a signed-in staff
 * member. Turning it on asks the browser's permission, registers the page's service worker when
 * the scope has none (the push handling lives in /field/push-sw.js, which an offline worker of the
 * same scope must import), subscribes with the service's VAPID public key (GET /api/staff-push)
 * and ties the subscription to this staff session (POST /api/staff-push). The server drops it at
 * sign-out, so each session opts in again (docs/decisions.md 58). Nothing is stored by this
 * module; its texts are its own (fr/en) so the apps' dictionaries stay untouched.
 */
import { getLang } from "./i18n.js";

const WORDS = {
  en: {
    on: "Notifications on",
    off: "Turn on notifications",
    blocked: "Notifications blocked",
    blockedHint: "Notifications are blocked for this site in the browser's settings.",
    failed: "Notifications could not be turned on",
  },
  fr: {
    on: "Notifications activées",
    off: "Activer les notifications",
    blocked: "Notifications bloquées",
    blockedHint: "Les notifications sont bloquées pour ce site dans les réglages du navigateur.",
    failed: "Impossible d'activer les notifications",
  },
};

const words = () => WORDS[getLang()] ?? WORDS.en;

/** `signedIn:lang` of the last sync: a render that changes neither asks the server nothing. */
let synced = "";

/** Whether this browser can receive Web Push (service workers, PushManager, notifications). */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The bytes of a base64url string (the applicationServerKey). */
function base64urlBytes(value) {
  const b64 = value
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(value.length / 4) * 4, "=");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** The registration of `scope`, registering `workerUrl` there when the scope has none. */
async function registrationFor(scope, workerUrl) {
  const existing = await navigator.serviceWorker.getRegistration(scope);
  if (existing) return existing;
  await navigator.serviceWorker.register(workerUrl, { scope });
  return navigator.serviceWorker.ready;
}

/** The browser's current push subscription of `scope`, or null. */
async function currentSubscription(scope) {
  const registration = await navigator.serviceWorker.getRegistration(scope);
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * Shows (signed in) or removes (signed out) the notifications button in `container`, before
 * `before`. Never throws: push is an extra, a failure leaves the page as it was.
 * @param {object} options
 * @param {HTMLElement} options.container the top bar's tools
 * @param {HTMLElement | null} options.before the element the button goes before (log out)
 * @param {boolean} options.signedIn whether a staff session is open
 * @param {(method: string, path: string, options?: { body?: unknown, idempotencyKey?: string }) => Promise<any>} options.request the app's API call (session cookie, CSRF token)
 * @param {string} options.scope the service worker scope (`/field/`, `/operator/`)
 * @param {string} options.workerUrl the worker to register when the scope has none
 * @param {(text: string) => void} [options.announce] tells the user what went wrong
 */
export async function syncPushButton({ container, before, signedIn, request, scope, workerUrl, announce }) {
  let button = container.querySelector("#push-toggle");
  if (!signedIn || !pushSupported()) {
    button?.remove();
    synced = "";
    return;
  }
  const key = `${signedIn}:${getLang()}`;
  if (key === synced) return;
  const langChanged = synced !== "" && button?.dataset.state === "on";
  synced = key;
  try {
    const settings = await request("GET", "/api/staff-push");
    if (!settings.enabled || settings.kinds.length === 0) {
      button?.remove();
      return;
    }
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.id = "push-toggle";
      button.className = "button secondary small";
      container.insertBefore(button, before);
      button.addEventListener("click", () =>
        toggle(button, { request, scope, workerUrl, announce, publicKey: () => button.dataset.key }),
      );
    }
    button.dataset.key = settings.public_key;
    const browserSub = await currentSubscription(scope);
    const on = Boolean(browserSub) && settings.subscriptions > 0;
    if (on && langChanged) {
      // The notifications follow the page's language: the subscription is sent again with it.
      await request("POST", "/api/staff-push", {
        body: { action: "subscribe", subscription: browserSub.toJSON(), lang: getLang() },
      });
    }
    show(button, Notification.permission === "denied" ? "blocked" : on ? "on" : "off");
  } catch {
    button?.remove();
  }
}

/** Sets the button's text and pressed state for `state` (`on`, `off`, `blocked`). */
function show(button, state) {
  const w = words();
  button.dataset.state = state;
  button.textContent = w[state];
  button.setAttribute("aria-pressed", String(state === "on"));
  button.disabled = state === "blocked";
  button.title = state === "blocked" ? w.blockedHint : "";
}

/** Turns push on (permission, worker, subscription, POST) or off (POST unsubscribe, browser unsubscribe). */
async function toggle(button, { request, scope, workerUrl, announce, publicKey }) {
  button.disabled = true;
  try {
    if (button.dataset.state === "on") {
      const sub = await currentSubscription(scope);
      if (sub) {
        await request("POST", "/api/staff-push", { body: { action: "unsubscribe", endpoint: sub.endpoint } });
        await sub.unsubscribe();
      }
      show(button, "off");
      return;
    }
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      show(button, permission === "denied" ? "blocked" : "off");
      return;
    }
    const registration = await registrationFor(scope, workerUrl);
    const sub =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: base64urlBytes(publicKey()),
      }));
    await request("POST", "/api/staff-push", {
      body: { action: "subscribe", subscription: sub.toJSON(), lang: getLang() },
    });
    show(button, "on");
  } catch (error) {
    announce?.(`${words().failed}: ${error?.message ?? error}`);
    show(button, "off");
  }
}

/**
 * Passkeys in the staff pages (issue 44 item 3; docs/staff-and-audit.md "Passkeys"), shared by the
 * operator console and the field app: the "Sign in with a passkey" button of the sign-in pages and
 * "Create a passkey on this device" after enrolment or from the field app's task list. The WebAuthn
 * ceremonies run through @simplewebauthn/browser (public/vendor/simplewebauthn-browser.umd.min.js,
 * loaded by each page as the global `SimpleWebAuthnBrowser`); the server side is
 * POST /api/staff-auth (`passkey-options`, `passkey-sign-in`) and POST /api/staff-credentials
 * (`passkey-options`, `passkey-register`). Each page passes its own `request(method, path, { body })`.
 */
import { ApiError } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The browser library, once its script has run. */
function webauthn() {
  return globalThis.SimpleWebAuthnBrowser;
}

/** Whether this browser can use passkeys (WebAuthn available and the library loaded). */
export function passkeysSupported() {
  return Boolean(webauthn()?.browserSupportsWebAuthn?.());
}

/** A name for a passkey made on this device, from its user agent (e.g. "Chrome · Android"). */
export function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrome\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : "Browser";
  const system = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : "";
  return system ? `${browser} · ${system}` : browser;
}

/**
 * The message for a failed passkey ceremony: cancelled or timed out on the device, refused by the
 * server (401), or the error itself.
 */
export function passkeyError(error) {
  if (error instanceof ApiError) return error.status === 401 ? new Error(t("passkey.refused")) : error;
  if (error?.name === "NotAllowedError" || error?.code === "ERROR_CEREMONY_ABORTED") {
    return new Error(t("passkey.cancelled"));
  }
  if (error?.name === "InvalidStateError" || error?.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    return new Error(t("passkey.already"));
  }
  return new Error(t("passkey.unavailable", { detail: error?.message ?? String(error) }));
}

/**
 * Signs in with a passkey: options, the device's prompt, the assertion.
 * @returns the sign-in answer (the session cookie is set by it)
 * @throws ApiError (401 refused), the browser's DOMException (cancelled)
 */
export async function signInWithPasskey(request) {
  const { passkey_options } = await request("POST", "/api/staff-auth?action=passkey-options", { body: {} });
  const credential = await webauthn().startAuthentication({ optionsJSON: passkey_options });
  return request("POST", "/api/staff-auth?action=passkey-sign-in", { body: { credential } });
}

/**
 * Creates a passkey of this device for the signed-in member.
 * @returns the answer of passkey-register (`passkey`)
 */
export async function addPasskey(request) {
  const { passkey_options } = await request("POST", "/api/staff-credentials?action=passkey-options", {
    body: {},
  });
  const credential = await webauthn().startRegistration({ optionsJSON: passkey_options });
  return request("POST", "/api/staff-credentials?action=passkey-register", {
    body: { credential, name: deviceName() },
  });
}

/**
 * A primary passkey button and its error box: a click clears the error, disables the button and
 * runs `action`; a failure is shown in words (`passkeyError`) and the button enabled again.
 * @returns {{ button: HTMLButtonElement, error: HTMLElement }}
 */
function passkeyButton(messages, label, action) {
  const error = messages.errorBox();
  const button = h(
    "button",
    {
      type: "button",
      class: "button primary passkey-button",
      onclick: async () => {
        if (button.disabled) return;
        messages.showError(error, null);
        button.disabled = true;
        try {
          await action();
        } catch (e) {
          messages.showError(error, passkeyError(e));
          button.disabled = false;
        }
      },
    },
    label,
  );
  return { button, error };
}

/**
 * The passkey sign-in block of a sign-in page: a primary button, its error box, and a line that
 * introduces the password form below as the fallback. Null when the browser has no passkeys.
 * @param {{ messages: object, request: Function, onSignedIn: (answer: object) => Promise<void> | void }} options
 */
export function passkeySignInPanel({ messages, request, onSignedIn }) {
  if (!passkeysSupported()) return null;
  const { button, error } = passkeyButton(messages, t("passkey.sign_in"), async () => {
    messages.announce(t("passkey.waiting"));
    await onSignedIn(await signInWithPasskey(request));
  });
  return h(
    "section",
    { class: "panel passkey-panel" },
    h("p", {}, t("passkey.intro")),
    button,
    error,
    h("p", { class: "muted" }, t("passkey.fallback")),
  );
}

/**
 * "Create a passkey on this device" for a signed-in member; `done()` runs after it was created
 * (or is skipped by the caller). Null when the browser has no passkeys.
 */
export function addPasskeyButton({ messages, request, done }) {
  if (!passkeysSupported()) return null;
  const { button, error } = passkeyButton(messages, t("passkey.add"), async () => {
    await addPasskey(request);
    messages.announce(t("passkey.added"));
    await done?.();
  });
  return h("div", { class: "passkey-add" }, button, error);
}

/**
 * The Cloudflare Turnstile widget of the registration form. The site key and whether the
 * server checks tokens come from GET /api/capabilities (`features.web_registration`:
 * `turnstile_site_key`, `captcha_checked`).
 *
 * - Site key set: api.js is loaded from challenges.cloudflare.com (allowed for /client only by
 *   vercel.json's Content-Security-Policy) and the widget rendered explicitly in `container`.
 * - The widget cannot load (no site key, blocked, offline) and the server does NOT check
 *   tokens (TURNSTILE_SECRET_KEY unset outside production): a placeholder token is used and
 *   the form says so. When the server checks tokens, registration is not possible without
 *   the widget and the form says that instead.
 */

const SCRIPT_URL = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";
/** The placeholder sent when the server does not check tokens (development and tests). */
export const DEV_TOKEN = "dev-unchecked-turnstile-token";
const LOAD_TIMEOUT_MS = 10_000;

let scriptPromise = null;

function loadScript() {
  if (globalThis.turnstile) return Promise.resolve(globalThis.turnstile);
  scriptPromise ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = SCRIPT_URL;
    script.async = true;
    const timer = setTimeout(() => reject(new Error("timeout")), LOAD_TIMEOUT_MS);
    script.addEventListener("load", () => {
      clearTimeout(timer);
      if (globalThis.turnstile) resolve(globalThis.turnstile);
      else reject(new Error("no turnstile object"));
    });
    script.addEventListener("error", () => {
      clearTimeout(timer);
      reject(new Error("script failed to load"));
    });
    document.head.append(script);
  }).catch((error) => {
    scriptPromise = null;
    throw error;
  });
  return scriptPromise;
}

/**
 * Sets up the check in `container`. `onState(state)` is called with `"loading"`, `"ready"`
 * (a real token is available), `"waiting"` (the widget waits for the user), `"dev"` (the
 * placeholder is used) or `"unavailable"`.
 * @returns {{ token: () => string | null, reset: () => void }}
 */
export function setupTurnstile(container, { siteKey, checked, lang, onState }) {
  let token = null;
  let widgetId = null;
  let api = null;
  const fallback = () => {
    if (checked) {
      token = null;
      onState("unavailable");
    } else {
      token = DEV_TOKEN;
      onState("dev");
    }
  };
  if (!siteKey) {
    fallback();
  } else {
    onState("loading");
    loadScript().then(
      (turnstile) => {
        api = turnstile;
        widgetId = turnstile.render(container, {
          sitekey: siteKey,
          language: lang,
          callback: (value) => {
            token = value;
            onState("ready");
          },
          "expired-callback": () => {
            token = null;
            onState("waiting");
          },
          "error-callback": () => {
            token = null;
            onState("waiting");
          },
        });
        onState("waiting");
      },
      () => fallback(),
    );
  }
  return {
    token: () => token,
    reset: () => {
      if (api && widgetId !== null) {
        token = null;
        api.reset(widgetId);
        onState("waiting");
      }
    },
  };
}

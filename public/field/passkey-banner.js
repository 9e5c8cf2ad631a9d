/**
 * The field app's offer of a passkey (issue 44 item 3): a member signed in with password and code
 * whose account has no passkey yet sees, above the task list, "create a passkey on this device", so
 * that the next sign-in on the phone is a fingerprint or the screen lock. Nothing when the browser
 * has no passkeys, the member has one, or the check fails (the list matters more).
 */
import { h } from "../shared/dom.js";
import { addPasskeyButton, passkeysSupported } from "../shared/passkeys.js";
import { get, request } from "./api.js";
import { messages } from "./context.js";
import { t } from "./i18n.js";

/** @returns {Promise<HTMLElement | null>} the banner, or null */
export async function passkeyBanner() {
  if (!passkeysSupported()) return null;
  try {
    const { passkeys } = await get("/api/staff-credentials");
    if (passkeys.length > 0) return null;
  } catch {
    return null;
  }
  const banner = h("aside", { class: "panel passkey-banner", "data-testid": "passkey-banner" });
  banner.append(
    h("p", {}, t("passkey.banner")),
    addPasskeyButton({ messages, request, done: () => banner.remove() }),
  );
  return banner;
}

/** Helpers for account and billing tests: open, fund and read prepaid accounts through the real handlers. */
import { POST as adminPost } from "../../api/account-admin.js";
import { GET as billingGet, POST as billingPost } from "../../api/billing.js";
import { GET as accountGet, POST as accountPost } from "../../api/client-account.js";
import { call } from "../helpers/request.js";

/** Opens an account for `key` (its contact). */
export function openAccount(key: string, extra: Record<string, unknown> = {}) {
  return call(accountPost, "/api/client-account", {
    method: "POST",
    headers: { "x-api-key": key },
    json: { contact_name: "Client Test", ...extra },
  });
}

/** Web registration (no key). */
export function registerWeb(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(accountPost, "/api/client-account", { method: "POST", headers, json: body });
}

/** A complete web registration body for `email`. */
export function webBody(email: string, extra: Record<string, unknown> = {}) {
  return {
    contact_name: "Marie Tremblay",
    email,
    password: "correct horse battery",
    phone: "+1 450 555-0100",
    address_line1: "100 Rue Principale",
    city: "Terrebonne",
    postal_code: "j6w1a1",
    tos_accepted: true,
    cf_turnstile_token: "pass",
    lang: "fr",
    ...extra,
  };
}

/** GET /api/client-account with `headers` and `query`. */
export function readAccount(headers: Record<string, string>, query = "") {
  return call(accountGet, `/api/client-account${query}`, { headers });
}

/** POST /api/account-admin as `admin`. */
export function accountAdmin(
  admin: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(adminPost, "/api/account-admin", {
    method: "POST",
    headers: { "x-api-key": admin, ...headers },
    json: body,
  });
}

/** GET /api/billing as `key`. */
export function billing(key: string, query: string) {
  return call(billingGet, `/api/billing?${query}`, { headers: { "x-api-key": key } });
}

/** POST /api/billing pre_authorize as `key`. */
export function preAuthorize(
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(billingPost, "/api/billing", {
    method: "POST",
    headers: { "x-api-key": key, ...headers },
    json: { action: "pre_authorize", ...body },
  });
}

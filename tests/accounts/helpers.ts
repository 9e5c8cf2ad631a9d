/** Helpers for account and billing tests: open, fund and read prepaid accounts through the real handlers. */

import { and, desc, eq } from "drizzle-orm";
import { POST as adminPost } from "../../api/account-admin.js";
import { POST as accountKeysPost } from "../../api/account-keys.js";
import { GET as billingGet, POST as billingPost } from "../../api/billing.js";
import { GET as accountGet, POST as accountPost } from "../../api/client-account.js";
import { POST as authPost } from "../../api/client-auth.js";
import { getDb } from "../../lib/db/client.js";
import { emails } from "../../lib/db/schema/index.js";
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

/** The newest one-time code (`vfy_…` / `rst_…`) e-mailed to `email` with `template`. */
export async function emailedCode(
  email: string,
  template: "account-verify-email" | "account-password-reset",
): Promise<string> {
  const db = await getDb();
  const [row] = await db
    .select({ text: emails.textBody })
    .from(emails)
    .where(and(eq(emails.toAddress, email.toLowerCase()), eq(emails.template, template)))
    .orderBy(desc(emails.createdAt))
    .limit(1);
  const code = /(?:vfy|rst)_[A-Za-z0-9]{40}/.exec(row?.text ?? "")?.[0];
  if (!code) throw new Error(`no ${template} code e-mailed to ${email}`);
  return code;
}

/** POST /api/client-auth?action=`action` from `ip`, with `headers`. */
export function clientAuthCall(
  action: string,
  json: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(authPost, `/api/client-auth?action=${action}`, { method: "POST", headers, json });
}

/** Verifies `email` with the code of its newest verification e-mail. */
export async function verifyEmail(email: string): Promise<void> {
  const { res } = await clientAuthCall("verify-email", {
    token: await emailedCode(email, "account-verify-email"),
  });
  if (res.status !== 200) throw new Error(`verify-email ${email}: ${res.status}`);
}

/** Sets the password of `email`'s account through reset-request and reset-confirm (the code e-mailed). */
export async function setPassword(email: string, password: string): Promise<void> {
  await clientAuthCall("reset-request", { email });
  const token = await emailedCode(email, "account-password-reset");
  const { res } = await clientAuthCall("reset-confirm", { token, password });
  if (res.status !== 200) throw new Error(`reset-confirm ${email}: ${res.status}`);
}

/** Logs in; returns the JWT. */
export async function signIn(email: string, password: string): Promise<string> {
  const { res, body } = await clientAuthCall("login", { email, password });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${JSON.stringify(body)}`);
  return body.token as string;
}

/** POST /api/account-keys as the signed-in client `jwt` (plus `headers`). */
export function accountKeys(
  jwt: string,
  json: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(accountKeysPost, "/api/account-keys", {
    method: "POST",
    headers: { authorization: `Bearer ${jwt}`, ...headers },
    json,
  });
}

/**
 * The whole legitimate flow for a key's owner: opens the account with `key` (its contact e-mail),
 * verifies the e-mail with the e-mailed code, sets a password, signs in and links `key` to the
 * account by pasting it. Returns the account creation answer and the JWT.
 */
export async function openLinkedAccount(key: string, extra: Record<string, unknown> = {}) {
  const opened = await openAccount(key, extra);
  if (opened.res.status !== 201)
    throw new Error(`open account: ${opened.res.status} ${JSON.stringify(opened.body)}`);
  const email = opened.body.account.email as string;
  await verifyEmail(email);
  await setPassword(email, "owner password 123");
  const jwt = await signIn(email, "owner password 123");
  const linked = await accountKeys(jwt, { action: "link", api_key: key });
  if (linked.res.status !== 200) throw new Error(`link: ${linked.res.status} ${JSON.stringify(linked.body)}`);
  return { ...opened, jwt };
}

/**
 * Prepaid accounts: creation with a key and by web registration (Turnstile checked
 * against a loopback stand-in speaking siteverify's wire format), reading, and the
 * operator's deposits, adjustments, suspension and discounts, with their bad inputs.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { clientAccounts, emails, invoices, ledgerEntries } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import {
  accountAdmin,
  openAccount,
  openLinkedAccount,
  readAccount,
  registerWeb,
  verifyEmail,
  webBody,
} from "./helpers.js";

useTestDatabase();

/** Turnstile siteverify stand-in: form-encoded secret/response/remoteip in, JSON out. */
const seen: URLSearchParams[] = [];
let server: Server;
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const form = new URLSearchParams(raw);
      seen.push(form);
      const token = form.get("response");
      if (
        req.headers["content-type"] !== "application/x-www-form-urlencoded" ||
        form.get("secret") !== "test-secret"
      ) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, "error-codes": ["invalid-input-secret"] }));
      } else if (token === "boom") {
        res.writeHead(500).end("oops");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            token === "pass"
              ? {
                  success: true,
                  challenge_ts: new Date().toISOString(),
                  hostname: "localhost",
                  "error-codes": [],
                }
              : { success: false, "error-codes": ["invalid-input-response"] },
          ),
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  process.env.TURNSTILE_SECRET_KEY = "test-secret";
  process.env.TURNSTILE_VERIFY_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`;
  resetConfig();
});
afterAll(async () => {
  delete process.env.TURNSTILE_SECRET_KEY;
  delete process.env.TURNSTILE_VERIFY_URL;
  resetConfig();
  await new Promise((r) => server.close(r));
});

/**
 * Account enumeration (issue 25, item 6): the answer `taken` to a registration of `email`, whose
 * account is verified, is the answer `fresh` a new address got — status, members, account members
 * and message with the address swapped — while nothing is written but a notice to the owner.
 */
async function expectSameAnswerAsNew(
  taken: { res: Response; body: any },
  fresh: { res: Response; body: any },
  email: string,
) {
  expect(taken.res.status).toBe(201);
  expect(taken.res.status).toBe(fresh.res.status);
  expect(Object.keys(taken.body).sort()).toEqual(Object.keys(fresh.body).sort());
  expect(Object.keys(taken.body.account).sort()).toEqual(Object.keys(fresh.body.account).sort());
  expect(taken.body.account).toMatchObject({
    email,
    status: "pending_deposit",
    email_verified: false,
    balance_cad: 0,
  });
  expect(taken.body.message).toBe(fresh.body.message.replaceAll(fresh.body.account.email, email));
  expect(taken.body.email_verification_sent).toBe(true);
  const db = await getDb();
  const rows = await db.select().from(clientAccounts).where(eq(clientAccounts.email, email));
  expect(rows).toHaveLength(1);
  expect(rows[0]!.emailVerifiedAt).not.toBeNull();
  expect(rows[0]!.id).not.toBe(taken.body.account.account_id); // the id shown is never stored
  expect(
    await db.select().from(clientAccounts).where(eq(clientAccounts.id, taken.body.account.account_id)),
  ).toEqual([]);
  // The e-mail tells the owner; it carries no code.
  const notices = await db
    .select()
    .from(emails)
    .where(and(eq(emails.toAddress, email), eq(emails.template, "account-exists")));
  expect(notices).toHaveLength(1);
  expect(notices[0]!.accountId).toBe(rows[0]!.id);
  expect(notices[0]!.textBody).not.toMatch(/(vfy|rst)_[A-Za-z0-9]{40}/);
}

let admin: string;
beforeAll(async () => {
  admin = await makeKey(["admin"], "ops@example.com");
});

async function ledgerOf(accountId: string) {
  const db = await getDb();
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
}

describe("creation with a key", () => {
  it("opens a pending_deposit account for the key's contact (unlinked); reopening replaces it until verified, then answers alike", async () => {
    const key = await makeKey(undefined, "Buyer@Example.com");
    const { res, body } = await openAccount(key, { company_name: "Acme", tos_accepted: true });
    expect(res.status).toBe(201);
    expect(body.account).toMatchObject({
      email: "buyer@example.com",
      name: "Client Test",
      status: "pending_deposit",
      balance_cad: 0,
      available_balance_cad: 0,
      spending_level: "blocked",
      discount_percent: 0,
      email_verified: false,
      has_password: false,
      address: { province: "QC" },
    });
    expect(body.account.account_id).toMatch(/^acct_/);
    expect(body.account.org_id).toMatch(/^org_/);
    expect(body.email_verification_sent).toBe(true);
    const db = await getDb();
    const mail = await db.select().from(emails).where(eq(emails.accountId, body.account.account_id));
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({
      toAddress: "buyer@example.com",
      template: "account-verify-email",
      status: "queued",
    });
    expect(mail[0]!.textBody).toMatch(/vfy_[A-Za-z0-9]{40}/);
    // The key is not linked to the account it opened (its contact was typed, not verified).
    expect((await readAccount({ "x-api-key": key })).res.status).toBe(404);

    // Unverified, the account blocks nobody: opening it again discards the first one.
    const again = await openAccount(key);
    expect(again.res.status).toBe(201);
    expect(again.body.account.account_id).not.toBe(body.account.account_id);
    expect(
      await db.select().from(clientAccounts).where(eq(clientAccounts.id, body.account.account_id)),
    ).toEqual([]);
    await verifyEmail("buyer@example.com");
    const taken = await openAccount(key);
    await expectSameAnswerAsNew(taken, again, "buyer@example.com");
  });

  it("refuses another e-mail than the key's contact (403)", async () => {
    const key = await makeKey(undefined, "own@example.com");
    const { res, body } = await openAccount(key, { email: "someone-else@example.com" });
    expect(expectEnvelope(body, res, 403, "FORBIDDEN").field).toBe("email");
    const same = await openAccount(key, { email: "OWN@example.com" });
    expect(same.res.status).toBe(201);
    const withPassword = await makeKey(undefined, "pw@example.com");
    const pw = await openAccount(withPassword, { password: "long enough password" });
    expect(expectEnvelope(pw.body, pw.res, 422, "VALIDATION_ERROR").field).toBe("password");
  });

  it.each([
    [{ contact_name: "A" }, 422, "VALIDATION_ERROR", "contact_name"],
    [{ contact_name: "Al", postal_code: "12345" }, 422, "VALIDATION_ERROR", "postal_code"],
    [{ contact_name: "Al", province: "XX" }, 422, "VALIDATION_ERROR", "province"],
    [{ contact_name: "Al", password: "short" }, 422, "VALIDATION_ERROR", "password"],
    [{ contact_name: "Al", password: "é".repeat(40) }, 422, "VALIDATION_ERROR", "password"],
    [{ contact_name: "Al", balance_cad: 1000 }, 422, "VALIDATION_ERROR", "balance_cad"],
    [{ contact_name: "Al", company_name: "x".repeat(201) }, 422, "FIELD_TOO_LONG", "company_name"],
  ])("refuses %j", async (json, status, code, field) => {
    const key = await makeKey();
    const { POST } = await import("../../api/client-account.js");
    const { call } = await import("../helpers/request.js");
    const { res, body } = await call(POST, "/api/client-account", {
      method: "POST",
      headers: { "x-api-key": key },
      json,
    });
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });
});

describe("web registration", () => {
  it("verifies the Turnstile token and creates the account with a password", async () => {
    seen.length = 0;
    const { res, body } = await registerWeb(webBody("web@example.com"));
    expect(res.status).toBe(201);
    expect(body.account).toMatchObject({
      email: "web@example.com",
      status: "pending_deposit",
      has_password: true,
      lang: "fr",
      address: { postal_code: "J6W 1A1", city: "Terrebonne", province: "QC" },
    });
    expect(body.account.tos_accepted_at).not.toBeNull();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.get("secret")).toBe("test-secret");
    expect(seen[0]!.get("response")).toBe("pass");
    const db = await getDb();
    const [row] = await db.select().from(clientAccounts).where(eq(clientAccounts.email, "web@example.com"));
    expect(row!.passwordHash).toMatch(/^\$2[aby]\$/);
    const [mail] = await db.select().from(emails).where(eq(emails.accountId, row!.id));
    expect(mail!.subject).toMatch(/Confirmez/);
  });

  it("refuses a token Turnstile rejects (422, with its error codes) and is 503 when siteverify fails", async () => {
    const bad = await registerWeb(webBody("bad-captcha@example.com", { cf_turnstile_token: "forged" }));
    const error = expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR");
    expect(error.field).toBe("cf_turnstile_token");
    expect(error.turnstile_error_codes).toEqual(["invalid-input-response"]);
    const down = await registerWeb(webBody("down@example.com", { cf_turnstile_token: "boom" }));
    expectEnvelope(down.body, down.res, 503, "UPSTREAM_UNAVAILABLE");
    expect(down.res.headers.get("retry-after")).toBe("30");
    const db = await getDb();
    expect(
      await db.select().from(clientAccounts).where(eq(clientAccounts.email, "down@example.com")),
    ).toHaveLength(0);
  });

  it.each([
    "email",
    "password",
    "phone",
    "address_line1",
    "city",
    "postal_code",
    "tos_accepted",
    "cf_turnstile_token",
  ])("requires %s without a key (400 MISSING_FIELD)", async (field) => {
    const json: Record<string, unknown> = webBody(`missing-${field}@example.com`);
    delete json[field];
    const { res, body } = await registerWeb(json);
    expect(expectEnvelope(body, res, 400, "MISSING_FIELD").field).toBe(field);
  });

  it("requires tos_accepted true and answers a verified e-mail like a new one", async () => {
    const tos = await registerWeb(webBody("tos@example.com", { tos_accepted: false }));
    expect(expectEnvelope(tos.body, tos.res, 422, "VALIDATION_ERROR").field).toBe("tos_accepted");
    await verifyEmail("web@example.com");
    const fresh = await registerWeb(webBody("web-fresh@example.com"));
    expect(fresh.res.status).toBe(201);
    const taken = await registerWeb(webBody("WEB@example.com"));
    await expectSameAnswerAsNew(taken, fresh, "web@example.com");
  });
});

describe("reading", () => {
  it("reads the key's linked account; 404 without one; email lookup is admin-only; 401 without credential", async () => {
    const key = await makeKey(undefined, "reader@example.com");
    const none = await readAccount({ "x-api-key": key });
    expectEnvelope(none.body, none.res, 404, "NOT_FOUND");
    await openLinkedAccount(key);
    const own = await readAccount({ "x-api-key": key });
    expect(own.res.status).toBe(200);
    expect(own.body.account.email).toBe("reader@example.com");
    const other = await readAccount({ "x-api-key": key }, "?email=web@example.com");
    expectEnvelope(other.body, other.res, 403, "FORBIDDEN");
    const byAdmin = await readAccount({ "x-api-key": admin }, "?email=web@example.com");
    expect(byAdmin.body.account.email).toBe("web@example.com");
    const anon = await readAccount({});
    expectEnvelope(anon.body, anon.res, 401, "UNAUTHORIZED");
    const dash = await readAccount({ "x-api-key": key }, "?include=dashboard");
    expectEnvelope(dash.body, dash.res, 401, "UNAUTHORIZED");
  });
});

describe("operator actions", () => {
  let accountId: string;
  beforeAll(async () => {
    const key = await makeKey(undefined, "funded@example.com");
    accountId = (await openAccount(key)).body.account.account_id;
    await verifyEmail("funded@example.com");
  });

  it("records a deposit once per Idempotency-Key, activates the account and issues an invoice", async () => {
    const headers = { "idempotency-key": "deposit-2025-001" };
    const first = await accountAdmin(
      admin,
      { action: "deposit", email: "funded@example.com", amount_cad: 500, description: "Wire 123" },
      headers,
    );
    expect(first.res.status).toBe(200);
    expect(first.body.account).toMatchObject({
      status: "active",
      balance_cad: 500,
      available_balance_cad: 500,
      spending_level: "ok",
    });
    expect(first.body.ledger_entry).toMatchObject({ kind: "deposit", amount_cad: 500 });
    expect(first.body.ledger_entry.invoice_id).toMatch(/^inv_/);
    const replay = await accountAdmin(
      admin,
      { action: "deposit", email: "funded@example.com", amount_cad: 500, description: "Wire 123" },
      headers,
    );
    expect(replay.res.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const reused = await accountAdmin(
      admin,
      { action: "deposit", email: "funded@example.com", amount_cad: 900 },
      headers,
    );
    expectEnvelope(reused.body, reused.res, 422, "IDEMPOTENCY_KEY_REUSED");
    const entries = await ledgerOf(accountId);
    expect(entries).toHaveLength(1);
    const db = await getDb();
    const [invoice] = await db.select().from(invoices).where(eq(invoices.accountId, accountId));
    expect(invoice).toMatchObject({ kind: "deposit", amountCad: 500 });
  });

  it.each([
    [
      { action: "deposit", email: "funded@example.com", amount_cad: -50 },
      422,
      "VALIDATION_ERROR",
      "amount_cad",
    ],
    [
      { action: "deposit", email: "funded@example.com", amount_cad: 0 },
      422,
      "VALIDATION_ERROR",
      "amount_cad",
    ],
    [
      { action: "deposit", email: "funded@example.com", amount_cad: 10_000_000 },
      422,
      "VALIDATION_ERROR",
      "amount_cad",
    ],
    [
      { action: "deposit", email: "funded@example.com", amount_cad: 10.005 },
      422,
      "VALIDATION_ERROR",
      "amount_cad",
    ],
    [
      { action: "deposit", email: "funded@example.com", amount_cad: "100" },
      400,
      "INVALID_FORMAT",
      "amount_cad",
    ],
    [{ action: "deposit", email: "funded@example.com" }, 400, "MISSING_FIELD", "amount_cad"],
    [{ action: "deposit", amount_cad: 10 }, 400, "MISSING_FIELD", "email"],
    [{ action: "deposit", email: "nobody@example.com", amount_cad: 10 }, 404, "NOT_FOUND", "email"],
    [
      { action: "adjust", email: "funded@example.com", amount_cad: -600, description: "fix" },
      422,
      "VALIDATION_ERROR",
      "amount_cad",
    ],
    [{ action: "adjust", email: "funded@example.com", amount_cad: -10 }, 400, "MISSING_FIELD", "description"],
    [
      { action: "set_discount", email: "funded@example.com", discount_percent: 101 },
      422,
      "VALIDATION_ERROR",
      "discount_percent",
    ],
    [{ action: "refund_all", email: "funded@example.com" }, 422, "VALIDATION_ERROR", "action"],
  ])("refuses %j", async (json, status, code, field) => {
    const { res, body } = await accountAdmin(admin, json);
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
    const entries = await ledgerOf(accountId);
    expect(entries.reduce((s, e) => s + e.amountCad, 0)).toBe(500);
  });

  it("adjusts, suspends, re-activates and sets the discount", async () => {
    const adj = await accountAdmin(admin, {
      action: "adjust",
      account_id: accountId,
      amount_cad: -20.5,
      description: "Bank fee",
    });
    expect(adj.body.account.balance_cad).toBe(479.5);
    expect(adj.body.ledger_entry).toMatchObject({ kind: "adjustment", amount_cad: -20.5, invoice_id: null });
    const sus = await accountAdmin(admin, { action: "suspend", email: "funded@example.com" });
    expect(sus.body.account).toMatchObject({ status: "suspended", spending_level: "blocked" });
    const again = await accountAdmin(admin, { action: "suspend", email: "funded@example.com" });
    expect(again.body.account.status).toBe("suspended");
    const act = await accountAdmin(admin, { action: "activate", email: "funded@example.com" });
    expect(act.body.account.status).toBe("active");
    const disc = await accountAdmin(admin, {
      action: "set_discount",
      email: "funded@example.com",
      discount_percent: 12.5,
    });
    expect(disc.body.account.discount_percent).toBe(12.5);
  });

  it("will not activate an account that never had a deposit (409), nor let a non-admin act", async () => {
    const key = await makeKey(undefined, "never@example.com");
    await openAccount(key);
    const { res, body } = await accountAdmin(admin, { action: "activate", email: "never@example.com" });
    expect(expectEnvelope(body, res, 409, "CONFLICT").current_status).toBe("pending_deposit");
    const self = await accountAdmin(key, { action: "deposit", email: "never@example.com", amount_cad: 1000 });
    expectEnvelope(self.body, self.res, 403, "FORBIDDEN");
  });
});

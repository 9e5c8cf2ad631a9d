/**
 * Client login (bcrypt passwords, 24 h HS256 JWT with org_id, 5 attempts per IP per
 * hour), the JWT on GET /api/client-account (dashboard, invoices), expired and forged
 * tokens, e-mail verification and password reset with single-use codes.
 */
import { desc, eq } from "drizzle-orm";
import { decodeJwt, SignJWT } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { POST as authPost } from "../../api/client-auth.js";
import { DEV_JWT_SECRET, JWT_AUDIENCE, JWT_ISSUER, signClientJwt } from "../../lib/auth/jwt.js";
import { openSession } from "../../lib/auth/sessions.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { authTokens, clientAccounts, emails } from "../../lib/db/schema/index.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import {
  accountAdmin,
  openAccount,
  readAccount,
  registerWeb,
  verifyEmail,
  webBody,
} from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";

useTestDatabase();

function auth(action: string | null, json: Record<string, unknown>, ip = "198.51.100.7") {
  const qs = action === null ? "" : `?action=${action}`;
  return call(authPost, `/api/client-auth${qs}`, {
    method: "POST",
    headers: { "x-local-socket-ip": ip },
    json,
  });
}

async function lastToken(email: string, template: string): Promise<string> {
  const db = await getDb();
  const [mail] = await db
    .select()
    .from(emails)
    .where(eq(emails.toAddress, email))
    .orderBy(desc(emails.createdAt));
  const rows = (await db.select().from(emails).where(eq(emails.toAddress, email))).filter(
    (m) => m.template === template,
  );
  const text = (rows.at(-1) ?? mail)!.textBody;
  return /((?:vfy|rst)_[A-Za-z0-9]{40})/.exec(text)![1]!;
}

let admin: string;
let accountId: string;
let orgId: string;
beforeAll(async () => {
  admin = await makeKey(["admin"], "ops@example.com");
  const { body } = await registerWeb(webBody("human@example.com"));
  accountId = body.account.account_id;
  orgId = body.account.org_id;
  await verifyEmail("human@example.com");
  await accountAdmin(admin, { action: "deposit", email: "human@example.com", amount_cad: 300 });
});

describe("login", () => {
  it("returns a 24 h JWT carrying org_id and the account id (action defaults to login)", async () => {
    const { res, body } = await auth(null, { email: "Human@Example.com", password: "correct horse battery" });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      ok: true,
      token_type: "Bearer",
      expires_in: 86_400,
      org_id: orgId,
      account_id: accountId,
    });
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({ sub: accountId, org_id: orgId, iss: JWT_ISSUER, aud: JWT_AUDIENCE });
    expect(claims.exp! - claims.iat!).toBe(86_400);
  });

  it("reads the own account, dashboard and invoices with Authorization: Bearer <jwt>", async () => {
    const { body: login } = await auth("login", {
      email: "human@example.com",
      password: "correct horse battery",
    });
    const headers = { authorization: `Bearer ${login.token}` };
    const plain = await readAccount(headers);
    expect(plain.body.account).toMatchObject({
      email: "human@example.com",
      status: "active",
      balance_cad: 300,
    });
    const dash = await readAccount(headers, "?include=dashboard");
    expect(dash.body.dashboard.transactions).toHaveLength(1);
    const invoiceId = dash.body.dashboard.invoices[0].invoice_id;
    const invoice = await readAccount(headers, `?invoice_id=${invoiceId}`);
    expect(invoice.body.invoice).toMatchObject({
      invoice_id: invoiceId,
      kind: "deposit",
      currency: "CAD",
      total_cad: 300,
      bill_to: { account_id: accountId, email: "human@example.com", address: { city: "Terrebonne" } },
    });
    const foreign = await readAccount(headers, "?email=ops@example.com");
    expectEnvelope(foreign.body, foreign.res, 403, "FORBIDDEN");
    const missing = await readAccount(headers, "?invoice_id=inv_nope");
    expectEnvelope(missing.body, missing.res, 404, "NOT_FOUND");
  });

  it("another account's invoice is 404 through the JWT, readable by an admin key", async () => {
    const other = await makeKey(undefined, "other@example.com");
    await openAccount(other);
    await verifyEmail("other@example.com");
    const dep = await accountAdmin(admin, { action: "deposit", email: "other@example.com", amount_cad: 50 });
    const { body: login } = await auth("login", {
      email: "human@example.com",
      password: "correct horse battery",
    });
    const stolen = await readAccount(
      { authorization: `Bearer ${login.token}` },
      `?invoice_id=${dep.body.ledger_entry.invoice_id}`,
    );
    expectEnvelope(stolen.body, stolen.res, 404, "NOT_FOUND");
    const byAdmin = await readAccount(
      { "x-api-key": admin },
      `?email=other@example.com&invoice_id=${dep.body.ledger_entry.invoice_id}`,
    );
    expect(byAdmin.body.invoice.total_cad).toBe(50);
  });

  it.each([
    [{ email: "human@example.com", password: "wrong password" }, 401, "UNAUTHORIZED"],
    [{ email: "nobody@example.com", password: "whatever123" }, 401, "UNAUTHORIZED"],
    [{ email: "human@example.com" }, 422, "VALIDATION_ERROR"],
    [{ password: "whatever123" }, 422, "VALIDATION_ERROR"],
    [{ email: "human@example.com", password: "x", extra: 1 }, 422, "VALIDATION_ERROR"],
  ])("refuses %j", async (json, status, code) => {
    const { res, body } = await auth("login", json);
    expectEnvelope(body, res, status, code);
  });

  it("an account opened with a key has no password until reset: login is 401", async () => {
    const key = await makeKey(undefined, "keyonly@example.com");
    await openAccount(key);
    const { res, body } = await auth("login", { email: "keyonly@example.com", password: "anything-long" });
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });

  it("compares an unknown e-mail's password with a dummy hash at the configured BCRYPT_COST", async () => {
    const bcrypt = (await import("bcryptjs")).default;
    const compare = vi.spyOn(bcrypt, "compare");
    process.env.BCRYPT_COST = "5";
    resetConfig();
    try {
      const { res, body } = await auth("login", {
        email: "nobody-here@example.com",
        password: "anything-long",
      });
      expectEnvelope(body, res, 401, "UNAUTHORIZED");
      const hashes = compare.mock.calls.map((c) => String(c[1]));
      expect(hashes).toHaveLength(1);
      // bcrypt's cost is the two digits after the version: a login for a known address costs as much.
      expect(hashes[0]).toMatch(/^\$2[aby]\$05\$/);
    } finally {
      compare.mockRestore();
      delete process.env.BCRYPT_COST;
      resetConfig();
    }
  });

  it("limits login to 5 attempts per IP per hour; other actions do not count", async () => {
    process.env.LOGIN_ATTEMPTS_PER_IP_PER_HOUR = "5";
    resetConfig();
    // The limiters count on a fixed clock 10 s into an hour: the attempts below fall in one window
    // whatever the time (and however slowly bcrypt runs), and the Retry-After is exact.
    resetLimiters(() => Date.UTC(2026, 0, 5, 0, 0, 10));
    try {
      const ip = "203.0.113.50";
      for (let i = 0; i < 3; i++) await auth("reset-request", { email: "human@example.com" }, ip);
      for (let i = 0; i < 5; i++) {
        const { res } = await auth("login", { email: "human@example.com", password: "wrong password" }, ip);
        expect(res.status).toBe(401);
      }
      const { res, body } = await auth(
        "login",
        { email: "human@example.com", password: "correct horse battery" },
        ip,
      );
      expectEnvelope(body, res, 429, "RATE_LIMITED");
      expect(res.headers.get("retry-after")).toBe("3590"); // to the end of that hour
      const dodge = await call(authPost, "/api/client-auth?action=verify-email&action=login", {
        method: "POST",
        headers: { "x-local-socket-ip": ip },
        json: { email: "human@example.com", password: "correct horse battery" },
      });
      expectEnvelope(dodge.body, dodge.res, 429, "RATE_LIMITED");
      const elsewhere = await auth(
        "login",
        { email: "human@example.com", password: "correct horse battery" },
        "203.0.113.51",
      );
      expect(elsewhere.res.status).toBe(200);
    } finally {
      process.env.LOGIN_ATTEMPTS_PER_IP_PER_HOUR = "1000000";
      resetConfig();
      resetLimiters();
    }
  });
});

describe("logout", () => {
  it("revokes that session only; without a JWT it is 401; a second logout with the same token is 401", async () => {
    const login = async () =>
      (await auth("login", { email: "human@example.com", password: "correct horse battery" })).body
        .token as string;
    const first = await login();
    const second = await login();
    const out = await call(authPost, "/api/client-auth?action=logout", {
      method: "POST",
      headers: { authorization: `Bearer ${first}` },
      json: {},
    });
    expect(out.res.status).toBe(200);
    const ended = await readAccount({ authorization: `Bearer ${first}` });
    expect(expectEnvelope(ended.body, ended.res, 401, "UNAUTHORIZED").reason).toBe("session_ended");
    expect((await readAccount({ authorization: `Bearer ${second}` })).res.status).toBe(200);
    const again = await call(authPost, "/api/client-auth?action=logout", {
      method: "POST",
      headers: { authorization: `Bearer ${first}` },
      json: {},
    });
    expectEnvelope(again.body, again.res, 401, "UNAUTHORIZED");
    const none = await auth("logout", {});
    expectEnvelope(none.body, none.res, 401, "UNAUTHORIZED");
  });

  it("a token signed with the right secret but no session row (no jti, or a made-up one) is refused", async () => {
    const { token } = await signClientJwt({ id: accountId, orgId, email: "human@example.com" }, "ses_madeup");
    const res = await readAccount({ authorization: `Bearer ${token}` });
    expect(expectEnvelope(res.body, res.res, 401, "UNAUTHORIZED").reason).toBe("session_ended");
  });
});

describe("JWT checks", () => {
  const account = () => ({ id: accountId, orgId, email: "human@example.com" });

  it("refuses an expired token", async () => {
    const { token } = await openSession(account(), new Date(Date.now() - 25 * 3600_000));
    const { res, body } = await readAccount({ authorization: `Bearer ${token}` });
    expect(expectEnvelope(body, res, 401, "UNAUTHORIZED").reason).toBe("token_expired");
  });

  it.each([
    ["another secret", async () => sign(new TextEncoder().encode("x".repeat(40)))],
    ["another audience", async () => sign(new TextEncoder().encode(DEV_JWT_SECRET), "somewhere-else")],
    ["alg none", async () => `${b64({ alg: "none", typ: "JWT" })}.${b64(claims())}.`],
    [
      "a tampered payload",
      async () => {
        const { token } = await signClientJwt(account(), "ses_test");
        const [h, , s] = token.split(".");
        return `${h}.${b64({ ...claims(), sub: "acct_someone_else" })}.${s}`;
      },
    ],
  ])("refuses a token signed with %s", async (_, make) => {
    const token = await make();
    const { res, body } = await readAccount({ authorization: `Bearer ${token}` }, "?include=dashboard");
    expect(expectEnvelope(body, res, 401, "UNAUTHORIZED").reason).toBe("token_invalid");
  });

  function claims() {
    const now = Math.floor(Date.now() / 1000);
    return { sub: accountId, org_id: orgId, iss: JWT_ISSUER, aud: JWT_AUDIENCE, iat: now, exp: now + 3600 };
  }
  function b64(value: unknown) {
    return Buffer.from(JSON.stringify(value)).toString("base64url");
  }
  function sign(secret: Uint8Array, audience = JWT_AUDIENCE) {
    return new SignJWT({ org_id: orgId })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(accountId)
      .setIssuer(JWT_ISSUER)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(secret);
  }
});

describe("e-mail verification and password reset", () => {
  it("verifies the e-mail once; a reused or unknown code is 401", async () => {
    const created = await registerWeb(webBody("verifyme@example.com"));
    const verifyId = created.body.account.account_id as string;
    const token = await lastToken("verifyme@example.com", "account-verify-email");
    const first = await auth("verify-email", { token });
    expect(first.body).toMatchObject({ ok: true });
    const db = await getDb();
    const [row] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, verifyId));
    expect(row!.emailVerifiedAt).not.toBeNull();
    const again = await auth("verify-email", { token });
    expect(expectEnvelope(again.body, again.res, 401, "UNAUTHORIZED").field).toBe("token");
    const forged = await auth("verify-email", { token: `vfy_${"A".repeat(40)}` });
    expectEnvelope(forged.body, forged.res, 401, "UNAUTHORIZED");
    const missing = await auth("verify-email", {});
    expectEnvelope(missing.body, missing.res, 422, "VALIDATION_ERROR");
    const stored = await db.select().from(authTokens).where(eq(authTokens.accountId, verifyId));
    expect(stored.every((t) => !t.tokenHash.includes(token) && /^[0-9a-f]{64}$/.test(t.tokenHash))).toBe(
      true,
    );
  });

  it("answers reset-request the same whether or not the e-mail has an account", async () => {
    const known = await auth("reset-request", { email: "human@example.com" });
    const unknown = await auth("reset-request", { email: "ghost@example.com" });
    expect(known.res.status).toBe(200);
    expect(unknown.res.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    const db = await getDb();
    expect(await db.select().from(emails).where(eq(emails.toAddress, "ghost@example.com"))).toHaveLength(0);
  });

  it("resets the password with a single-use code; the old password, the spent code and older sessions stop working", async () => {
    // A session opened a minute ago with the old password.
    const { token: before } = await openSession(
      { id: accountId, orgId, email: "human@example.com" },
      new Date(Date.now() - 60_000),
    );
    const oldSession = { authorization: `Bearer ${before}` };
    expect((await readAccount(oldSession)).res.status).toBe(200);
    await auth("reset-request", { email: "human@example.com" });
    const token = await lastToken("human@example.com", "account-password-reset");
    const weak = await auth("reset-confirm", { token, password: "short" });
    expect(expectEnvelope(weak.body, weak.res, 422, "VALIDATION_ERROR").field).toBe("password");
    const ok = await auth("reset-confirm", { token, password: "a brand new password" });
    expect(ok.body.ok).toBe(true);
    const reused = await auth("reset-confirm", { token, password: "yet another password" });
    expectEnvelope(reused.body, reused.res, 401, "UNAUTHORIZED");
    const old = await auth("login", { email: "human@example.com", password: "correct horse battery" });
    expectEnvelope(old.body, old.res, 401, "UNAUTHORIZED");
    const fresh = await auth("login", { email: "human@example.com", password: "a brand new password" });
    expect(fresh.res.status).toBe(200);
    // The reset ended the older session; the session opened with the new password works.
    const ended = await readAccount(oldSession);
    expect(expectEnvelope(ended.body, ended.res, 401, "UNAUTHORIZED").reason).toBe("session_ended");
    expect((await readAccount({ authorization: `Bearer ${fresh.body.token}` })).res.status).toBe(200);
  });

  it("refuses an expired reset code", async () => {
    await auth("reset-request", { email: "human@example.com" });
    const token = await lastToken("human@example.com", "account-password-reset");
    const db = await getDb();
    const { sha256Hex } = await import("../../lib/ids.js");
    await db
      .update(authTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authTokens.tokenHash, sha256Hex(token)));
    const { res, body } = await auth("reset-confirm", { token, password: "whatever password" });
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });

  it("refuses an unknown action (422)", async () => {
    const { res, body } = await auth("sign-out", {});
    expect(expectEnvelope(body, res, 422, "VALIDATION_ERROR").field).toBe("action");
  });
});

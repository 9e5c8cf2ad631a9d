/**
 * Verified identities (issue 13, items 1, 2, 8 and 9): one row per attack. Each row runs its setup,
 * takes a snapshot of everything an attack could touch (ledger sums, the victims' account rows,
 * e-mails to the victims, every key's account link and revocation, holds, open sessions), makes the
 * attack, checks the refusal, and checks that the snapshot did not change.
 *
 * Cast: Alice owns a verified, funded account (500 CAD) with one linked key; Mallory creates keys
 * anonymously with `contact: alice@…` (and Dave's, Carol's addresses) and has her own verified
 * account; an operator holds an admin key.
 */
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as accountKeysGet } from "../../api/account-keys.js";
import { DELETE as keysDelete, GET as keysGet, POST as keysPost } from "../../api/api-keys.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import {
  apiKeys,
  clientAccounts,
  clientSessions,
  emails,
  ledgerEntries,
  preauthorizations,
} from "../../lib/db/schema/index.js";
import { sendQueuedEmails } from "../../lib/mail/send-queued-emails.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import {
  accountAdmin,
  accountKeys,
  billing,
  clientAuthCall,
  emailedCode,
  openAccount,
  openLinkedAccount,
  preAuthorize,
  readAccount,
  registerWeb,
  signIn,
  verifyEmail,
  webBody,
} from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const ALICE = "alice@example.com";
const VICTIMS = [
  ALICE,
  "dave@example.com",
  "carol@example.com",
  "erin@example.com",
  "frank@example.com",
  "gina@example.com",
];
const PASSWORD = "owner password 123";

let admin: string;
let aliceKey: string;
let aliceKeyId: string;
let aliceAccountId: string;
let aliceJwt: string;
let malloryKey: string;
let malloryKeyId: string;
let malloryJwt: string;

/** POST /api/api-keys without auth, as anyone on the Internet. */
async function anonymousKey(contact: string, name = "mallory", scopes?: string[]) {
  const { res, body } = await call(keysPost, "/api/api-keys", {
    method: "POST",
    json: { name, contact, ...(scopes ? { scopes } : {}) },
  });
  expect(res.status).toBe(201);
  expect(body.account_id).toBeNull();
  return body as { api_key: string; key_id: string; key_hint: string };
}

/** Everything an identity attack could change. */
async function snapshot() {
  const db = await getDb();
  const ledger = await db
    .select({ accountId: ledgerEntries.accountId, sum: sql<string>`sum(${ledgerEntries.amountCad})::text` })
    .from(ledgerEntries)
    .groupBy(ledgerEntries.accountId)
    .orderBy(asc(ledgerEntries.accountId));
  const accounts = await db
    .select({
      id: clientAccounts.id,
      email: clientAccounts.email,
      contactName: clientAccounts.contactName,
      passwordHash: clientAccounts.passwordHash,
      emailVerifiedAt: clientAccounts.emailVerifiedAt,
      status: clientAccounts.status,
    })
    .from(clientAccounts)
    .where(inArray(clientAccounts.email, VICTIMS))
    .orderBy(asc(clientAccounts.id));
  const mail = await db
    .select({ id: emails.id, to: emails.toAddress, text: emails.textBody })
    .from(emails)
    .where(inArray(emails.toAddress, VICTIMS))
    .orderBy(asc(emails.id));
  const keys = await db
    .select({ id: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .orderBy(asc(apiKeys.id));
  const holds = await db.select({ id: preauthorizations.id }).from(preauthorizations);
  const sessions = await db
    .select({ id: clientSessions.id })
    .from(clientSessions)
    .where(isNull(clientSessions.revokedAt))
    .orderBy(asc(clientSessions.id));
  return { ledger, accounts, mail, keys, holds: holds.length, sessions };
}

/**
 * The limiters' clock while a row runs: fixed, 10 s into an hour, so a row spends its small budget
 * inside one window whatever the time it runs at, and Retry-After is exact.
 */
const LIMITER_NOW = Date.UTC(2026, 0, 5, 0, 0, 10);

/**
 * Runs `fn` with settings `env` (rate limits) and fresh limiters on the fixed clock `LIMITER_NOW`,
 * then restores the test defaults (and the real clock).
 */
async function withSettings<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  resetConfig();
  resetLimiters(() => LIMITER_NOW);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) process.env[k] = v;
    resetConfig();
    resetLimiters();
  }
}

beforeAll(async () => {
  admin = await makeKey(["admin"], "ops@example.com");
  // Alice: a web registration, verified, funded, with a key created from her dashboard.
  await registerWeb(webBody(ALICE, { password: PASSWORD }));
  await verifyEmail(ALICE);
  await accountAdmin(admin, { action: "deposit", email: ALICE, amount_cad: 500 });
  aliceJwt = await signIn(ALICE, PASSWORD);
  const created = await accountKeys(aliceJwt, { action: "create", name: "alice-agent" });
  expect(created.res.status).toBe(200);
  aliceKey = created.body.api_key;
  aliceKeyId = created.body.key_id;
  aliceAccountId = created.body.account_id;
  // Mallory: an anonymous key that types Alice's address, and her own verified account.
  const mallory = await anonymousKey(ALICE, "mallory", ["audit_only", "task_create", "billing_read"]);
  malloryKey = mallory.api_key;
  malloryKeyId = mallory.key_id;
  const own = await makeKey(undefined, "mallory@evil.example");
  ({ jwt: malloryJwt } = await openLinkedAccount(own));
});

interface Outcome {
  res: Response;
  body: any;
}

interface Attack {
  name: string;
  /** Runs before the snapshot (what the attacker prepares, or the legitimate state). */
  setup?: () => Promise<void>;
  attack: () => Promise<Outcome>;
  /** Settings (rate limits) in force for setup and attack. */
  env?: Record<string, string>;
  /** The refusal: an error envelope, or a success status whose body `check` inspects. */
  status: number;
  code?: string;
  reason?: string;
  check?: (out: Outcome) => Promise<void> | void;
}

const attacks: Attack[] = [
  {
    name: "item 1a: a key whose typed contact is Alice's reads her account",
    attack: () => readAccount({ "x-api-key": malloryKey }),
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "item 1a: ... asks for it by e-mail",
    attack: () => readAccount({ "x-api-key": malloryKey }, `?email=${ALICE}`),
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "item 1b: ... reads her balance",
    attack: () => billing(malloryKey, `action=balance&agent_id=${ALICE}`),
    status: 403,
    code: "FORBIDDEN",
  },
  {
    name: "item 1b: ... reads her transactions",
    attack: () => billing(malloryKey, `action=transactions&agent_id=${ALICE}`),
    status: 403,
    code: "FORBIDDEN",
  },
  {
    name: "item 1b: ... reads her balance through the name of her key",
    attack: () => billing(malloryKey, "action=balance&agent_id=alice-agent"),
    status: 403,
    code: "FORBIDDEN",
  },
  {
    name: "item 1c: ... places a hold on her balance",
    attack: () => preAuthorize(malloryKey, { agent_id: ALICE, max_cost_cad: 100 }),
    status: 403,
    code: "FORBIDDEN",
  },
  {
    name: "item 1b: ... lists the keys of 'her contact' (sees only itself)",
    attack: () => call(keysGet, "/api/api-keys", { headers: { "x-api-key": malloryKey } }),
    status: 200,
    check: ({ body }) => {
      expect(body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([malloryKeyId]);
    },
  },
  {
    name: "item 1b: Alice's key does not see Mallory's key either (same typed contact)",
    attack: () => call(keysGet, "/api/api-keys", { headers: { "x-api-key": aliceKey } }),
    status: 200,
    check: ({ body }) => {
      expect(body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([aliceKeyId]);
    },
  },
  {
    name: "item 1: Alice's key cannot revoke Mallory's key by the shared contact",
    attack: () =>
      call(keysDelete, "/api/api-keys", {
        method: "DELETE",
        headers: { "x-api-key": aliceKey },
        json: { key_to_revoke: malloryKey },
      }),
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "item 1a: a task submitted with that key is not charged to Alice at approval",
    setup: async () => {
      const { body } = await submitTask(
        { ...validTask, requester_contact: "mallory@evil.example" },
        { "x-api-key": malloryKey },
      );
      pendingTask = body.task_id;
    },
    attack: () => reviewTask(admin, { task_id: pendingTask, action: "approve", price_cad: 120 }),
    status: 200,
    check: ({ body }) => {
      expect(body.status).toBe("accepted_pending_payment");
    },
  },
  {
    name: "item 1: Mallory, signed in to her own account, links Alice's key by its id",
    attack: () => accountKeys(malloryJwt, { action: "link", key_id: aliceKeyId }),
    status: 422,
    code: "VALIDATION_ERROR",
  },
  {
    name: "item 1: ... links a key by a guessed value",
    attack: () => accountKeys(malloryJwt, { action: "link", api_key: `svc_${"A".repeat(40)}` }),
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "item 1: ... unlinks Alice's key by its id",
    attack: () => accountKeys(malloryJwt, { action: "unlink", key_id: aliceKeyId }),
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "item 1: ... links Alice's key, already linked to Alice's account, with the full key",
    attack: () => accountKeys(malloryJwt, { action: "link", api_key: aliceKey }),
    status: 409,
    code: "CONFLICT",
  },
  {
    name: "item 2: a key opens Dave's account and sets its password",
    setup: async () => {
      daveSquatKey = (await anonymousKey("dave@example.com")).api_key;
    },
    attack: () => openAccount(daveSquatKey, { password: "mallory's password" }),
    status: 422,
    code: "VALIDATION_ERROR",
  },
  {
    name: "item 2: a squatter logs in to an account whose e-mail was never verified",
    setup: async () => {
      await registerWeb(webBody("erin@example.com", { password: "squatter password" }));
    },
    attack: () => clientAuthCall("login", { email: "erin@example.com", password: "squatter password" }),
    status: 403,
    code: "FORBIDDEN",
    reason: "email_not_verified",
  },
  {
    name: "item 2: the operator deposits to an account whose e-mail was never verified",
    attack: () => accountAdmin(admin, { action: "deposit", email: "erin@example.com", amount_cad: 100 }),
    status: 409,
    code: "CONFLICT",
    reason: "email_not_verified",
  },
  {
    name: "item 2: Carol is tricked into verifying an account Mallory's key opened: the key stays unlinked",
    setup: async () => {
      const key = await anonymousKey("carol@example.com", "trap");
      carolTrapKey = key.api_key;
      const opened = await openAccount(key.api_key);
      expect(opened.res.status).toBe(201);
      // The verification e-mail names the key by its last 4 characters only (its name, like the
      // contact name, is text a stranger typed) and says verifying does not link it.
      const db = await getDb();
      const [mail] = await db
        .select({ text: emails.textBody })
        .from(emails)
        .where(and(eq(emails.toAddress, "carol@example.com"), eq(emails.template, "account-verify-email")));
      expect(mail!.text).toContain(`ending in "…${key.key_hint}"`);
      expect(mail!.text).not.toContain("trap");
      expect(mail!.text).not.toContain("Client Test"); // the typed contact_name
      expect(mail!.text).toContain("does NOT link that key");
      await verifyEmail("carol@example.com");
    },
    attack: () => readAccount({ "x-api-key": carolTrapKey }),
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "item 9: a logged-out JWT reads the dashboard",
    setup: async () => {
      const jwt = await signIn(ALICE, PASSWORD);
      loggedOut = jwt;
      const out = await clientAuthCall("logout", {}, { authorization: `Bearer ${jwt}` });
      expect(out.res.status).toBe(200);
    },
    attack: () => readAccount({ authorization: `Bearer ${loggedOut}` }, "?include=dashboard"),
    status: 401,
    code: "UNAUTHORIZED",
    reason: "session_ended",
  },
  {
    name: "item 9: a logged-out JWT links a key",
    attack: () => accountKeys(loggedOut, { action: "create", name: "after-logout" }),
    status: 401,
    code: "UNAUTHORIZED",
  },
  {
    name: "item 9: a suspended account logs in",
    setup: async () => {
      const key = await makeKey(undefined, "frank@example.com");
      const { jwt } = await openLinkedAccount(key);
      frankJwt = jwt;
      await accountAdmin(admin, { action: "deposit", email: "frank@example.com", amount_cad: 10 });
      await accountAdmin(admin, { action: "suspend", email: "frank@example.com" });
    },
    attack: () => clientAuthCall("login", { email: "frank@example.com", password: PASSWORD }),
    status: 403,
    code: "FORBIDDEN",
    reason: "account_suspended",
  },
  {
    name: "item 9: a suspended account's live JWT reads the account",
    attack: () => readAccount({ authorization: `Bearer ${frankJwt}` }),
    status: 401,
    code: "UNAUTHORIZED",
    reason: "account_suspended",
  },
  {
    name: "item 8: logins for one e-mail spread over many IPs",
    env: { LOGIN_ATTEMPTS_PER_EMAIL_PER_HOUR: "3" },
    setup: async () => {
      for (let i = 0; i < 3; i++) {
        const { res } = await clientAuthCall(
          "login",
          { email: ALICE, password: "wrong guess" },
          { "x-local-socket-ip": `198.51.100.${10 + i}` },
        );
        expect(res.status).toBe(401);
      }
    },
    // The right password, from a fresh IP: no session is opened.
    attack: () =>
      clientAuthCall("login", { email: ALICE, password: PASSWORD }, { "x-local-socket-ip": "198.51.100.99" }),
    status: 429,
    code: "RATE_LIMITED",
    check: ({ res }) => {
      expect(res.headers.get("retry-after")).toBe("3590"); // to the end of that hour
    },
  },
  {
    name: "item 8: reset-request floods one address from many IPs",
    env: { EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR: "2" },
    setup: async () => {
      for (let i = 0; i < 2; i++) {
        const { res } = await clientAuthCall(
          "reset-request",
          { email: ALICE },
          { "x-local-socket-ip": `198.51.100.${30 + i}` },
        );
        expect(res.status).toBe(200);
      }
    },
    attack: () => clientAuthCall("reset-request", { email: ALICE }, { "x-local-socket-ip": "198.51.100.40" }),
    status: 429,
    code: "RATE_LIMITED",
  },
  {
    name: "item 8: reset-request for many addresses from one IP",
    env: { EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR: "2" },
    setup: async () => {
      for (const email of ["x1@example.com", "x2@example.com"]) {
        await clientAuthCall("reset-request", { email }, { "x-local-socket-ip": "198.51.100.50" });
      }
    },
    attack: () => clientAuthCall("reset-request", { email: ALICE }, { "x-local-socket-ip": "198.51.100.50" }),
    status: 429,
    code: "RATE_LIMITED",
  },
  {
    name: "item 8: verify-email guesses from one IP",
    env: { EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR: "2" },
    setup: async () => {
      for (let i = 0; i < 2; i++) {
        await clientAuthCall(
          "verify-email",
          { token: `vfy_${String(i).repeat(40)}` },
          { "x-local-socket-ip": "198.51.100.60" },
        );
      }
    },
    attack: () =>
      clientAuthCall(
        "verify-email",
        { token: `vfy_${"9".repeat(40)}` },
        { "x-local-socket-ip": "198.51.100.60" },
      ),
    status: 429,
    code: "RATE_LIMITED",
  },
  {
    name: "item 8: registrations flood one address with verification e-mails",
    env: { EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR: "1" },
    setup: async () => {
      const first = await registerWeb(webBody("gina@example.com"), { "x-local-socket-ip": "198.51.100.70" });
      expect(first.res.status).toBe(201);
    },
    attack: () => registerWeb(webBody("gina@example.com"), { "x-local-socket-ip": "198.51.100.71" }),
    status: 429,
    code: "RATE_LIMITED",
  },
];
let pendingTask: string;
let carolTrapKey: string;
let daveSquatKey: string;
let loggedOut: string;
let frankJwt: string;

describe("identity attacks: refused, and nothing changes", () => {
  it.each(attacks)("$name", async (row) => {
    await withSettings(row.env ?? {}, async () => {
      await row.setup?.();
      const before = await snapshot();
      const out = await row.attack();
      if (row.code) {
        const error = expectEnvelope(out.body, out.res, row.status, row.code);
        if (row.reason) expect(error.reason).toBe(row.reason);
      } else {
        expect(out.res.status).toBe(row.status);
      }
      await row.check?.(out);
      expect(await snapshot()).toEqual(before);
    });
  });
});

describe("a key opens an account for a verified address (issue 25: no enumeration)", () => {
  it("gets the answer a new address gets, changes nothing, and Alice alone is told", async () => {
    const before = await snapshot();
    const out = await openAccount(malloryKey);
    expect(out.res.status).toBe(201);
    expect(out.body.account).toMatchObject({
      email: ALICE,
      status: "pending_deposit",
      email_verified: false,
    });
    expect(out.body.account.account_id).not.toBe(aliceAccountId);
    const after = await snapshot();
    // Only one e-mail more, to Alice: the notice (no code, nothing Mallory typed).
    const added = after.mail.filter((m) => !before.mail.some((b) => b.id === m.id));
    expect(added).toHaveLength(1);
    expect(added[0]!.to).toBe(ALICE);
    expect(added[0]!.text).not.toMatch(/(vfy|rst)_[A-Za-z0-9]{40}/);
    expect({ ...after, mail: before.mail }).toEqual(before);
  });
});

describe("the legitimate paths these refusals leave open", () => {
  it("the real Dave registers over a squatter's unverified account, verifies it and owns it; the squat is gone", async () => {
    const squatKey = await anonymousKey("dave@example.com", "squat");
    const squat = await openAccount(squatKey.api_key, { contact_name: "Not Dave" });
    expect(squat.res.status).toBe(201);
    const real = await registerWeb(
      webBody("dave@example.com", { password: "dave's own password", contact_name: "Dave" }),
    );
    expect(real.res.status).toBe(201);
    const db = await getDb();
    expect(
      await db.select().from(clientAccounts).where(eq(clientAccounts.id, squat.body.account.account_id)),
    ).toEqual([]);
    await verifyEmail("dave@example.com");
    const jwt = await signIn("dave@example.com", "dave's own password");
    const me = await readAccount({ authorization: `Bearer ${jwt}` });
    expect(me.body.account).toMatchObject({ name: "Dave", email_verified: true });
    // Dave may link the squatter's key only by holding it; he does not, so it stays unlinked.
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, squatKey.key_id));
    expect(row!.accountId).toBeNull();
  });

  it("the owner creates, links (full key or x-api-key plus JWT) and unlinks keys; an unlinked key loses access at once", async () => {
    const jwt = await signIn(ALICE, PASSWORD);
    const own = await anonymousKey(ALICE, "alice-laptop", ["audit_only", "task_create", "billing_read"]);
    expect((await readAccount({ "x-api-key": own.api_key })).res.status).toBe(404);
    const linked = await accountKeys(jwt, { action: "link", api_key: own.api_key });
    expect(linked.body).toMatchObject({
      action: "link",
      linked: true,
      key: { key_id: own.key_id, account_id: aliceAccountId },
    });
    expect((await readAccount({ "x-api-key": own.api_key })).body.account.account_id).toBe(aliceAccountId);
    expect((await billing(own.api_key, `action=balance&agent_id=${ALICE}`)).res.status).toBe(200);
    const list = await call(accountKeysGet, "/api/account-keys", {
      headers: { authorization: `Bearer ${jwt}` },
    });
    expect(list.body.keys.map((k: { key_id: string }) => k.key_id).sort()).toEqual(
      [aliceKeyId, own.key_id].sort(),
    );
    const unlinked = await accountKeys(jwt, { action: "unlink", key_id: own.key_id });
    expect(unlinked.body).toEqual({ action: "unlink", unlinked: true, key_id: own.key_id });
    expect((await readAccount({ "x-api-key": own.api_key })).res.status).toBe(404);
    // Linking with the key in x-api-key and the JWT together.
    const viaHeader = await accountKeys(jwt, { action: "link" }, { "x-api-key": own.api_key });
    expect(viaHeader.body.key.account_id).toBe(aliceAccountId);
    // An anonymous request with no JWT links nothing.
    const anon = await call(accountKeysGet, "/api/account-keys", { headers: { "x-api-key": own.api_key } });
    expectEnvelope(anon.body, anon.res, 401, "UNAUTHORIZED");
  });

  it("a sent e-mail keeps no one-time code in the emails table (only its hash is in auth_tokens)", async () => {
    await clientAuthCall("reset-request", { email: "frank@example.com" });
    const code = await emailedCode("frank@example.com", "account-password-reset");
    await sendQueuedEmails({ limit: 500 });
    const db = await getDb();
    const rows = await db.select({ text: emails.textBody, status: emails.status }).from(emails);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows.filter((r) => r.status === "sent")) {
      expect(row.text).not.toMatch(/(vfy|rst)_[A-Za-z0-9]{40}/);
    }
    expect(rows.some((r) => r.text.includes(code))).toBe(false);
    // The code still works: it was delivered, and the database kept its hash.
    const done = await clientAuthCall("reset-confirm", { token: code, password: "frank's new password" });
    expect(done.res.status).toBe(200);
  });

  it("/openapi.json documents /api/account-keys and the logout action", async () => {
    const { GET: openapi } = await import("../../api/openapi.js");
    const { body } = await call(openapi, "/openapi.json");
    expect(body.paths["/api/account-keys"].get.operationId).toBe("listAccountKeys");
    expect(body.paths["/api/account-keys"].post.operationId).toBe("manageAccountKeys");
    expect(JSON.stringify(body.paths["/api/client-auth"])).toContain("logout");
  });

  it("set-up sanity: Mallory's key is a plain key; Alice's key bills Alice", async () => {
    const db = await getDb();
    const rows = await db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(inArray(apiKeys.id, [malloryKeyId, aliceKeyId]));
    expect(Object.fromEntries(rows.map((r) => [r.id, r.accountId]))).toEqual({
      [malloryKeyId]: null,
      [aliceKeyId]: aliceAccountId,
    });
  });
});

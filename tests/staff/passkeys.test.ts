/**
 * Passkeys, the TOTP QR code and recovery codes (issue 44 item 3; docs/staff-and-audit.md
 * "Passkeys") through the real handlers, with a software authenticator that signs real ES256
 * assertions (tests/helpers/software-authenticator.ts): registration options → attestation →
 * passkey stored; sign-in options → assertion → session and its `staff.sign_in` audit row; every
 * replay (the same assertion twice, one challenge used by two assertions, an expired challenge, a
 * counter that does not move forward) → 401 in the error envelope; recovery codes accepted once,
 * replaced on regeneration.
 */
import { and, desc, eq } from "drizzle-orm";
import { generate } from "otplib";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as staffPost } from "../../api/staff.js";
import { POST as authPost, GET as sessionGet } from "../../api/staff-auth.js";
import { GET as credentialsGet, POST as credentialsPost } from "../../api/staff-credentials.js";
import { getDb } from "../../lib/db/client.js";
import {
  auditLog,
  staffPasskeys,
  staffRecoveryCodes,
  staffWebauthnChallenges,
} from "../../lib/db/schema/index.js";
import { sha256Hex } from "../../lib/ids.js";
import { useTestDatabase } from "../helpers/db.js";
import { BASE, call, expectEnvelope } from "../helpers/request.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { createStaff, invitationCodeFor, staffHeaders, type TestStaff } from "../helpers/staff.js";

useTestDatabase();

const auth = (action: string, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(authPost, `/api/staff-auth?action=${action}`, { method: "POST", json, headers });
const credentials = (action: string, json: Record<string, unknown>, headers: Record<string, string>) =>
  call(credentialsPost, `/api/staff-credentials?action=${action}`, { method: "POST", json, headers });

/** The newest `staff.sign_in` audit row of `staffId`. */
async function lastSignIn(staffId: string) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, "staff.sign_in"), eq(auditLog.targetId, staffId)))
    .orderBy(desc(auditLog.id))
    .limit(1);
  return row;
}

/** Registers a passkey of a new software authenticator for `staff`. */
async function addPasskey(staff: TestStaff): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator(BASE);
  const options = await credentials("passkey-options", {}, staffHeaders(staff));
  expect(options.res.status, JSON.stringify(options.body)).toBe(200);
  const registered = await credentials(
    "passkey-register",
    { credential: authenticator.register(options.body.passkey_options), name: "Test phone" },
    staffHeaders(staff),
  );
  expect(registered.res.status, JSON.stringify(registered.body)).toBe(200);
  return authenticator;
}

/** Sign-in options from the unauthenticated endpoint. */
async function signInOptions(): Promise<{ challenge: string; rpId?: string }> {
  const options = await auth("passkey-options", {});
  expect(options.res.status, JSON.stringify(options.body)).toBe(200);
  return options.body.passkey_options;
}

let field: TestStaff;
let owner: TestStaff;

beforeAll(async () => {
  owner = await createStaff("owner", "Olivia");
  field = await createStaff("field", "Félix");
});

describe("passkey registration", () => {
  it("a signed-in member adds a passkey; its options name the relying party and exclude it afterwards", async () => {
    const before = await call(credentialsGet, "/api/staff-credentials", { headers: staffHeaders(field) });
    expect(before.res.status).toBe(200);
    expect(before.body).toMatchObject({ passkeys: [], recovery_codes_left: 10 });

    const authenticator = new SoftwareAuthenticator(BASE);
    const options = await credentials("passkey-options", {}, staffHeaders(field));
    expect(options.res.status).toBe(200);
    const o = options.body.passkey_options;
    expect(o.rp).toMatchObject({ id: "localhost" });
    expect(o.authenticatorSelection).toMatchObject({ residentKey: "required" });
    const registered = await credentials(
      "passkey-register",
      { credential: authenticator.register(o), name: "Pixel" },
      staffHeaders(field),
    );
    expect(registered.res.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.passkey).toMatchObject({ passkey_id: authenticator.id, name: "Pixel" });
    expect(JSON.stringify(registered.body)).not.toMatch(/public_?key/i);

    // The same attestation again: its challenge is spent.
    const again = await credentials(
      "passkey-register",
      { credential: authenticator.register(o), name: "Pixel" },
      staffHeaders(field),
    );
    expect(expectEnvelope(again.body, again.res, 401, "UNAUTHORIZED").reason).toBe("challenge_invalid");

    const next = await credentials("passkey-options", {}, staffHeaders(field));
    expect(next.body.passkey_options.excludeCredentials).toEqual([
      expect.objectContaining({ id: authenticator.id }),
    ]);
    const db = await getDb();
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "staff.passkey_add"), eq(auditLog.targetId, field.staffId)));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorKind: "staff", actorId: field.staffId });
  });

  it("another member's challenge, or no session → 401", async () => {
    const authenticator = new SoftwareAuthenticator(BASE);
    const ownerOptions = await credentials("passkey-options", {}, staffHeaders(owner));
    const stolen = await credentials(
      "passkey-register",
      { credential: authenticator.register(ownerOptions.body.passkey_options) },
      staffHeaders(field),
    );
    expect(expectEnvelope(stolen.body, stolen.res, 401, "UNAUTHORIZED").reason).toBe("challenge_invalid");
    const anonymous = await credentials("passkey-options", {}, {});
    expectEnvelope(anonymous.body, anonymous.res, 401, "UNAUTHORIZED");
    const missing = await credentials("passkey-register", {}, staffHeaders(field));
    expectEnvelope(missing.body, missing.res, 422, "VALIDATION_ERROR");
  });
});

describe("passkey sign-in", () => {
  it("signs in with no e-mail and records the method in the audit trail", async () => {
    const member = await createStaff("dispatcher", "Dara");
    const authenticator = await addPasskey(member);
    const options = await signInOptions();
    expect(options.rpId).toBe("localhost");
    const signed = await auth("passkey-sign-in", { credential: authenticator.assert(options) });
    expect(signed.res.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body.token).toMatch(/^sts_/);
    expect(signed.body.staff).toMatchObject({ staff_id: member.staffId, role: "dispatcher" });
    expect(signed.res.headers.get("set-cookie")).toMatch(/^staff_session=sts_/);
    const session = await call(sessionGet, "/api/staff-auth", {
      headers: { authorization: `Bearer ${signed.body.token}` },
    });
    expect(session.body.staff.staff_id).toBe(member.staffId);

    const row = await lastSignIn(member.staffId);
    expect(row).toMatchObject({ actorKind: "staff", actorId: member.staffId, actorRole: "dispatcher" });
    expect(row!.details).toMatchObject({ method: "passkey", passkey_id: authenticator.id });
    const db = await getDb();
    const [stored] = await db.select().from(staffPasskeys).where(eq(staffPasskeys.id, authenticator.id));
    expect(stored!.counter).toBe(1);
    expect(stored!.lastUsedAt).not.toBeNull();
  });

  it("a replayed assertion → 401 challenge_invalid; nothing opened", async () => {
    const member = await createStaff("field", "Rita");
    const authenticator = await addPasskey(member);
    const assertion = authenticator.assert(await signInOptions());
    const first = await auth("passkey-sign-in", { credential: assertion });
    expect(first.res.status).toBe(200);
    const replay = await auth("passkey-sign-in", { credential: assertion });
    const error = expectEnvelope(replay.body, replay.res, 401, "UNAUTHORIZED");
    expect(error.reason).toBe("challenge_invalid");
    expect(replay.res.headers.get("set-cookie")).toBeNull();
  });

  it("one challenge signed twice (a fresh signature): the second → 401 challenge_invalid", async () => {
    const member = await createStaff("field", "Twice");
    const authenticator = await addPasskey(member);
    const options = await signInOptions();
    const a = await auth("passkey-sign-in", { credential: authenticator.assert(options) });
    expect(a.res.status).toBe(200);
    const b = await auth("passkey-sign-in", { credential: authenticator.assert(options) });
    expect(expectEnvelope(b.body, b.res, 401, "UNAUTHORIZED").reason).toBe("challenge_invalid");
  });

  it("an expired challenge → 401 challenge_invalid", async () => {
    const member = await createStaff("field", "Late");
    const authenticator = await addPasskey(member);
    const options = await signInOptions();
    const db = await getDb();
    await db
      .update(staffWebauthnChallenges)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffWebauthnChallenges.challengeHash, sha256Hex(options.challenge)));
    const late = await auth("passkey-sign-in", { credential: authenticator.assert(options) });
    expect(expectEnvelope(late.body, late.res, 401, "UNAUTHORIZED").reason).toBe("challenge_invalid");
  });

  it("a counter that goes backwards (a cloned authenticator) → 401 passkey_invalid", async () => {
    const member = await createStaff("field", "Clone");
    const authenticator = await addPasskey(member);
    authenticator.counter = 5;
    const ok = await auth("passkey-sign-in", { credential: authenticator.assert(await signInOptions()) });
    expect(ok.res.status).toBe(200);
    authenticator.counter = 3; // the clone is behind
    const clone = await auth("passkey-sign-in", { credential: authenticator.assert(await signInOptions()) });
    expect(expectEnvelope(clone.body, clone.res, 401, "UNAUTHORIZED").reason).toBe("passkey_invalid");
    const same = await auth("passkey-sign-in", {
      credential: authenticator.assert(await signInOptions(), true),
    });
    expectEnvelope(same.body, same.res, 401, "UNAUTHORIZED");
  });

  it("a forged signature, an unknown passkey or a foreign origin → 401 passkey_invalid", async () => {
    const member = await createStaff("field", "Forge");
    const authenticator = await addPasskey(member);
    const forged = authenticator.assert(await signInOptions()) as { response: { signature: string } };
    forged.response.signature = Buffer.from("not a signature").toString("base64url");
    const bad = await auth("passkey-sign-in", { credential: forged });
    expect(expectEnvelope(bad.body, bad.res, 401, "UNAUTHORIZED").reason).toBe("passkey_invalid");

    const stranger = new SoftwareAuthenticator(BASE);
    const options = await signInOptions();
    stranger.register({ challenge: "x", rp: { id: "localhost" }, user: { id: "eA" } });
    const unknown = await auth("passkey-sign-in", { credential: stranger.assert(options) });
    expect(expectEnvelope(unknown.body, unknown.res, 401, "UNAUTHORIZED").reason).toBe("passkey_invalid");

    const phishing = new SoftwareAuthenticator("https://evil.example");
    Object.assign(phishing, { credentialId: authenticator.credentialId });
    const elsewhere = await auth("passkey-sign-in", { credential: phishing.assert(await signInOptions()) });
    expectEnvelope(elsewhere.body, elsewhere.res, 401, "UNAUTHORIZED");

    const missing = await auth("passkey-sign-in", {});
    expectEnvelope(missing.body, missing.res, 422, "VALIDATION_ERROR");
  });

  it("a suspended member's passkey → 403 staff_suspended", async () => {
    const member = await createStaff("field", "Sus");
    const authenticator = await addPasskey(member);
    const suspended = await call(staffPost, "/api/staff", {
      method: "POST",
      json: { action: "suspend", staff_id: member.staffId },
      headers: staffHeaders(owner),
    });
    expect(suspended.res.status).toBe(200);
    const refused = await auth("passkey-sign-in", {
      credential: authenticator.assert(await signInOptions()),
    });
    expect(expectEnvelope(refused.body, refused.res, 403, "FORBIDDEN").reason).toBe("staff_suspended");
  });
});

describe("TOTP enrolment and recovery codes", () => {
  it("enrolment answers a QR code of the otpauth URI and ten recovery codes, shown once", async () => {
    const email = "qr.person@staff.example.com";
    await call(staffPost, "/api/staff", {
      method: "POST",
      json: { action: "invite", email, role: "field", display_name: "Quentin" },
      headers: staffHeaders(owner),
    });
    const code = await invitationCodeFor(email);
    const accepted = await auth("accept-invite", { code, password: "a long enough password" });
    expect(accepted.res.status).toBe(200);
    expect(accepted.body.otpauth_qr).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(accepted.body.otpauth_qr.split(",")[1], "base64").toString();
    expect(svg).toMatch(/^<svg[^>]*viewBox/);
    const confirmed = await auth("confirm-totp", {
      code,
      totp_code: await generate({ secret: accepted.body.totp_secret }),
    });
    expect(confirmed.res.status).toBe(200);
    const codes = confirmed.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
    const db = await getDb();
    const stored = await db
      .select()
      .from(staffRecoveryCodes)
      .where(eq(staffRecoveryCodes.staffId, confirmed.body.staff.staff_id));
    expect(stored).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(codes[0]!.replaceAll("-", ""));
  });

  it("a recovery code signs in once in place of the TOTP code; regeneration replaces them all", async () => {
    const member = await createStaff("reviewer", "Rocío");
    const issued = await credentials("recovery-codes", {}, staffHeaders(member));
    expect(issued.res.status).toBe(200);
    const codes = issued.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(issued.body.recovery_codes_left).toBe(10);

    const first = await auth("sign-in", {
      email: member.email,
      password: member.password,
      recovery_code: codes[0]!.toUpperCase().replaceAll("-", " "),
    });
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    expect((await lastSignIn(member.staffId))!.details).toMatchObject({ method: "password_recovery_code" });

    const again = await auth("sign-in", {
      email: member.email,
      password: member.password,
      recovery_code: codes[0],
    });
    expectEnvelope(again.body, again.res, 401, "UNAUTHORIZED");
    const wrongPassword = await auth("sign-in", {
      email: member.email,
      password: "nope nope",
      recovery_code: codes[1],
    });
    expectEnvelope(wrongPassword.body, wrongPassword.res, 401, "UNAUTHORIZED");
    const left = await call(credentialsGet, "/api/staff-credentials", { headers: staffHeaders(member) });
    expect(left.body.recovery_codes_left).toBe(9);

    const renewed = await credentials("recovery-codes", {}, staffHeaders(member));
    const old = await auth("sign-in", {
      email: member.email,
      password: member.password,
      recovery_code: codes[1],
    });
    expectEnvelope(old.body, old.res, 401, "UNAUTHORIZED");
    const fresh = await auth("sign-in", {
      email: member.email,
      password: member.password,
      recovery_code: renewed.body.recovery_codes[0],
    });
    expect(fresh.res.status).toBe(200);
    // Another member's code is not this member's.
    const other = await auth("sign-in", {
      email: owner.email,
      password: owner.password,
      recovery_code: renewed.body.recovery_codes[1],
    });
    expectEnvelope(other.body, other.res, 401, "UNAUTHORIZED");
  });

  it("the password + TOTP sign-in records its method", async () => {
    const member = await createStaff("finance", "Fin");
    const signed = await auth("sign-in", {
      email: member.email,
      password: member.password,
      totp_code: await generate({ secret: member.totpSecret, epoch: Math.floor(Date.now() / 1000) + 30 }),
    });
    expect(signed.res.status, JSON.stringify(signed.body)).toBe(200);
    expect((await lastSignIn(member.staffId))!.details).toMatchObject({ method: "password_totp" });
  });
});

/**
 * Staff accounts (issue 26 item 1; docs/staff-and-audit.md "Staff accounts") through the real
 * handlers: invitation → accept → TOTP confirmation → session; sign-in with password + TOTP (a code
 * never accepted twice); sessions by bearer or cookie (CSRF token on unsafe methods); suspension
 * ends sessions at once; expired invitations; the last owner; admin keys keep working; every change
 * leaves its audit row with the staff actor.
 */
import { and, eq } from "drizzle-orm";
import { generate } from "otplib";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as auditGet } from "../../api/audit-log.js";
import { GET as staffGet, POST as staffPost } from "../../api/staff.js";
import { POST as authPost, GET as sessionGet } from "../../api/staff-auth.js";
import { POST as submitPost } from "../../api/submit-task.js";
import { GET as listGet } from "../../api/task-list.js";
import { getDb } from "../../lib/db/client.js";
import { auditLog, staffInvitations, staffMembers } from "../../lib/db/schema/index.js";
import { csrfTokenFor } from "../../lib/staff/credentials.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { createStaff, invitationCodeFor, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let owner: TestStaff;
let admin: string;

const auth = (action: string, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(authPost, `/api/staff-auth?action=${action}`, { method: "POST", json, headers });
const manage = (json: Record<string, unknown>, headers: Record<string, string>) =>
  call(staffPost, "/api/staff", { method: "POST", json, headers });

/** A TOTP code of `secret` for a time step after the last one used (codes are single-use). */
async function nextCode(secret: string, stepsAhead = 1): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });
}

beforeAll(async () => {
  owner = await createStaff("owner", "Olivia");
  admin = await makeKey(["admin"]);
});

describe("invitation and enrolment", () => {
  it("an owner invites; the invitee chooses a password, enrols TOTP and is signed in", async () => {
    const email = "new.reviewer@staff.example.com";
    const invited = await manage(
      { action: "invite", email, role: "reviewer", display_name: "Rémi" },
      staffHeaders(owner),
    );
    expect(invited.res.status, JSON.stringify(invited.body)).toBe(200);
    expect(invited.body.staff).toMatchObject({
      email,
      role: "reviewer",
      status: "invited",
      totp_enrolled: false,
    });
    expect(JSON.stringify(invited.body)).not.toMatch(/inv_/); // the code goes by e-mail only
    const code = await invitationCodeFor(email);

    const weak = await auth("accept-invite", { code, password: "short" });
    expectEnvelope(weak.body, weak.res, 422, "VALIDATION_ERROR");
    const accepted = await auth("accept-invite", {
      code,
      password: "a long enough password",
      display_name: "Rémi B.",
    });
    expect(accepted.res.status).toBe(200);
    expect(accepted.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    const secret = accepted.body.totp_secret as string;

    const wrong = await auth("confirm-totp", { code, totp_code: "000000" });
    expectEnvelope(wrong.body, wrong.res, 401, "UNAUTHORIZED");
    const confirmed = await auth("confirm-totp", { code, totp_code: await generate({ secret }) });
    expect(confirmed.res.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.token).toMatch(/^sts_/);
    expect(confirmed.body.staff).toMatchObject({ email, role: "reviewer", display_name: "Rémi B." });
    const cookie = confirmed.res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^staff_session=sts_/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Max-Age=43200");

    // The code is spent.
    const again = await auth("accept-invite", { code, password: "another long password" });
    expectEnvelope(again.body, again.res, 401, "UNAUTHORIZED");
    // An invitation for an e-mail that has an account → 409.
    const dup = await manage(
      { action: "invite", email, role: "field", display_name: "X" },
      staffHeaders(owner),
    );
    expectEnvelope(dup.body, dup.res, 409, "CONFLICT");
  });

  it("concurrent invitations of one new e-mail: one is made, the others are 409, none fails", async () => {
    const email = "race@staff.example.com";
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        manage({ action: "invite", email, role: "field", display_name: "Race" }, staffHeaders(owner)),
      ),
    );
    const statuses = answers.map((a) => a.res.status).sort();
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    for (const a of answers.filter((x) => x.res.status === 409))
      expectEnvelope(a.body, a.res, 409, "CONFLICT");
    expect(statuses.filter((s) => s !== 409)).toHaveLength(1);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });

  it("an expired invitation → 401", async () => {
    const email = "late@staff.example.com";
    await manage({ action: "invite", email, role: "field", display_name: "Late" }, staffHeaders(owner));
    const code = await invitationCodeFor(email);
    const db = await getDb();
    const [staff] = await db.select().from(staffMembers).where(eq(staffMembers.email, email));
    await db
      .update(staffInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffInvitations.staffId, staff!.id));
    const res = await auth("accept-invite", { code, password: "a long enough password" });
    const error = expectEnvelope(res.body, res.res, 401, "UNAUTHORIZED");
    expect(error.field).toBe("code");
    // A new code (reinvite) works.
    const reinvited = await manage({ action: "reinvite", staff_id: staff!.id }, staffHeaders(owner));
    expect(reinvited.res.status).toBe(200);
    const fresh = await invitationCodeFor(email);
    expect(fresh).not.toBe(code);
    expect(
      (await auth("accept-invite", { code: fresh, password: "a long enough password" })).res.status,
    ).toBe(200);
  });

  it("a missing member → 422 naming it", async () => {
    const res = await auth("sign-in", { email: owner.email, password: owner.password });
    expect(expectEnvelope(res.body, res.res, 422, "VALIDATION_ERROR").field).toBe("totp_code");
  });
});

describe("sign-in", () => {
  it("needs the password and a fresh TOTP code; a code is accepted once", async () => {
    const code = await nextCode(owner.totpSecret);
    const bad = await auth("sign-in", { email: owner.email, password: "wrong password!", totp_code: code });
    expectEnvelope(bad.body, bad.res, 401, "UNAUTHORIZED");
    const ok = await auth("sign-in", { email: owner.email, password: owner.password, totp_code: code });
    expect(ok.res.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.csrf_token).toBe(csrfTokenFor(ok.body.token));
    const replay = await auth("sign-in", { email: owner.email, password: owner.password, totp_code: code });
    expectEnvelope(replay.body, replay.res, 401, "UNAUTHORIZED");
    const unknown = await auth("sign-in", {
      email: "nobody@staff.example.com",
      password: "whatever123",
      totp_code: code,
    });
    expect(unknown.body.error.message).toBe(bad.body.error.message); // one answer for every wrong part
  });

  it("GET /api/staff-auth reads the session (bearer or cookie); sign-out ends it", async () => {
    const member = await createStaff("dispatcher", "Dana");
    const byBearer = await call(sessionGet, "/api/staff-auth", { headers: staffHeaders(member) });
    expect(byBearer.body).toMatchObject({
      staff: { role: "dispatcher", display_name: "Dana" },
      csrf_token: member.csrfToken,
    });
    const byCookie = await call(sessionGet, "/api/staff-auth", {
      headers: { cookie: `a=b; staff_session=${member.token}` },
    });
    expect(byCookie.res.status).toBe(200);
    const out = await auth("sign-out", {}, staffHeaders(member));
    expect(out.res.headers.get("set-cookie")).toContain("Max-Age=0");
    const after = await call(sessionGet, "/api/staff-auth", { headers: staffHeaders(member) });
    expectEnvelope(after.body, after.res, 401, "UNAUTHORIZED");
    const list = await call(listGet, "/api/task-list", { headers: staffHeaders(member) });
    expectEnvelope(list.body, list.res, 401, "UNAUTHORIZED");
  });
});

describe("sessions on admin operations", () => {
  it("a cookie-borne session needs its CSRF token on POST, not on GET", async () => {
    const reviewer = await createStaff("reviewer");
    const { body: created } = await submitTask(validTask);
    const cookie = { cookie: `staff_session=${reviewer.token}` };
    const list = await call(listGet, "/api/task-list", { headers: cookie });
    expect(list.res.status).toBe(200);
    const { POST: reviewPost } = await import("../../api/task-review.js");
    const json = { task_id: created.task_id, action: "approve" };
    const noCsrf = await call(reviewPost, "/api/task-review", { method: "POST", headers: cookie, json });
    const error = expectEnvelope(noCsrf.body, noCsrf.res, 403, "FORBIDDEN");
    expect(error.reason).toBe("csrf");
    const wrong = await call(reviewPost, "/api/task-review", {
      method: "POST",
      headers: { ...cookie, "x-csrf-token": csrfTokenFor("sts_other") },
      json,
    });
    expectEnvelope(wrong.body, wrong.res, 403, "FORBIDDEN");
    const ok = await call(reviewPost, "/api/task-review", {
      method: "POST",
      headers: { ...cookie, "x-csrf-token": reviewer.csrfToken },
      json,
    });
    expect(ok.res.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.status).toBe("accepted_pending_payment");
    // The audit trail names the person and the role.
    const db = await getDb();
    const rows = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, created.task_id), eq(auditLog.action, "task.approve")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actorKind: "staff", actorId: reviewer.staffId, actorRole: "reviewer" });
  });

  it("a role lacking the permission → 403 naming it; an admin key keeps working as owner", async () => {
    const field = await createStaff("field");
    const denied = await call(listGet, "/api/task-list", { headers: staffHeaders(field) });
    expect(expectEnvelope(denied.body, denied.res, 403, "FORBIDDEN").permission).toBe("tasks.read");
    const byKey = await call(listGet, "/api/task-list", { headers: { "x-api-key": admin } });
    expect(byKey.res.status).toBe(200);
    const staffList = await call(staffGet, "/api/staff", { headers: { "x-api-key": admin } });
    expect(staffList.res.status).toBe(200);
  });

  it("a staff bearer on a requester operation is refused, not treated as anonymous", async () => {
    const res = await call(submitPost, "/api/submit-task", {
      method: "POST",
      headers: staffHeaders(owner),
      json: validTask,
    });
    expect(expectEnvelope(res.body, res.res, 403, "FORBIDDEN").reason).toBe("staff_session_not_accepted");
    // A cookie rides along on every same-origin request and is ignored there.
    const cookie = await call(submitPost, "/api/submit-task", {
      method: "POST",
      headers: { cookie: `staff_session=${owner.token}` },
      json: validTask,
    });
    expect(cookie.res.status).toBe(201);
  });
});

describe("suspension and roles", () => {
  it("suspension ends the member's sessions at once; sign-in is refused; reactivation lets them sign in again", async () => {
    const finance = await createStaff("finance", "Fay");
    expect((await call(listGet, "/api/task-list", { headers: staffHeaders(finance) })).res.status).toBe(200);
    const suspended = await manage({ action: "suspend", staff_id: finance.staffId }, staffHeaders(owner));
    expect(suspended.body.staff.status).toBe("suspended");
    const after = await call(listGet, "/api/task-list", { headers: staffHeaders(finance) });
    expectEnvelope(after.body, after.res, 401, "UNAUTHORIZED");
    const signIn = await auth("sign-in", {
      email: finance.email,
      password: finance.password,
      totp_code: await nextCode(finance.totpSecret),
    });
    expect(expectEnvelope(signIn.body, signIn.res, 403, "FORBIDDEN").reason).toBe("staff_suspended");
    await manage({ action: "activate", staff_id: finance.staffId }, staffHeaders(owner));
    const back = await auth("sign-in", {
      email: finance.email,
      password: finance.password,
      totp_code: await nextCode(finance.totpSecret), // the refused attempt spent nothing
    });
    expect(back.res.status, JSON.stringify(back.body)).toBe(200);
  });

  it("a role change applies to live sessions; the last active owner can be neither demoted nor suspended", async () => {
    const member = await createStaff("reviewer");
    await manage({ action: "set_role", staff_id: member.staffId, role: "field" }, staffHeaders(owner));
    const denied = await call(listGet, "/api/task-list", { headers: staffHeaders(member) });
    expectEnvelope(denied.body, denied.res, 403, "FORBIDDEN");
    // Other owners made in this file: demote them so `owner` is the last.
    const { body } = await call(staffGet, "/api/staff", { headers: staffHeaders(owner) });
    for (const s of body.staff) {
      if (s.role === "owner" && s.staff_id !== owner.staffId && s.status === "active") {
        await manage({ action: "suspend", staff_id: s.staff_id }, staffHeaders(owner));
      }
    }
    const demote = await manage(
      { action: "set_role", staff_id: owner.staffId, role: "reviewer" },
      staffHeaders(owner),
    );
    expectEnvelope(demote.body, demote.res, 409, "CONFLICT");
    const suspend = await manage({ action: "suspend", staff_id: owner.staffId }, { "x-api-key": admin });
    expectEnvelope(suspend.body, suspend.res, 409, "CONFLICT");
    const unknown = await manage({ action: "suspend", staff_id: "stf_unknown" }, staffHeaders(owner));
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
    const badRole = await manage(
      { action: "set_role", staff_id: member.staffId, role: "admin" },
      staffHeaders(owner),
    );
    expect(expectEnvelope(badRole.body, badRole.res, 422, "VALIDATION_ERROR").field).toBe("role");
  });

  it("staff changes are in the audit trail with their actor", async () => {
    const { body } = await call(auditGet, "/api/audit-log?actor_kind=staff&limit=200", {
      headers: staffHeaders(owner),
    });
    const actions = new Set(body.entries.map((e: { action: string }) => e.action));
    for (const a of ["staff.invite", "staff.set_role", "staff.suspend", "staff.activate"])
      expect(actions).toContain(a);
    const enrol = await (await getDb()).select().from(auditLog).where(eq(auditLog.action, "staff.enroll"));
    expect(enrol.length).toBeGreaterThan(0);
    void reviewTask;
  });
});

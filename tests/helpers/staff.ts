/**
 * Staff members for tests, made through the real enrolment (invite → accept → confirm with a TOTP
 * code from otplib, as an authenticator app would give it): a session token per role.
 */
import { and, desc, eq } from "drizzle-orm";
import { generate } from "otplib";
import { getDb } from "../../lib/db/client.js";
import type { Role } from "../../lib/db/schema/enums.js";
import { emails } from "../../lib/db/schema/index.js";
import { acceptInvitation, confirmEnrollment, inviteStaff, signIn } from "../../lib/staff/accounts.js";

/** A signed-in staff member. */
export interface TestStaff {
  staffId: string;
  email: string;
  password: string;
  totpSecret: string;
  role: Role;
  displayName: string;
  token: string;
  csrfToken: string;
}

let counter = 0;

/** TOTP steps (30 s) this process already used per secret: the server accepts a step once. */
const usedSteps = new Map<string, number>();

/**
 * A TOTP code of `secret` the server has not seen yet: the current step's, or the next step's
 * (within the server's one-step tolerance) when the current one was used; waits for the clock
 * past that.
 */
export async function freshTotp(secret: string): Promise<string> {
  for (;;) {
    const now = Math.floor(Date.now() / 1000 / 30);
    const step = Math.max(now, (usedSteps.get(secret) ?? -1) + 1);
    if (step <= now + 1) {
      usedSteps.set(secret, step);
      return generate({ secret, epoch: step * 30 });
    }
    await new Promise((resolve) => setTimeout(resolve, (now + 1) * 30_000 - Date.now() + 50));
  }
}

/** The invitation code e-mailed to `email` (the newest). */
export async function invitationCodeFor(email: string): Promise<string> {
  const db = await getDb();
  const [row] = await db
    .select({ text: emails.textBody })
    .from(emails)
    .where(and(eq(emails.toAddress, email), eq(emails.template, "staff_invitation")))
    .orderBy(desc(emails.createdAt))
    .limit(1);
  const code = /inv_[A-Za-z0-9]{40}/.exec(row?.text ?? "")?.[0];
  if (!code) throw new Error(`no invitation e-mail for ${email}`);
  return code;
}

/** Invites, enrols and signs in a staff member with `role`. */
export async function createStaff(role: Role, name = `${role} ${++counter}`): Promise<TestStaff> {
  const email = `${role}.${Date.now().toString(36)}.${++counter}@staff.example.com`;
  const password = "correct horse battery";
  await inviteStaff({ email, role, displayName: name });
  const code = await invitationCodeFor(email);
  const { totpSecret } = await acceptInvitation({ code, password, displayName: name });
  const { staff, session } = await confirmEnrollment({
    code,
    totpCode: await freshTotp(totpSecret),
  });
  return {
    staffId: staff.id,
    email,
    password,
    totpSecret,
    role,
    displayName: name,
    token: session.token,
    csrfToken: session.csrfToken,
  };
}

/** Headers that authenticate as `staff` (bearer). */
export function staffHeaders(staff: Pick<TestStaff, "token">): Record<string, string> {
  return { authorization: `Bearer ${staff.token}` };
}

/**
 * A TOTP code of `staff` one step (30 s) ahead: a code is accepted once per step, and the step of
 * now may have been spent already (the enrolment, an earlier sign-in); one step of drift is accepted.
 */
export function nextTotpCode(staff: Pick<TestStaff, "totpSecret">): Promise<string> {
  return generate({ secret: staff.totpSecret, epoch: Math.floor(Date.now() / 1000) + 30 });
}

/** Signs `staff` in again (e.g. after a role change or a suspension ended its sessions): a new session. */
export async function signInStaff(staff: TestStaff): Promise<TestStaff> {
  const { session } = await signIn({
    email: staff.email,
    password: staff.password,
    totpCode: await nextTotpCode(staff),
    ip: "127.0.0.1",
  });
  return { ...staff, token: session.token, csrfToken: session.csrfToken };
}

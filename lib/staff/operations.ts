/**
 * Operation descriptors of the staff endpoints (issue 26; docs/staff-and-audit.md "Staff
 * accounts"): sign-in and enrolment (POST /api/staff-auth, its session GET) and the owner's staff
 * management (GET and POST /api/staff, permission `staff.manage`).
 */
import { defineOperation } from "../descriptors/operation.js";
import {
  staffAuthBodySchema,
  staffAuthQuerySchema,
  staffAuthResponseSchema,
  staffChangeBodySchema,
  staffChangeResponseSchema,
  staffCredentialsBodySchema,
  staffCredentialsQuerySchema,
  staffCredentialsResponseSchema,
  staffListResponseSchema,
} from "./schemas.js";

export const staffAuthOperation = defineOperation({
  id: "staffAuth",
  method: "POST",
  path: "/api/staff-auth",
  summary:
    "Staff sign-in (passkey, or password + TOTP or a recovery code), sign-out and invitation enrolment",
  description:
    "`action=passkey-options` {} → `passkey_options` (WebAuthn request options; the challenge is valid 5 minutes, " +
    "once); `action=passkey-sign-in` {credential} (the assertion) → the session. A replayed assertion, a challenge " +
    "used twice, expired or unknown → 401 `reason: challenge_invalid`; a signature, origin or counter that does not " +
    "verify, an unknown passkey → 401 `reason: passkey_invalid`. " +
    "`action=sign-in` (default) {email, password, totp_code | recovery_code} (the fallback; a recovery code is " +
    "accepted once) → a 12 h session: `token` (sts_…, send as " +
    "`Authorization: Bearer`) and the `staff_session` cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) " +
    "with its `csrf_token` for X-CSRF-Token. Only failed sign-ins are counted: per IP " +
    "(STAFF_SIGN_IN_FAILURES_PER_IP_PER_HOUR, default 100, so a team behind one address signs in freely) and per " +
    "account (STAFF_SIGN_IN_FAILURES_PER_ACCOUNT, default 5, within STAFF_LOCKOUT_SECONDS, default 900, then the " +
    "account is locked): 429 RATE_LIMITED with `reason` `account_locked` or `too_many_failures_from_ip`, " +
    "`retry_after_seconds` and Retry-After. " +
    "`accept-invite` {code, password, display_name} → `totp_secret`, `otpauth_uri` and its QR code `otpauth_qr`; " +
    "`confirm-totp` {code, totp_code} activates the account, signs in and answers ten `recovery_codes` (once). `sign-out` revokes the presented session. " +
    "Wrong credentials, codes or an expired invitation → 401; a suspended account → 403.",
  tags: ["Staff"],
  auth: "none",
  query: staffAuthQuerySchema,
  body: staffAuthBodySchema,
  response: staffAuthResponseSchema,
  errors: ["VALIDATION_ERROR", "UNAUTHORIZED", "FORBIDDEN", "CONFLICT", "RATE_LIMITED"],
});

export const staffSessionOperation = defineOperation({
  id: "getStaffSession",
  method: "GET",
  path: "/api/staff-auth",
  summary: "The signed-in staff member and the session's CSRF token",
  description:
    "With the staff session (cookie or bearer): who is signed in, the role, the session's expiry and its " +
    "csrf_token. No session, an ended one or a suspended account → 401.",
  tags: ["Staff"],
  auth: "none",
  response: staffAuthResponseSchema,
  cacheControl: "no-store",
  errors: ["UNAUTHORIZED"],
});

export const listStaffOperation = defineOperation({
  id: "listStaff",
  method: "GET",
  path: "/api/staff",
  summary: "Staff accounts (owner)",
  tags: ["Staff"],
  auth: "admin",
  permission: "staff.manage",
  response: staffListResponseSchema,
  cacheControl: "no-store",
});

export const changeStaffOperation = defineOperation({
  id: "changeStaff",
  method: "POST",
  path: "/api/staff",
  summary: "Invite a staff member, change a role, suspend, reactivate or reinvite (owner)",
  description:
    "`invite` {email, role, display_name} e-mails a one-time code (48 h); `set_role`; `suspend` ends the " +
    "member's sessions at once; `activate`; `reinvite` (a new code for an account not yet enrolled). The last " +
    "active owner cannot be suspended or demoted (409). An e-mail that has an account → 409.",
  tags: ["Staff"],
  auth: "admin",
  permission: "staff.manage",
  body: staffChangeBodySchema,
  response: staffChangeResponseSchema,
  idempotent: true,
  errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
});

export const staffCredentialsOperation = defineOperation({
  id: "getStaffCredentials",
  method: "GET",
  path: "/api/staff-credentials",
  summary: "The signed-in staff member's passkeys and recovery codes left",
  description: "With the staff session (cookie or bearer), any role. No session → 401.",
  tags: ["Staff"],
  auth: "none",
  staffAccess: true,
  response: staffCredentialsResponseSchema,
  cacheControl: "no-store",
  errors: ["UNAUTHORIZED"],
});

export const changeStaffCredentialsOperation = defineOperation({
  id: "changeStaffCredentials",
  method: "POST",
  path: "/api/staff-credentials",
  summary: "Add a passkey, or replace the recovery codes, of the signed-in staff member",
  description:
    "With the staff session (cookie + X-CSRF-Token, or bearer), any role. `passkey-options` {} → `passkey_options` " +
    "(WebAuthn creation options: a discoverable credential, the member's passkeys excluded; the challenge is valid " +
    "5 minutes, once); `passkey-register` {credential, name} → `passkey`. A challenge used twice, expired or " +
    "unknown → 401 `reason: challenge_invalid`; an attestation that does not verify → 401 `reason: " +
    "passkey_invalid`; a passkey already registered → 409. `recovery-codes` {} → ten new `recovery_codes`, shown " +
    "once; the earlier codes stop working.",
  tags: ["Staff"],
  auth: "none",
  staffAccess: true,
  query: staffCredentialsQuerySchema,
  body: staffCredentialsBodySchema,
  response: staffCredentialsResponseSchema,
  cacheControl: "no-store",
  errors: ["VALIDATION_ERROR", "UNAUTHORIZED", "CONFLICT"],
});

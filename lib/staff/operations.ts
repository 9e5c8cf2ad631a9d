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
  staffListResponseSchema,
} from "./schemas.js";

export const staffAuthOperation = defineOperation({
  id: "staffAuth",
  method: "POST",
  path: "/api/staff-auth",
  summary: "Staff sign-in (password + TOTP), sign-out and invitation enrolment",
  description:
    "`action=sign-in` (default) {email, password, totp_code} → a 12 h session: `token` (sts_…, send as " +
    "`Authorization: Bearer`) and the `staff_session` cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) " +
    "with its `csrf_token` for X-CSRF-Token. Only failed sign-ins are counted: per IP " +
    "(STAFF_SIGN_IN_FAILURES_PER_IP_PER_HOUR, default 100, so a team behind one address signs in freely) and per " +
    "account (STAFF_SIGN_IN_FAILURES_PER_ACCOUNT, default 5, within STAFF_LOCKOUT_SECONDS, default 900, then the " +
    "account is locked): 429 RATE_LIMITED with `reason` `account_locked` or `too_many_failures_from_ip`, " +
    "`retry_after_seconds` and Retry-After. " +
    "`accept-invite` {code, password, display_name} → `totp_secret` and `otpauth_uri`; `confirm-totp` " +
    "{code, totp_code} activates the account and signs in. `sign-out` revokes the presented session. " +
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

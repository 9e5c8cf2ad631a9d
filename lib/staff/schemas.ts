/** Zod schemas of the staff endpoints: POST/GET /api/staff-auth and GET/POST /api/staff (issue 26). */
import { z } from "zod";
import { passwordSchema } from "../auth/passwords.js";
import { ROLES, STAFF_STATUSES } from "../db/schema/enums.js";
import { plainText } from "../validation.js";

/** The sign-in and enrolment actions, `sign-in` by default. */
export const STAFF_AUTH_ACTIONS = ["sign-in", "sign-out", "accept-invite", "confirm-totp"] as const;
export type StaffAuthAction = (typeof STAFF_AUTH_ACTIONS)[number];

/** Longest display name, characters. */
export const DISPLAY_NAME_MAX = 60;

const displayName = plainText(z.string().trim().min(1).max(DISPLAY_NAME_MAX)).meta({
  description: `The name requesters may see (1-${DISPLAY_NAME_MAX} characters).`,
});

export const staffAuthQuerySchema = z.object({
  action: z.enum(STAFF_AUTH_ACTIONS).default("sign-in").meta({
    description:
      "sign-in (default) {email, password, totp_code} · sign-out (the session as bearer or cookie) · accept-invite {code, password, display_name} · confirm-totp {code, totp_code}.",
  }),
});

/** One body for every action; which members each needs is checked by the handler (422). */
export const staffAuthBodySchema = z
  .strictObject({
    email: z.string().trim().max(254).optional().meta({ description: "sign-in." }),
    password: z
      .string()
      .max(1000)
      .optional()
      .meta({ description: "sign-in; accept-invite (8+ characters)." }),
    totp_code: z.string().trim().max(10).optional().meta({ description: "sign-in, confirm-totp: 6 digits." }),
    code: z
      .string()
      .trim()
      .max(200)
      .optional()
      .meta({ description: "accept-invite, confirm-totp: the invitation code." }),
    display_name: displayName.optional(),
  })
  .meta({ id: "StaffAuthRequest" });
export type StaffAuthBody = z.output<typeof staffAuthBodySchema>;

/** The staff member of a session, as the session answers show it. */
export const staffSelfSchema = z
  .object({
    staff_id: z.string(),
    email: z.string(),
    display_name: z.string(),
    role: z.enum(ROLES),
  })
  .meta({ id: "StaffSelf" });

export const staffAuthResponseSchema = z
  .object({
    ok: z.boolean(),
    message: z.string(),
    token: z.string().optional().meta({
      description: "sign-in, confirm-totp: the session token (sts_…), also set as the staff_session cookie.",
    }),
    token_type: z.literal("Bearer").optional(),
    expires_at: z.string().meta({ format: "date-time" }).optional(),
    csrf_token: z.string().optional().meta({
      description: "Send as X-CSRF-Token on POST/DELETE when the session rides in the cookie.",
    }),
    staff: staffSelfSchema.optional(),
    totp_secret: z
      .string()
      .optional()
      .meta({ description: "accept-invite: the base32 TOTP secret (shown once)." }),
    otpauth_uri: z
      .string()
      .optional()
      .meta({ description: "accept-invite: otpauth://totp/… for an authenticator app." }),
  })
  .meta({ id: "StaffAuthResponse" });
export type StaffAuthResponse = z.output<typeof staffAuthResponseSchema>;

/** A staff member as the owner's list shows it. */
export const staffViewSchema = z
  .object({
    staff_id: z.string(),
    email: z.string(),
    display_name: z.string(),
    role: z.enum(ROLES),
    status: z.enum(STAFF_STATUSES),
    totp_enrolled: z.boolean(),
    created_at: z.string().meta({ format: "date-time" }),
    last_sign_in_at: z.string().meta({ format: "date-time" }).nullable(),
  })
  .meta({ id: "StaffMember" });

export const staffListResponseSchema = z
  .object({ staff: z.array(staffViewSchema) })
  .meta({ id: "StaffList" });

const staffId = z
  .string()
  .trim()
  .regex(/^stf_[A-Za-z0-9]{1,64}$/, "must be a staff id (stf_…)");

/** POST /api/staff: one action per request. */
export const staffChangeBodySchema = z
  .discriminatedUnion("action", [
    z.strictObject({
      action: z.literal("invite"),
      email: z.email().max(254),
      role: z.enum(ROLES),
      display_name: displayName,
    }),
    z.strictObject({ action: z.literal("set_role"), staff_id: staffId, role: z.enum(ROLES) }),
    z.strictObject({ action: z.literal("suspend"), staff_id: staffId }),
    z.strictObject({ action: z.literal("activate"), staff_id: staffId }),
    z.strictObject({ action: z.literal("reinvite"), staff_id: staffId }),
  ])
  .meta({ id: "StaffChangeRequest" });
export type StaffChangeBody = z.output<typeof staffChangeBodySchema>;

export const staffChangeResponseSchema = z
  .object({ staff: staffViewSchema })
  .meta({ id: "StaffChangeResponse" });

/** Validates a new password (8 characters to 72 bytes). */
export const newPasswordSchema = passwordSchema;

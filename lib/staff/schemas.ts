/** Zod schemas of the staff endpoints: POST/GET /api/staff-auth and GET/POST /api/staff (issue 26). */
import { z } from "zod";
import { passwordSchema } from "../auth/passwords.js";
import { ROLES, STAFF_STATUSES } from "../db/schema/enums.js";
import { plainText } from "../validation.js";

/** The sign-in and enrolment actions, `sign-in` by default. */
export const STAFF_AUTH_ACTIONS = [
  "sign-in",
  "sign-out",
  "accept-invite",
  "confirm-totp",
  "passkey-options",
  "passkey-sign-in",
] as const;
export type StaffAuthAction = (typeof STAFF_AUTH_ACTIONS)[number];

/** Longest display name, characters. */
export const DISPLAY_NAME_MAX = 60;

const displayName = plainText(z.string().trim().min(1).max(DISPLAY_NAME_MAX)).meta({
  description: `The name requesters may see (1-${DISPLAY_NAME_MAX} characters).`,
});

export const staffAuthQuerySchema = z.object({
  action: z.enum(STAFF_AUTH_ACTIONS).default("sign-in").meta({
    description:
      "sign-in (default) {email, password, totp_code | recovery_code} · passkey-options {} · passkey-sign-in {credential} · sign-out (the session as bearer or cookie) · accept-invite {code, password, display_name} · confirm-totp {code, totp_code}.",
  }),
});

const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, "must be base64url");

/**
 * A WebAuthn credential as the browser answers it, JSON-encoded (what @simplewebauthn/browser's
 * `startRegistration` / `startAuthentication` return: W3C WebAuthn L3 `toJSON()`); the ceremony's
 * own checks are @simplewebauthn/server's.
 */
export const webauthnCredentialSchema = z
  .object({
    id: base64url(1400).min(1),
    rawId: base64url(1400).min(1),
    type: z.literal("public-key"),
    response: z
      .looseObject({
        clientDataJSON: base64url(8192).min(1),
        attestationObject: base64url(65536).optional(),
        authenticatorData: base64url(65536).optional(),
        signature: base64url(8192).optional(),
        userHandle: base64url(1024).optional(),
        transports: z.array(z.string().max(32)).max(16).optional(),
      })
      .meta({
        description:
          "The authenticator's response (attestation for passkey-register, assertion for sign-in).",
      }),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().max(32).optional(),
  })
  .meta({ id: "WebAuthnCredential" });
export type WebAuthnCredentialBody = z.output<typeof webauthnCredentialSchema>;

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
    recovery_code: z.string().trim().max(40).optional().meta({
      description: "sign-in: one of the member's recovery codes, instead of totp_code (accepted once).",
    }),
    credential: webauthnCredentialSchema.optional().meta({ description: "passkey-sign-in: the assertion." }),
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

/** WebAuthn options JSON (creation or request options); the challenge is valid 5 minutes, once. */
export const passkeyOptionsSchema = z
  .looseObject({
    challenge: z.string(),
    rpId: z.string().optional(),
    rp: z.object({ id: z.string().optional(), name: z.string() }).optional(),
    timeout: z.number().optional(),
  })
  .meta({ id: "PasskeyOptions" });

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
    otpauth_qr: z.string().optional().meta({
      description:
        "accept-invite: the otpauth URI as a QR code, a data:image/svg+xml;base64 URL to show as an image.",
    }),
    recovery_codes: z.array(z.string()).optional().meta({
      description: "confirm-totp: ten one-time recovery codes (shown once; each replaces a TOTP code once).",
    }),
    passkey_options: passkeyOptionsSchema.optional().meta({
      description: "passkey-options: PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get.",
    }),
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

/** POST /api/staff-credentials actions (a signed-in member's own sign-in means). */
export const STAFF_CREDENTIAL_ACTIONS = ["passkey-options", "passkey-register", "recovery-codes"] as const;

export const staffCredentialsQuerySchema = z.object({
  action: z.enum(STAFF_CREDENTIAL_ACTIONS).meta({
    description:
      "passkey-options {} → creation options · passkey-register {credential, name} → the passkey · recovery-codes {} → ten new recovery codes (the old ones stop working).",
  }),
});

export const staffCredentialsBodySchema = z
  .strictObject({
    credential: webauthnCredentialSchema
      .optional()
      .meta({ description: "passkey-register: the attestation." }),
    name: plainText(z.string().trim().min(1).max(DISPLAY_NAME_MAX))
      .optional()
      .meta({ description: "passkey-register: a name to recognise the passkey by (default: Passkey)." }),
  })
  .meta({ id: "StaffCredentialsRequest" });
export type StaffCredentialsBody = z.output<typeof staffCredentialsBodySchema>;

export const passkeyViewSchema = z
  .object({
    passkey_id: z.string(),
    name: z.string(),
    device_type: z.string().meta({ description: "singleDevice or multiDevice (synced)." }),
    backed_up: z.boolean(),
    created_at: z.string().meta({ format: "date-time" }),
    last_used_at: z.string().meta({ format: "date-time" }).nullable(),
  })
  .meta({ id: "StaffPasskey" });

export const staffCredentialsResponseSchema = z
  .object({
    passkeys: z.array(passkeyViewSchema).meta({ description: "The member's passkeys, oldest first." }),
    recovery_codes_left: z.number().int().meta({ description: "Unused recovery codes." }),
    passkey_options: passkeyOptionsSchema.optional().meta({
      description:
        "passkey-options: PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create.",
    }),
    passkey: passkeyViewSchema.optional().meta({ description: "passkey-register: the passkey added." }),
    recovery_codes: z
      .array(z.string())
      .optional()
      .meta({ description: "recovery-codes: the new codes, shown once." }),
  })
  .meta({ id: "StaffCredentials" });
export type StaffCredentialsResponse = z.output<typeof staffCredentialsResponseSchema>;

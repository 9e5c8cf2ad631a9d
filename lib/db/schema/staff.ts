/**
 * Staff of the operator company (issue 26; docs/staff-and-audit.md): their accounts, the one-time
 * invitations that open them, their server-side sessions, and the site visits of field staff.
 * Only hashes of secrets are stored (invitation codes, session tokens, passwords); the TOTP secret
 * is stored as enrolled (it must be read back to check a code).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
} from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt } from "./columns.js";
import type { Role, StaffStatus } from "./enums.js";
import { tasks } from "./tasks.js";

/** A person of the operator company: one role, one e-mail, a password with TOTP once enrolled. */
export const staffMembers = pgTable(
  "staff_members",
  {
    /** `stf_<id>`. */
    id: text("id").primaryKey(),
    /** Sign-in e-mail, stored lowercase. */
    email: text("email").notNull().unique("staff_members_email_uq"),
    /** The name requesters may see (chosen by the staff member; at most 60 characters). */
    displayName: text("display_name").notNull(),
    role: text("role").$type<Role>().notNull(),
    /** `invited` until the invitation is accepted and TOTP enrolled; `suspended` signs in nothing. */
    status: text("status").$type<StaffStatus>().notNull().default("invited"),
    /** bcrypt hash; null until the invitation is accepted. */
    passwordHash: text("password_hash"),
    /** Base32 TOTP secret (RFC 6238); set at acceptance, in use once `totp_enabled_at` is set. */
    totpSecret: text("totp_secret"),
    totpEnabledAt: timestamptz("totp_enabled_at"),
    /** The last accepted TOTP time step: a code is never accepted twice (replay). */
    totpLastStep: integer("totp_last_step"),
    lastSignInAt: timestamptz("last_sign_in_at"),
    suspendedAt: timestamptz("suspended_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("staff_members_email_lowercase", sql`email = lower(email)`),
    index("staff_members_role_idx").on(t.role),
  ],
);

/** One-time invitation codes (hash only), e-mailed to a new staff member; 48 h. */
export const staffInvitations = pgTable(
  "staff_invitations",
  {
    /** Lowercase hex SHA-256 of the code. */
    codeHash: text("code_hash").primaryKey(),
    staffId: text("staff_id")
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    expiresAt: timestamptz("expires_at").notNull(),
    /** Set when the enrolment completes (the code is spent). */
    usedAt: timestamptz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("staff_invitations_staff_id_idx").on(t.staffId)],
);

/** Server-side staff sessions (12 h), named by the SHA-256 of their bearer token. */
export const staffSessions = pgTable(
  "staff_sessions",
  {
    /** `sss_<id>`: a public handle (audit, listing); the token itself is never stored. */
    id: text("id").primaryKey(),
    /** Lowercase hex SHA-256 of the session token (`sts_…`). */
    tokenHash: text("token_hash").notNull().unique("staff_sessions_token_hash_uq"),
    staffId: text("staff_id")
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamptz("expires_at").notNull(),
    /** Sign-out, suspension or a role change; a revoked session authenticates nothing. */
    revokedAt: timestamptz("revoked_at"),
  },
  (t) => [index("staff_sessions_staff_id_idx").on(t.staffId)],
);

/**
 * Passkeys of staff members (WebAuthn credentials, issue 44 item 3; lib/staff/passkeys.ts): the
 * public key only (the private key never leaves the person's device) and the signature counter,
 * which must move forward at each sign-in (a cloned authenticator is refused).
 */
export const staffPasskeys = pgTable(
  "staff_passkeys",
  {
    /** The credential ID, base64url, as the authenticator gave it. */
    id: text("id").primaryKey(),
    staffId: text("staff_id")
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    /** The COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    /** The last signature counter seen (0 for authenticators that keep none). */
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    /** Transports the authenticator reported (`internal`, `hybrid`, `usb`…), a hint for the browser. */
    transports: jsonb("transports").$type<string[]>().notNull().default([]),
    /** `singleDevice` or `multiDevice` (synced), and whether it is backed up. */
    deviceType: text("device_type").notNull(),
    backedUp: boolean("backed_up").notNull().default(false),
    /** A name the person recognises (e.g. the phone's browser), at most 60 characters. */
    name: text("name").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamptz("last_used_at"),
  },
  (t) => [index("staff_passkeys_staff_id_idx").on(t.staffId)],
);

/**
 * WebAuthn challenges (lib/staff/passkeys.ts): one row per options request, named by the SHA-256
 * of the challenge, spent by the first response that carries it (`used_at`) and refused after
 * `expires_at` (5 minutes).
 */
export const staffWebauthnChallenges = pgTable(
  "staff_webauthn_challenges",
  {
    /** Lowercase hex SHA-256 of the base64url challenge. */
    challengeHash: text("challenge_hash").primaryKey(),
    /** `registration` (a signed-in member adds a passkey) or `authentication` (sign-in). */
    purpose: text("purpose").$type<"registration" | "authentication">().notNull(),
    /** The member adding a passkey (registration only). */
    staffId: text("staff_id").references(() => staffMembers.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
  },
  (t) => [index("staff_webauthn_challenges_expires_at_idx").on(t.expiresAt)],
);

/**
 * Recovery codes of staff members (lib/staff/recovery-codes.ts): ten one-time codes shown once at
 * enrolment (or regeneration), stored as SHA-256 hashes, each usable once in place of a TOTP code.
 */
export const staffRecoveryCodes = pgTable(
  "staff_recovery_codes",
  {
    /** Lowercase hex SHA-256 of the normalised code. */
    codeHash: text("code_hash").primaryKey(),
    staffId: text("staff_id")
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    /** Set when a sign-in spends it; a spent code is refused. */
    usedAt: timestamptz("used_at"),
  },
  (t) => [index("staff_recovery_codes_staff_id_idx").on(t.staffId)],
);

/**
 * The site visit of a task (issue 26 item 5): the assigned field person's check-in and check-out,
 * each with the reported position and the distance to the task's geocoded place. One per task.
 */
export const siteVisits = pgTable(
  "site_visits",
  {
    taskId: text("task_id")
      .primaryKey()
      .references(() => tasks.id, { onDelete: "cascade" }),
    staffId: text("staff_id").references(() => staffMembers.id, { onDelete: "set null" }),
    /**
     * When the check-in was made: the device's `captured_at` for one queued offline (issue 44
     * item 5), else when the server received it.
     */
    checkedInAt: timestamptz("checked_in_at").notNull(),
    /** When the server received the check-in (null for visits recorded before issue 44 item 5: then `checked_in_at`). */
    checkInReceivedAt: timestamptz("check_in_received_at"),
    /** The check-in carried a `captured_at` (made offline, sent later). */
    checkInOffline: boolean("check_in_offline").notNull().default(false),
    checkInLatitude: doublePrecision("check_in_latitude").notNull(),
    checkInLongitude: doublePrecision("check_in_longitude").notNull(),
    /** Accuracy the device reported, metres. */
    checkInAccuracyM: doublePrecision("check_in_accuracy_m").notNull(),
    /** Great-circle distance to the task's place, metres; null when the task has no coordinates. */
    checkInDistanceM: doublePrecision("check_in_distance_m"),
    withinGeofence: boolean("within_geofence").notNull(),
    /** The field person's reason for a check-in outside the geofence (flagged). */
    reason: text("reason"),
    checkedOutAt: timestamptz("checked_out_at"),
    checkOutLatitude: doublePrecision("check_out_latitude"),
    checkOutLongitude: doublePrecision("check_out_longitude"),
    checkOutAccuracyM: doublePrecision("check_out_accuracy_m"),
    checkOutDistanceM: doublePrecision("check_out_distance_m"),
    createdAt: createdAt(),
  },
  (t) => [index("site_visits_staff_id_idx").on(t.staffId)],
);

export type StaffMember = typeof staffMembers.$inferSelect;
export type NewStaffMember = typeof staffMembers.$inferInsert;
export type StaffSessionRow = typeof staffSessions.$inferSelect;
export type SiteVisit = typeof siteVisits.$inferSelect;
export type StaffPasskey = typeof staffPasskeys.$inferSelect;

/**
 * GET and POST /api/staff-credentials (issue 44 item 3; docs/staff-and-audit.md "Passkeys"): the
 * signed-in member's own sign-in means — their passkeys and how many recovery codes are left; add a
 * passkey of this device (`passkey-options`, then `passkey-register`); replace the recovery codes
 * (`recovery-codes`, shown once). A staff session is required (any role): an API key has no
 * passkeys.
 */
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { eq } from "drizzle-orm";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import { type StaffMember, staffMembers } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { listPasskeys, passkeyRegistrationOptions, passkeyView, registerPasskey } from "./passkeys.js";
import { issueRecoveryCodes, RECOVERY_CODE_COUNT, recoveryCodesLeft } from "./recovery-codes.js";
import type { StaffCredentialsBody, StaffCredentialsResponse } from "./schemas.js";

/** The name of a passkey registered without one. */
const DEFAULT_PASSKEY_NAME = "Passkey";

/** The caller's staff member. @throws DomainError UNAUTHORIZED without a staff session */
async function memberOf(staffId: string | undefined): Promise<StaffMember> {
  if (staffId) {
    const db = await getDb();
    const [row] = await db.select().from(staffMembers).where(eq(staffMembers.id, staffId));
    if (row) return row;
  }
  throw new DomainError(
    "UNAUTHORIZED",
    "Sign in as staff first: passkeys and recovery codes are a person's own",
    {
      extra: { reason: "no_session" },
    },
  );
}

/** What GET answers for `staffId`: passkeys and recovery codes left. @throws UNAUTHORIZED */
export async function staffCredentials(staffId: string | undefined): Promise<StaffCredentialsResponse> {
  const staff = await memberOf(staffId);
  return {
    passkeys: (await listPasskeys(staff.id)).map(passkeyView),
    recovery_codes_left: await recoveryCodesLeft(staff.id),
  };
}

/**
 * Runs `action` of POST /api/staff-credentials for the signed-in `staffId`.
 * @throws DomainError UNAUTHORIZED (no session; `challenge_invalid`, `passkey_invalid`),
 *   VALIDATION_ERROR (credential missing), CONFLICT (passkey already registered)
 */
export async function changeStaffCredentials(
  action: "passkey-options" | "passkey-register" | "recovery-codes",
  body: StaffCredentialsBody,
  staffId: string | undefined,
): Promise<StaffCredentialsResponse> {
  const staff = await memberOf(staffId);
  switch (action) {
    case "passkey-options": {
      const options = await passkeyRegistrationOptions(staff);
      return { ...(await staffCredentials(staff.id)), passkey_options: { ...options } };
    }
    case "passkey-register": {
      if (!body.credential) {
        throw new DomainError("VALIDATION_ERROR", "credential is required for passkey-register", {
          field: "credential",
        });
      }
      const row = await registerPasskey(
        staff,
        body.credential as RegistrationResponseJSON,
        body.name ?? DEFAULT_PASSKEY_NAME,
      );
      return { ...(await staffCredentials(staff.id)), passkey: passkeyView(row) };
    }
    case "recovery-codes": {
      const db = await getDb();
      const codes = await db.transaction(async (tx) => {
        const issued = await issueRecoveryCodes(tx, staff.id);
        await recordAudit(tx, {
          action: "staff.recovery_codes",
          targetKind: "staff",
          targetId: staff.id,
          details: { count: RECOVERY_CODE_COUNT },
        });
        return issued;
      });
      return { ...(await staffCredentials(staff.id)), recovery_codes: codes };
    }
  }
}

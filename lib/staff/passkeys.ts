/**
 * Passkeys (WebAuthn) for staff sign-in (issue 44 item 3; docs/staff-and-audit.md "Passkeys";
 * W3C Web Authentication Level 3), through @simplewebauthn/server:
 *
 * - `passkeyRegistrationOptions` / `registerPasskey`: a signed-in member adds a passkey of this
 *   device (a discoverable credential, so the sign-in needs no e-mail); `excludeCredentials` keeps
 *   the same authenticator from being added twice.
 * - `passkeyAuthenticationOptions` / `signInWithPasskey`: the primary staff sign-in; password +
 *   TOTP (or a recovery code) stays the fallback (lib/staff/accounts.ts `signIn`).
 *
 * Challenges are kept server-side (`staff_webauthn_challenges`, by hash), valid
 * WEBAUTHN_CHALLENGE_TTL_SECONDS and spent by the first response that carries one: a replayed
 * assertion, a challenge used twice, an expired or unknown challenge → 401 `reason:
 * challenge_invalid`; a signature that does not verify, a counter that does not move forward (a
 * cloned authenticator, §6.1.1), an unknown credential or a wrong origin → 401 `reason:
 * passkey_invalid`. The relying party is the service's public origin (`publicBaseUrl`:
 * PUBLIC_BASE_URL, or the trusted request origin of lib/config/request-origin.ts); its ID is that
 * origin's host name.
 */
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { decodeClientDataJSON, isoBase64URL, isoUint8Array } from "@simplewebauthn/server/helpers";
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { publicBaseUrl } from "../config.js";
import { recordAudit } from "../db/audit.js";
import { getDb, type Tx } from "../db/client.js";
import {
  type StaffMember,
  type StaffPasskey,
  staffMembers,
  staffPasskeys,
  staffWebauthnChallenges,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { failureLimits } from "../ratelimit/enforce.js";
import { ipSignInLimit } from "./accounts.js";
import { type OpenedStaffSession, openStaffSession } from "./sessions.js";
import { recordSignIn } from "./sign-in-audit.js";

/** Lifetime of a registration or sign-in challenge, seconds (5 minutes). */
export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 300;
/** The relying party's name shown by the authenticator. */
export const RP_NAME = "Physical Task Execution Service";

type Purpose = "registration" | "authentication";

/** The relying party: the public origin and its host name (the RP ID). */
export function relyingParty(): { origin: string; rpID: string } {
  const origin = publicBaseUrl();
  return { origin, rpID: new URL(origin).hostname };
}

/** The 401 of a challenge that is unknown, expired or already spent. */
function challengeRefused(): DomainError {
  return new DomainError(
    "UNAUTHORIZED",
    "This passkey challenge is unknown, expired or already used: ask for new options and try again",
    { extra: { reason: "challenge_invalid" } },
  );
}

/** The 401 of an assertion or attestation that does not verify. */
function passkeyRefused(detail: string): DomainError {
  return new DomainError("UNAUTHORIZED", `The passkey was not accepted: ${detail}`, {
    extra: { reason: "passkey_invalid" },
  });
}

/** Stores `challenge` for `purpose` (and `staffId`), and drops expired ones. */
async function storeChallenge(
  challenge: string,
  purpose: Purpose,
  staffId: string | null,
  now: Date,
): Promise<void> {
  const db = await getDb();
  await db.delete(staffWebauthnChallenges).where(lt(staffWebauthnChallenges.expiresAt, now));
  await db.insert(staffWebauthnChallenges).values({
    challengeHash: sha256Hex(challenge),
    purpose,
    staffId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000),
  });
}

/** The challenge a response's clientDataJSON carries. @throws DomainError 401 when unreadable */
function challengeOf(clientDataJSON: string): string {
  try {
    const challenge = decodeClientDataJSON(clientDataJSON).challenge;
    if (typeof challenge === "string" && challenge.length > 0) return challenge;
  } catch {
    // unreadable: refused below
  }
  throw passkeyRefused("clientDataJSON is not readable");
}

/**
 * Spends the challenge `challenge` of `purpose` (and `staffId`) in `tx`: exactly one response may
 * use it, before it expires. @throws DomainError UNAUTHORIZED `challenge_invalid`
 */
async function spendChallenge(
  tx: Tx,
  challenge: string,
  purpose: Purpose,
  staffId: string | null,
  now: Date,
): Promise<void> {
  const spent = await tx
    .update(staffWebauthnChallenges)
    .set({ usedAt: now })
    .where(
      and(
        eq(staffWebauthnChallenges.challengeHash, sha256Hex(challenge)),
        eq(staffWebauthnChallenges.purpose, purpose),
        staffId === null
          ? isNull(staffWebauthnChallenges.staffId)
          : eq(staffWebauthnChallenges.staffId, staffId),
        isNull(staffWebauthnChallenges.usedAt),
        gt(staffWebauthnChallenges.expiresAt, now),
      ),
    )
    .returning({ hash: staffWebauthnChallenges.challengeHash });
  if (spent.length !== 1) throw challengeRefused();
}

/** A passkey as the API shows it (no key material). */
export interface PasskeyView {
  passkey_id: string;
  name: string;
  device_type: string;
  backed_up: boolean;
  created_at: string;
  last_used_at: string | null;
}

/** `row` as the API shows it. */
export function passkeyView(row: StaffPasskey): PasskeyView {
  return {
    passkey_id: row.id,
    name: row.name,
    device_type: row.deviceType,
    backed_up: row.backedUp,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** The passkeys of `staffId`, oldest first. */
export async function listPasskeys(staffId: string): Promise<StaffPasskey[]> {
  const db = await getDb();
  return db
    .select()
    .from(staffPasskeys)
    .where(eq(staffPasskeys.staffId, staffId))
    .orderBy(staffPasskeys.createdAt);
}

/**
 * The options to create a passkey for the signed-in `staff` (`navigator.credentials.create`): a
 * discoverable credential (resident key required), user verification preferred, no attestation,
 * the member's existing passkeys excluded; the challenge is stored for WEBAUTHN_CHALLENGE_TTL_SECONDS.
 */
export async function passkeyRegistrationOptions(
  staff: Pick<StaffMember, "id" | "email" | "displayName">,
  now = new Date(),
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await listPasskeys(staff.id);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty().rpID,
    userName: staff.email,
    userDisplayName: staff.displayName,
    userID: isoUint8Array.fromUTF8String(staff.id),
    attestationType: "none",
    timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  await storeChallenge(options.challenge, "registration", staff.id, now);
  return options;
}

/**
 * Verifies `response` (from `navigator.credentials.create` with options of
 * `passkeyRegistrationOptions`) for `staff` and stores the passkey under `name`, with its audit row.
 * @throws DomainError UNAUTHORIZED (`challenge_invalid`, `passkey_invalid`), CONFLICT (this
 *   credential is already registered)
 */
export async function registerPasskey(
  staff: Pick<StaffMember, "id">,
  response: RegistrationResponseJSON,
  name: string,
  now = new Date(),
): Promise<StaffPasskey> {
  const challenge = challengeOf(response.response.clientDataJSON);
  const { origin, rpID } = relyingParty();
  const db = await getDb();
  return db.transaction(async (tx) => {
    await spendChallenge(tx, challenge, "registration", staff.id, now);
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      });
    } catch (error) {
      throw passkeyRefused(error instanceof Error ? error.message : "the attestation does not verify");
    }
    if (!verified.verified || !verified.registrationInfo)
      throw passkeyRefused("the attestation does not verify");
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const [row] = await tx
      .insert(staffPasskeys)
      .values({
        id: credential.id,
        staffId: staff.id,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? response.response.transports ?? [],
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
        name,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) {
      throw new DomainError("CONFLICT", "This passkey is already registered", { field: "credential" });
    }
    await recordAudit(tx, {
      action: "staff.passkey_add",
      targetKind: "staff",
      targetId: staff.id,
      details: { passkey_id: row.id, device_type: row.deviceType },
    });
    return row;
  });
}

/**
 * The options of a passkey sign-in (`navigator.credentials.get`): no credential list (the
 * authenticator offers its discoverable passkeys for this RP ID), user verification preferred.
 */
export async function passkeyAuthenticationOptions(
  now = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: relyingParty().rpID,
    userVerification: "preferred",
    timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
  });
  await storeChallenge(options.challenge, "authentication", null, now);
  return options;
}

/**
 * Signs in with a passkey assertion `response` from `ip`. The challenge is spent first (so a
 * replay is refused even when its signature is good), then the signature, origin, RP ID and
 * counter are checked, then the counter is moved forward in the transaction that opens the session
 * and records `staff.sign_in` (`method: passkey`). Failures count against the per-IP sign-in
 * limit only: the account lockout of password guessing does not block a passkey (decision 53).
 * @throws DomainError UNAUTHORIZED (`challenge_invalid`, `passkey_invalid`), FORBIDDEN
 *   (`staff_suspended`), RATE_LIMITED (`too_many_failures_from_ip`)
 */
export async function signInWithPasskey(
  input: { response: AuthenticationResponseJSON; ip: string },
  now = new Date(),
): Promise<{ staff: StaffMember; session: OpenedStaffSession }> {
  const limits = [ipSignInLimit(input.ip)];
  await failureLimits.check(limits);
  try {
    return await verifyAndOpen(input.response, now);
  } catch (error) {
    if (error instanceof DomainError && error.code === "UNAUTHORIZED") await failureLimits.fail(limits);
    throw error;
  }
}

async function verifyAndOpen(
  response: AuthenticationResponseJSON,
  now: Date,
): Promise<{ staff: StaffMember; session: OpenedStaffSession }> {
  const challenge = challengeOf(response.response.clientDataJSON);
  const { origin, rpID } = relyingParty();
  const db = await getDb();
  // The challenge is spent in its own transaction: a failed verification below still uses it up.
  await db.transaction((tx) => spendChallenge(tx, challenge, "authentication", null, now));
  const [found] = await db
    .select({ passkey: staffPasskeys, staff: staffMembers })
    .from(staffPasskeys)
    .innerJoin(staffMembers, eq(staffMembers.id, staffPasskeys.staffId))
    .where(eq(staffPasskeys.id, response.id));
  if (!found) throw passkeyRefused("this passkey is not registered (add it again after signing in)");
  const { passkey, staff } = found;
  const userHandle = response.response.userHandle;
  if (userHandle && userHandle !== isoBase64URL.fromUTF8String(staff.id)) {
    throw passkeyRefused("the passkey's user does not match");
  }
  let newCounter: number;
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: passkey.id,
        publicKey: isoBase64URL.toBuffer(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
      requireUserVerification: false,
    });
    if (!verified.verified) throw new Error("the signature does not verify");
    newCounter = verified.authenticationInfo.newCounter;
  } catch (error) {
    throw passkeyRefused(error instanceof Error ? error.message : "the signature does not verify");
  }
  if (staff.status !== "active") {
    throw new DomainError("FORBIDDEN", "This staff account is suspended; ask an owner", {
      extra: { reason: "staff_suspended" },
    });
  }
  const opened = await db.transaction(async (tx) => {
    // The counter only moves forward (two assertions racing with the same counter: one wins).
    const [moved] = await tx
      .update(staffPasskeys)
      .set({ counter: newCounter, lastUsedAt: now })
      .where(
        and(
          eq(staffPasskeys.id, passkey.id),
          or(
            sql`${staffPasskeys.counter} < ${newCounter}`,
            and(eq(staffPasskeys.counter, 0), sql`${newCounter} = 0`),
          ),
        ),
      )
      .returning({ id: staffPasskeys.id });
    if (!moved) return null;
    const session = await openStaffSession(tx, staff.id, now);
    await recordSignIn(tx, staff, "passkey", session.sessionId, { passkey_id: passkey.id });
    return { staff, session };
  });
  if (!opened) throw passkeyRefused("the signature counter did not move forward");
  return opened;
}

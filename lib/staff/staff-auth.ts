/**
 * The actions of POST /api/staff-auth and its session GET (issue 26 item 1; issue 44 item 3 for
 * passkeys, the QR code and recovery codes; the rules are in lib/staff/accounts.ts,
 * lib/staff/passkeys.ts and lib/staff/sessions.ts). Answers carry the session token once, in the
 * body and as the `staff_session` cookie; the cookie is `Secure` over HTTPS and whenever the
 * production profile is active.
 */
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { productionProfile } from "../config.js";
import type { Role } from "../db/schema/enums.js";
import { DomainError } from "../errors.js";
import { parseOrThrow } from "../validation.js";
import { acceptInvitation, confirmEnrollment, signIn } from "./accounts.js";
import { presentedStaffToken, sessionCookie } from "./credentials.js";
import { passkeyAuthenticationOptions, signInWithPasskey } from "./passkeys.js";
import type { StaffAuthAction, StaffAuthBody, StaffAuthResponse } from "./schemas.js";
import { newPasswordSchema } from "./schemas.js";
import {
  type OpenedStaffSession,
  revokeStaffSession,
  STAFF_SESSION_TTL_SECONDS,
  verifyStaffSession,
} from "./sessions.js";
import { totpQrDataUrl } from "./totp.js";

/** An answer and the `Set-Cookie` value that goes with it, if any. */
export interface StaffAuthResult {
  body: StaffAuthResponse;
  setCookie?: string;
}

function need(
  body: StaffAuthBody,
  field: "email" | "password" | "totp_code" | "code",
  action: string,
): string {
  const value = body[field];
  if (value === undefined || value === "") {
    throw new DomainError("VALIDATION_ERROR", `${field} is required for ${action}`, { field });
  }
  return value;
}

/** Whether the session cookie must be `Secure` for `request` (HTTPS, or the production profile). */
function secureCookie(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || productionProfile().active;
}

function signedIn(
  request: Request,
  staff: { id: string; email: string; displayName: string; role: Role },
  session: OpenedStaffSession,
  message: string,
): StaffAuthResult {
  return {
    body: {
      ok: true,
      message,
      token: session.token,
      token_type: "Bearer",
      expires_at: session.expiresAt.toISOString(),
      csrf_token: session.csrfToken,
      staff: { staff_id: staff.id, email: staff.email, display_name: staff.displayName, role: staff.role },
    },
    setCookie: sessionCookie(session.token, STAFF_SESSION_TTL_SECONDS, secureCookie(request)),
  };
}

/**
 * Runs `action` of POST /api/staff-auth for a caller at `ip` (the sign-in's per-IP failure limit).
 * @throws DomainError VALIDATION_ERROR (missing member, weak password), UNAUTHORIZED, FORBIDDEN,
 *   CONFLICT, RATE_LIMITED (see lib/staff/accounts.ts)
 */
export async function staffAuth(
  action: StaffAuthAction,
  body: StaffAuthBody,
  request: Request,
  ip: string,
): Promise<StaffAuthResult> {
  switch (action) {
    case "sign-in": {
      const email = need(body, "email", action);
      const password = need(body, "password", action);
      const { staff, session } = await signIn({
        email,
        password,
        ...(body.recovery_code
          ? { recoveryCode: body.recovery_code }
          : { totpCode: need(body, "totp_code", action) }),
        ip,
      });
      return signedIn(request, staff, session, "Signed in for 12 hours.");
    }
    case "passkey-options": {
      return {
        body: {
          ok: true,
          message:
            "Pass these options to navigator.credentials.get, then send its answer with action passkey-sign-in.",
          passkey_options: { ...(await passkeyAuthenticationOptions()) },
        },
      };
    }
    case "passkey-sign-in": {
      if (!body.credential) {
        throw new DomainError("VALIDATION_ERROR", `credential is required for ${action}`, {
          field: "credential",
        });
      }
      const { staff, session } = await signInWithPasskey({
        response: body.credential as AuthenticationResponseJSON,
        ip,
      });
      return signedIn(request, staff, session, "Signed in with a passkey for 12 hours.");
    }
    case "accept-invite": {
      const password = parseOrThrow(newPasswordSchema, need(body, "password", action), "password");
      const { totpSecret, otpauthUri } = await acceptInvitation({
        code: need(body, "code", action),
        password,
        displayName: body.display_name,
      });
      return {
        body: {
          ok: true,
          message:
            "Add this secret to an authenticator app, then send one of its codes with action confirm-totp.",
          totp_secret: totpSecret,
          otpauth_uri: otpauthUri,
          otpauth_qr: await totpQrDataUrl(otpauthUri),
        },
      };
    }
    case "confirm-totp": {
      const { staff, session, recoveryCodes } = await confirmEnrollment({
        code: need(body, "code", action),
        totpCode: need(body, "totp_code", action),
      });
      const answer = signedIn(
        request,
        staff,
        session,
        "Enrolled and signed in for 12 hours. Keep the recovery codes somewhere safe: they are shown once.",
      );
      return { ...answer, body: { ...answer.body, recovery_codes: recoveryCodes } };
    }
    case "sign-out": {
      const presented = presentedStaffToken(request);
      if (presented) await revokeStaffSession(presented.token);
      return {
        body: { ok: true, message: "Signed out: this session is no longer accepted." },
        setCookie: sessionCookie("", 0, secureCookie(request)),
      };
    }
  }
}

/**
 * GET /api/staff-auth: the presented session's staff member, expiry and CSRF token.
 * @throws DomainError UNAUTHORIZED (no session, ended, suspended)
 */
export async function staffSession(request: Request): Promise<StaffAuthResponse> {
  const presented = presentedStaffToken(request);
  if (!presented) {
    throw new DomainError("UNAUTHORIZED", "No staff session: sign in with POST /api/staff-auth", {
      extra: { reason: "no_session" },
    });
  }
  const { staff, expiresAt, csrfToken } = await verifyStaffSession(presented.token);
  return {
    ok: true,
    message: "Signed in.",
    expires_at: expiresAt.toISOString(),
    csrf_token: csrfToken,
    staff: { staff_id: staff.id, email: staff.email, display_name: staff.displayName, role: staff.role },
  };
}

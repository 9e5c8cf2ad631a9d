/**
 * Account creation (POST /api/client-account; spec "Client accounts").
 *
 * - With an API key: the account e-mail is the key's contact e-mail; another `email`
 *   in the body → 403 FORBIDDEN (spec "Authentication" 8). Password optional (without
 *   one, the client sets it later with `reset-request`).
 * - Without a key (web registration): `email`, `password`, `phone`, `address_line1`,
 *   `city`, `postal_code`, `tos_accepted: true` and a Cloudflare Turnstile token checked
 *   server-side are required.
 * - New accounts start `pending_deposit`; an e-mail-verification token is e-mailed.
 *   An e-mail that already has an account → 409 CONFLICT.
 */

import { queueVerificationEmail } from "../auth/account-emails.js";
import { issueToken } from "../auth/one-time-tokens.js";
import { hashPassword } from "../auth/passwords.js";
import { verifyTurnstile } from "../auth/turnstile.js";
import { getDb } from "../db/client.js";
import { clientAccounts } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import { prefixedId } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { type AccountView, accountView } from "./account-view.js";
import { findAccountByEmail } from "./find-account.js";
import type { CreateAccountBody } from "./schemas.js";

const WEB_REQUIRED = [
  "email",
  "password",
  "phone",
  "address_line1",
  "city",
  "postal_code",
  "tos_accepted",
  "cf_turnstile_token",
] as const;

/** The creation response. */
export interface AccountCreated {
  account: AccountView;
  message: string;
  email_verification_sent: boolean;
}

const isUniqueViolation = (error: unknown): boolean => {
  for (let e: unknown = error, i = 0; e && i < 5; i++) {
    if ((e as { code?: string }).code === "23505") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
};

/**
 * Creates an account for `caller` (a key) or a web registrant (`caller` null).
 * @throws ApiError FORBIDDEN (key with another e-mail), MISSING_FIELD, VALIDATION_ERROR
 *   (tos_accepted false, CAPTCHA refused), UPSTREAM_UNAVAILABLE (CAPTCHA service down), CONFLICT
 */
export async function registerAccount(input: {
  body: CreateAccountBody;
  caller: Caller | null;
  ip: string;
  now?: Date;
}): Promise<AccountCreated> {
  const { body, caller } = input;
  const now = input.now ?? new Date();
  let email: string;
  if (caller) {
    if (body.email && body.email !== caller.contact) {
      throw new ApiError(
        "FORBIDDEN",
        `With an API key the account e-mail is the key's contact (${caller.contact}); register another e-mail without a key`,
        { field: "email" },
      );
    }
    email = caller.contact;
  } else {
    for (const field of WEB_REQUIRED) {
      if (body[field] === undefined) {
        throw new ApiError(
          "MISSING_FIELD",
          `${field} is required for web registration (without an API key)`,
          {
            field,
          },
        );
      }
    }
    if (body.tos_accepted !== true) {
      throw new ApiError(
        "VALIDATION_ERROR",
        "tos_accepted must be true: the terms of service must be accepted",
        {
          field: "tos_accepted",
        },
      );
    }
    email = body.email!;
  }
  if (!caller) {
    const captcha = await verifyTurnstile(body.cf_turnstile_token!, input.ip);
    if (!captcha.ok) {
      throw new ApiError("VALIDATION_ERROR", "The CAPTCHA token was refused; reload the form and try again", {
        field: "cf_turnstile_token",
        extra: { turnstile_error_codes: captcha.errorCodes },
      });
    }
  }
  // After the CAPTCHA, so that bots cannot probe which e-mails have accounts.
  if (await findAccountByEmail(email)) throw conflict(email);
  const passwordHash = body.password ? await hashPassword(body.password) : null;
  const db = await getDb();
  try {
    const account = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(clientAccounts)
        .values({
          id: prefixedId("acct"),
          orgId: prefixedId("org"),
          contactName: body.contact_name,
          email,
          passwordHash,
          companyName: body.company_name ?? null,
          phone: body.phone ?? null,
          addressLine1: body.address_line1 ?? null,
          addressLine2: body.address_line2 ?? null,
          city: body.city ?? null,
          province: body.province,
          postalCode: body.postal_code ?? null,
          lang: body.lang,
          tosAcceptedAt: body.tos_accepted ? now : null,
          status: "pending_deposit",
          apiKeyId: caller?.keyId ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      const { token, expiresAt } = await issueToken(tx, row!.id, "verify_email", now);
      await queueVerificationEmail(tx, row!, token, expiresAt);
      return row!;
    });
    return {
      account: await accountView(account),
      message:
        "Account created with status pending_deposit. It becomes active once the operator records your first " +
        "deposit (arranged with the operator). A verification code was e-mailed to " +
        `${email}.${passwordHash ? "" : " Set a password for the dashboard with POST /api/client-auth?action=reset-request."}`,
      email_verification_sent: true,
    };
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(email);
    throw error;
  }
}

function conflict(email: string): ApiError {
  return new ApiError("CONFLICT", `An account already exists for ${email}`, {
    field: "email",
    extra: {
      suggestion: "Log in with POST /api/client-auth, or reset the password with action=reset-request",
    },
  });
}

/**
 * Account creation (POST /api/client-account; spec "Client accounts").
 *
 * - With an API key: the account e-mail is the key's contact e-mail; another `email`
 *   in the body → 403 FORBIDDEN (spec "Authentication" 8). The key's contact was typed, not
 *   verified, so the key gets nothing from it: the account is **not** linked to the key (its owner
 *   links keys once signed in), no `password` is accepted (422: the owner sets one with
 *   `reset-request`, whose code goes to the address), and the verification e-mail names the key
 *   and says that verifying does not link it.
 * - Without a key (web registration): `email`, `password`, `phone`, `address_line1`,
 *   `city`, `postal_code`, `tos_accepted: true` and a Cloudflare Turnstile token checked
 *   server-side are required.
 * - New accounts start `pending_deposit`; an e-mail-verification token is e-mailed.
 *   An account whose e-mail was never
 *   verified blocks nobody: it holds no money (deposits need a verified e-mail) and no linked key,
 *   so a new registration for its address discards it (its codes, sessions and profile) and starts
 *   over; whoever then proves the address by verifying it owns the account.
 * - An e-mail whose account is verified gets the very answer a new address gets (201, the same
 *   shape, an account id that is never stored), so the answer never tells whether an address has
 *   an account (issue 25); nothing is written but a notice to the address, which tells its owner
 *   (lib/auth/account-emails.ts `queueAccountExistsEmail`).
 */
import { and, eq, isNull } from "drizzle-orm";

import { queueAccountExistsEmail, queueVerificationEmail } from "../auth/account-emails.js";
import { issueToken } from "../auth/one-time-tokens.js";
import { hashPassword } from "../auth/passwords.js";
import { verifyTurnstile } from "../auth/turnstile.js";
import { eventsCommitted } from "../db/after-events.js";
import { getDb, type Tx } from "../db/client.js";
import {
  apiKeys,
  type ClientAccount,
  clientAccounts,
  emails,
  invoices,
  ledgerEntries,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { emailIdentifier, enforceLimits } from "../ratelimit/enforce.js";
import { type AccountView, accountView } from "./account-view.js";
import type { CreateAccountBody } from "./schemas.js";
import { findAccountByEmail } from "./store/find-account.js";

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

/** The address has a verified account (or one that cannot be discarded): answered like a new one. */
class AddressTaken extends Error {
  override name = "AddressTaken";
}

/**
 * Creates an account for `caller` (a key) or a web registrant (`caller` null).
 * Verification e-mails per address are limited (EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR, shared with
 * `verify-email` attempts on that address). For an address whose account is verified the answer is
 * the same as for a new one and only a notice is e-mailed (module comment).
 * @returns the creation response (201)
 * @throws DomainError RATE_LIMITED, FORBIDDEN (key with another e-mail), MISSING_FIELD, VALIDATION_ERROR
 *   (tos_accepted false, CAPTCHA refused, password with a key), UPSTREAM_UNAVAILABLE (CAPTCHA
 *   service down)
 */
export async function registerAccount(input: {
  body: CreateAccountBody;
  caller: Caller | null;
  ip: string;
  now?: Date;
}): Promise<AccountCreated> {
  const { body, caller } = input;
  const now = input.now ?? new Date();
  const email = registrationEmail(body, caller);
  if (!caller) await checkCaptcha(body, input.ip);
  // Each registration e-mails a verification code to the address: limited per address, so that
  // re-registering over an unverified account cannot flood someone's mailbox.
  await enforceLimits([
    {
      policy: "verify_email",
      identifier: emailIdentifier(email),
      what: "verification e-mails and attempts per e-mail per hour",
    },
  ]);
  const existing = await findAccountByEmail(email);
  // Hashed whether or not the address is taken: both answers cost the same.
  const passwordHash = body.password ? await hashPassword(body.password) : null;
  const fields = { email, passwordHash, keyId: caller?.keyId ?? null, now };
  const db = await getDb();
  const openedWithKey = caller
    ? (await db.select({ hint: apiKeys.keyHint }).from(apiKeys).where(eq(apiKeys.id, caller.keyId)))[0]
    : undefined;
  const answer = async (account: ClientAccount): Promise<AccountCreated> => ({
    account: await accountView(account),
    message: createdMessage(email, passwordHash !== null, caller !== null),
    email_verification_sent: true,
  });
  if (existing?.emailVerifiedAt) {
    await db.transaction((tx) => queueAccountExistsEmail(tx, existing, openedWithKey));
    eventsCommitted();
    return answer(accountRow(body, fields));
  }
  try {
    const account = await db.transaction(async (tx) => {
      if (existing) await discardUnverified(tx, existing.id);
      const [row] = await tx.insert(clientAccounts).values(accountRow(body, fields)).returning();
      const { token, expiresAt } = await issueToken(tx, row!.id, "verify_email", now);
      await queueVerificationEmail(tx, row!, token, expiresAt, openedWithKey);
      return row!;
    });
    eventsCommitted(); // the verification e-mail goes out on the outbox pass, not the next cron
    return answer(account);
  } catch (error) {
    // A registration of the same address that won a race, or an account that verified meanwhile:
    // the same answer again, nothing written.
    if (error instanceof AddressTaken || isUniqueViolation(error)) return answer(accountRow(body, fields));
    throw error;
  }
}

/**
 * Deletes the unverified account `accountId` (a squat or an abandoned registration) inside `tx`: its
 * one-time codes and sessions go with it (cascade) and its unsent e-mails are dropped.
 * @throws AddressTaken when, against the rules, it verified meanwhile or holds ledger entries or invoices
 */
async function discardUnverified(tx: Tx, accountId: string): Promise<void> {
  const [locked] = await tx
    .select({ id: clientAccounts.id })
    .from(clientAccounts)
    .where(and(eq(clientAccounts.id, accountId), isNull(clientAccounts.emailVerifiedAt)))
    .for("update");
  if (!locked) throw new AddressTaken();
  const [money] = await tx
    .select({ id: ledgerEntries.id })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.accountId, accountId))
    .limit(1);
  const [bill] = await tx
    .select({ id: invoices.id })
    .from(invoices)
    .where(eq(invoices.accountId, accountId))
    .limit(1);
  if (money || bill) throw new AddressTaken();
  await tx.delete(emails).where(and(eq(emails.accountId, accountId), eq(emails.status, "queued")));
  await tx.delete(clientAccounts).where(eq(clientAccounts.id, accountId));
}

/**
 * The account e-mail of a registration: the key's contact with a key (which sets no password),
 * the body's `email` without one (then every WEB_REQUIRED member and the accepted terms are required).
 * @throws DomainError FORBIDDEN (key with another e-mail), VALIDATION_ERROR (password with a key,
 *   tos_accepted false), MISSING_FIELD (web registration)
 */
function registrationEmail(body: CreateAccountBody, caller: Caller | null): string {
  if (caller) {
    if (body.email && body.email !== caller.contact) {
      throw new DomainError(
        "FORBIDDEN",
        `With an API key the account e-mail is the key's contact (${caller.contact}); register another e-mail without a key`,
        { field: "email" },
      );
    }
    if (body.password !== undefined) {
      throw new DomainError(
        "VALIDATION_ERROR",
        "With an API key no password is set: the account's owner sets it with POST /api/client-auth?action=reset-request " +
          "(the code goes to the account's e-mail)",
        { field: "password" },
      );
    }
    return caller.contact;
  }
  for (const field of WEB_REQUIRED) {
    if (body[field] === undefined) {
      throw new DomainError(
        "MISSING_FIELD",
        `${field} is required for web registration (without an API key)`,
        {
          field,
        },
      );
    }
  }
  if (body.tos_accepted !== true) {
    throw new DomainError(
      "VALIDATION_ERROR",
      "tos_accepted must be true: the terms of service must be accepted",
      {
        field: "tos_accepted",
      },
    );
  }
  return body.email!;
}

/**
 * Checks the web registrant's Cloudflare Turnstile token from `ip`.
 * @throws DomainError VALIDATION_ERROR (token refused), UPSTREAM_UNAVAILABLE (service down)
 */
async function checkCaptcha(body: CreateAccountBody, ip: string): Promise<void> {
  const captcha = await verifyTurnstile(body.cf_turnstile_token!, ip);
  if (!captcha.ok) {
    throw new DomainError(
      "VALIDATION_ERROR",
      "The CAPTCHA token was refused; reload the form and try again",
      {
        field: "cf_turnstile_token",
        extra: { turnstile_error_codes: captcha.errorCodes },
      },
    );
  }
}

/**
 * The row of a new `pending_deposit` account (an id and an org id of its own) from `body`: inserted
 * for a new address, only shown for a taken one (the answer must look the same).
 */
function accountRow(
  body: CreateAccountBody,
  fields: { email: string; passwordHash: string | null; keyId: string | null; now: Date },
): ClientAccount {
  const { email, passwordHash, now } = fields;
  return {
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
    apiKeyId: fields.keyId,
    passwordChangedAt: null,
    discountPercent: 0,
    emailVerifiedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The creation message: what activates the account, and what a password-less or key-opened one does next. */
function createdMessage(email: string, hasPassword: boolean, withKey: boolean): string {
  return (
    "Account created with status pending_deposit. It becomes active once the operator records your first " +
    "deposit (arranged with the operator). A verification code was e-mailed to " +
    `${email}; the account can be used (sign-in, deposits, linking API keys) once the address is verified.` +
    `${hasPassword ? "" : " Set a password for the dashboard with POST /api/client-auth?action=reset-request."}` +
    `${withKey ? " This API key is not linked to the account: the owner links keys once signed in." : ""}`
  );
}

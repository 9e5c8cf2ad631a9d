/**
 * The operator's account operations (POST /api/account-admin, scope admin; docs/accounts.md
 * "Accounts, billing and client login"). Every money movement is a new ledger entry
 * with its invoice; nothing is edited in place.
 *
 * - `deposit` (`amount_cad` 0.01 to 1 000 000): credits a funded deposit and activates
 *   a `pending_deposit` account (a suspended one stays suspended). Refused (409 CONFLICT,
 *   `reason: email_not_verified`) until the account's e-mail is verified: money never goes to an
 *   account whose owner has not proved the address (an unverified account may be discarded when
 *   the address's real owner registers). The same holds for `adjust`. Send it with an
 *   `Idempotency-Key`: a retried request is replayed, not credited twice.
 * - `adjust` (`amount_cad` signed, non-zero, `description` required): a correction; one
 *   that would make the available balance negative → 422.
 * - `suspend` (from pending_deposit or active) and `activate` (from suspended, once a
 *   deposit exists); asking for the current status is a no-op.
 * - `set_discount` (`discount_percent` 0 to 100): applies to later charges.
 */

import { eq } from "drizzle-orm";
import { accountBalance } from "../billing/balance.js";
import { createInvoice } from "../billing/invoices.js";
import { recordAudit } from "../db/audit.js";
import { getDb, type Tx } from "../db/client.js";
import type { AccountStatus } from "../db/schema/enums.js";
import { type ClientAccount, clientAccounts, ledgerEntries } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { keyIdOf } from "../keys/credentials.js";
import { toCents } from "../money.js";
import { type AccountView, accountView } from "./account-view.js";
import type { AccountAdminBody } from "./schemas.js";
import { erasurePending, findAccountByEmail, findAccountById, lockAccount } from "./store/find-account.js";

/** Result of an admin operation. */
export interface AccountAdminResult {
  account: AccountView;
  ledger_entry?: {
    transaction_id: string;
    kind: string;
    amount_cad: number;
    invoice_id: string | null;
    created_at: string;
  };
}

function required<T>(value: T | undefined, field: string, action: string): T {
  if (value === undefined)
    throw new DomainError("MISSING_FIELD", `${field} is required for ${action}`, { field });
  return value;
}

async function targetAccount(body: AccountAdminBody): Promise<ClientAccount> {
  if (!body.email && !body.account_id) {
    throw new DomainError("MISSING_FIELD", "email or account_id is required", { field: "email" });
  }
  const account = body.account_id
    ? await findAccountById(body.account_id)
    : await findAccountByEmail(body.email!);
  if (!account || (body.email && account.email !== body.email)) {
    throw new DomainError("NOT_FOUND", `No account ${body.account_id ?? body.email}`, {
      field: body.account_id ? "account_id" : "email",
    });
  }
  return account;
}

async function setStatus(tx: Tx, id: string, status: AccountStatus): Promise<ClientAccount> {
  const [row] = await tx
    .update(clientAccounts)
    .set({ status, updatedAt: new Date() })
    .where(eq(clientAccounts.id, id))
    .returning();
  return row!;
}

/**
 * Checks a deposit or an adjustment of `account` (amounts in CAD) and returns its amount and
 * description.
 * @throws DomainError MISSING_FIELD (amount_cad; description of an adjustment), CONFLICT (e-mail not
 *   verified; a deposit while an erasure request is pending, `reason: erasure_pending`), VALIDATION_ERROR (deposit under 0.01, zero, or an available balance made negative)
 */
async function checkMovement(
  tx: Tx,
  action: "deposit" | "adjust",
  body: AccountAdminBody,
  account: ClientAccount,
  now: Date,
): Promise<{ amount: number; description: string }> {
  const amount = required(body.amount_cad, "amount_cad", action);
  if (!account.emailVerifiedAt) {
    throw new DomainError(
      "CONFLICT",
      "The account's e-mail is not verified yet; its owner must verify it before any deposit or adjustment",
      { extra: { reason: "email_not_verified" } },
    );
  }
  if (action === "deposit" && (await erasurePending(tx, account.id))) {
    throw new DomainError(
      "CONFLICT",
      "The account's owner asked for the erasure of its personal information: no deposit is taken while the request is pending",
      { extra: { reason: "erasure_pending" } },
    );
  }
  if (action === "deposit" && amount < 0.01) {
    throw new DomainError("VALIDATION_ERROR", "amount_cad of a deposit must be at least 0.01", {
      field: "amount_cad",
    });
  }
  if (amount === 0) {
    throw new DomainError("VALIDATION_ERROR", "amount_cad must not be 0", { field: "amount_cad" });
  }
  const description =
    action === "adjust"
      ? required(body.description, "description", "adjust")
      : (body.description ?? "Deposit");
  if (amount < 0) {
    const { available_balance_cad } = await accountBalance(account.id, tx, now);
    if (toCents(available_balance_cad) + toCents(amount) < 0) {
      throw new DomainError(
        "VALIDATION_ERROR",
        `This adjustment would make the available balance negative (${available_balance_cad.toFixed(2)} CAD available)`,
        { field: "amount_cad", extra: { available_balance_cad } },
      );
    }
  }
  return { amount, description };
}

/**
 * Records a checked deposit (with its invoice; activates a `pending_deposit` account) or
 * adjustment of `account` as a new ledger entry in `tx`.
 * @returns the account after the movement and the ledger entry's view
 * @throws DomainError as `checkMovement`
 */
async function recordMovement(
  tx: Tx,
  caller: Caller,
  action: "deposit" | "adjust",
  body: AccountAdminBody,
  account: ClientAccount,
  now: Date,
): Promise<{ account: ClientAccount; entry: NonNullable<AccountAdminResult["ledger_entry"]> }> {
  const { amount, description } = await checkMovement(tx, action, body, account, now);
  const invoiceId =
    action === "deposit"
      ? await createInvoice(
          tx,
          {
            accountId: account.id,
            kind: "deposit",
            amountCad: amount,
            lines: [{ description, amount_cad: amount, quantity: 1, unit_cad: amount }],
          },
          now,
        )
      : null;
  const id = prefixedId("le");
  await tx.insert(ledgerEntries).values({
    id,
    accountId: account.id,
    kind: action === "deposit" ? "deposit" : "adjustment",
    amountCad: amount,
    invoiceId,
    description,
    createdByKeyId: keyIdOf(caller), // a staff member is named by the audit trail
    createdAt: now,
  });
  const entry = {
    transaction_id: id,
    kind: action === "deposit" ? "deposit" : "adjustment",
    amount_cad: amount,
    invoice_id: invoiceId,
    created_at: now.toISOString(),
  };
  const activated =
    action === "deposit" && account.status === "pending_deposit"
      ? await setStatus(tx, account.id, "active")
      : account;
  await recordAudit(tx, {
    action: action === "deposit" ? "ledger.deposit" : "ledger.adjustment",
    targetKind: "ledger_entry",
    targetId: id,
    details: {
      account_id: account.id,
      amount_cad: amount,
      invoice_id: invoiceId,
      ...(activated !== account ? { activated: true } : {}),
    },
  });
  return { account: activated, entry };
}

/**
 * Applies one admin action.
 * @throws DomainError MISSING_FIELD, VALIDATION_ERROR (amounts), NOT_FOUND, CONFLICT (activate without
 *   deposit; deposit to an account whose e-mail is not verified)
 */
export async function accountAdmin(
  caller: Caller,
  body: AccountAdminBody,
  now = new Date(),
): Promise<AccountAdminResult> {
  const target = await targetAccount(body);
  const db = await getDb();
  return db.transaction(async (tx) => {
    let account = await lockAccount(tx, target.id);
    let entry: AccountAdminResult["ledger_entry"];
    switch (body.action) {
      case "deposit":
      case "adjust": {
        const movement = await recordMovement(tx, caller, body.action, body, account, now);
        account = movement.account;
        entry = movement.entry;
        break;
      }
      case "suspend":
        if (account.status !== "suspended") {
          account = await setStatus(tx, account.id, "suspended");
          await recordAudit(tx, { action: "account.suspend", targetKind: "account", targetId: account.id });
        }
        break;
      case "activate":
        if (account.status === "pending_deposit") {
          throw new DomainError(
            "CONFLICT",
            "The account has no deposit yet: record one with action=deposit",
            {
              extra: { current_status: account.status },
            },
          );
        }
        if (account.status === "suspended") {
          account = await setStatus(tx, account.id, "active");
          await recordAudit(tx, { action: "account.activate", targetKind: "account", targetId: account.id });
        }
        break;
      case "set_discount": {
        const discount = required(body.discount_percent, "discount_percent", "set_discount");
        const [row] = await tx
          .update(clientAccounts)
          .set({ discountPercent: discount, updatedAt: now })
          .where(eq(clientAccounts.id, account.id))
          .returning();
        await recordAudit(tx, {
          action: "account.set_discount",
          targetKind: "account",
          targetId: account.id,
          details: { from: account.discountPercent, to: discount },
        });
        account = row!;
        break;
      }
    }
    return { account: await accountView(account, tx), ...(entry ? { ledger_entry: entry } : {}) };
  });
}

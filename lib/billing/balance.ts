/**
 * Balances of prepaid accounts, always derived, never stored: the balance is the sum
 * of the account's ledger entries; `held` is the sum of its pre-authorizations that
 * are neither consumed nor expired; `available = balance − held`.
 *
 * `spending_level` (docs/accounts.md "Accounts, billing and client login"): `blocked` when the
 * account is not `active` or nothing is available; `alert` below
 * BILLING_ALERT_BELOW_CAD (default 100 CAD) available; `warning` below
 * BILLING_WARNING_BELOW_CAD (default 250 CAD); `ok` otherwise.
 */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import type { AccountStatus } from "../db/schema/enums.js";
import { ledgerEntries, preauthorizations } from "../db/schema/index.js";
import { fromCents, toCents } from "../money.js";

/** Spending levels, from best to worst. */
export const SPENDING_LEVELS = ["ok", "warning", "alert", "blocked"] as const;
export type SpendingLevel = (typeof SPENDING_LEVELS)[number];

/** An account's money, CAD. */
export interface AccountBalance {
  /** Sum of the ledger. */
  balance_cad: number;
  /** Held by live pre-authorizations. */
  held_cad: number;
  /** balance − held. */
  available_balance_cad: number;
}

/** The balance of `accountId` at `now`. */
export async function accountBalance(
  accountId: string,
  db?: Db | Tx,
  now = new Date(),
): Promise<AccountBalance> {
  const handle = db ?? (await getDb());
  const [ledger] = await handle
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountCad}), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.accountId, accountId));
  const [holds] = await handle
    .select({ sum: sql<string>`coalesce(sum(${preauthorizations.amountCad}), 0)` })
    .from(preauthorizations)
    .where(
      and(
        eq(preauthorizations.accountId, accountId),
        isNull(preauthorizations.consumedAt),
        gt(preauthorizations.validUntil, now),
      ),
    );
  const balance = toCents(Number(ledger?.sum ?? 0));
  const held = toCents(Number(holds?.sum ?? 0));
  return {
    balance_cad: fromCents(balance),
    held_cad: fromCents(held),
    available_balance_cad: fromCents(balance - held),
  };
}

/** The spending level of an account in `status` with `availableCad` available. */
export function spendingLevel(status: AccountStatus, availableCad: number): SpendingLevel {
  const config = getConfig();
  if (status !== "active" || availableCad <= 0) return "blocked";
  if (availableCad < config.BILLING_ALERT_BELOW_CAD) return "alert";
  if (availableCad < config.BILLING_WARNING_BELOW_CAD) return "warning";
  return "ok";
}

/** True when `after` is a worse level than `before`. */
export function isWorse(after: SpendingLevel, before: SpendingLevel): boolean {
  return SPENDING_LEVELS.indexOf(after) > SPENDING_LEVELS.indexOf(before);
}

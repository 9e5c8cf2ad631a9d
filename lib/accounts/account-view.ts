/** The `account` object of the client-account responses (spec "Prepaid client account"). */
import { accountBalance, type SpendingLevel, spendingLevel } from "../billing/balance.js";
import { type PostalAddress, postalAddress } from "../billing/postal-address.js";
import type { Db, Tx } from "../db/client.js";
import type { ClientAccount } from "../db/schema/index.js";

/** The JSON form of an account. */
export interface AccountView {
  account_id: string;
  org_id: string;
  name: string;
  email: string;
  email_verified: boolean;
  company_name: string | null;
  phone: string | null;
  address: PostalAddress;
  lang: "fr" | "en";
  status: ClientAccount["status"];
  balance_cad: number;
  held_cad: number;
  available_balance_cad: number;
  spending_level: SpendingLevel;
  discount_percent: number;
  has_password: boolean;
  tos_accepted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** `account` with its derived balance. */
export async function accountView(account: ClientAccount, db?: Db | Tx): Promise<AccountView> {
  const balance = await accountBalance(account.id, db);
  return {
    account_id: account.id,
    org_id: account.orgId,
    name: account.contactName,
    email: account.email,
    email_verified: account.emailVerifiedAt !== null,
    company_name: account.companyName,
    phone: account.phone,
    address: postalAddress(account),
    lang: account.lang,
    status: account.status,
    ...balance,
    spending_level: spendingLevel(account.status, balance.available_balance_cad),
    discount_percent: account.discountPercent,
    has_password: account.passwordHash !== null,
    tos_accepted_at: account.tosAcceptedAt?.toISOString() ?? null,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}

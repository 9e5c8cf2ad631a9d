/**
 * The one place that decides whether an e-mail address is verified: it belongs to a client
 * account whose `email_verified_at` is set (the account's owner followed the verification link).
 * Addresses given only as a task's `requester_contact` or an API key's `contact` are not verified.
 */
import { and, inArray, isNotNull } from "drizzle-orm";
import type { Db, Tx } from "../db/client.js";
import { clientAccounts } from "../db/schema/index.js";

/**
 * Which of `addresses` are verified.
 * @param db the database or the current transaction
 * @param addresses e-mail addresses, any case
 * @returns the verified ones, lowercased (client_accounts.email is stored lowercase)
 */
export async function verifiedAddresses(db: Db | Tx, addresses: readonly string[]): Promise<Set<string>> {
  const wanted = [...new Set(addresses.map((a) => a.trim().toLowerCase()))];
  if (wanted.length === 0) return new Set();
  const rows = await db
    .select({ email: clientAccounts.email })
    .from(clientAccounts)
    .where(and(inArray(clientAccounts.email, wanted), isNotNull(clientAccounts.emailVerifiedAt)));
  return new Set(rows.map((r) => r.email.toLowerCase()));
}

/**
 * `agent_id` of the billing operations (spec "Billing"): an e-mail (the account's) or
 * the name of an API key linked to the account. A non-admin caller sees only the account its
 * own key is **linked** to by the account's verified owner (lib/keys/account-keys.ts): `agent_id`
 * must be that account's e-mail or the name of an active key linked to the same account. The
 * caller's typed contact e-mail grants nothing. An admin sees any account.
 */
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { findAccountForKey, getAccountByEmailOrThrow } from "../accounts/store/find-account.js";
import { getDb } from "../db/client.js";
import { apiKeys, type ClientAccount, clientAccounts } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/authenticate.js";

/**
 * The account `agentId` names, as seen by `caller`.
 * @throws DomainError FORBIDDEN (not the caller's linked account, or the caller's key is linked to
 *   none), NOT_FOUND (admin: no such account or key name), VALIDATION_ERROR (admin: a key name
 *   linked to several accounts: use the e-mail)
 */
export async function resolveBillingAccount(caller: Caller, agentId: string): Promise<ClientAccount> {
  const id = agentId.trim();
  if (!caller.isAdmin) {
    const own = await findAccountForKey(caller.keyId);
    if (!own) throw forbidden();
    if (id.includes("@")) {
      if (id.toLowerCase() !== own.email) throw forbidden();
      return own;
    }
    const db = await getDb();
    const [named] = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.name, id), isNull(apiKeys.revokedAt), eq(apiKeys.accountId, own.id)))
      .limit(1);
    if (!named) throw forbidden();
    return own;
  }
  if (id.includes("@")) return getAccountByEmailOrThrow(id.toLowerCase());
  const db = await getDb();
  const rows = await db
    .selectDistinct({ account: clientAccounts })
    .from(apiKeys)
    .innerJoin(clientAccounts, eq(clientAccounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.name, id), isNull(apiKeys.revokedAt), isNotNull(apiKeys.accountId)));
  if (rows.length === 0) {
    throw new DomainError("NOT_FOUND", `No active API key named ${id} is linked to an account`, {
      field: "agent_id",
    });
  }
  if (rows.length > 1) {
    throw new DomainError(
      "VALIDATION_ERROR",
      `Keys named ${id} are linked to several accounts; use the account e-mail`,
      {
        field: "agent_id",
      },
    );
  }
  return rows[0]!.account;
}

function forbidden(): DomainError {
  return new DomainError(
    "FORBIDDEN",
    "agent_id must be the account your key is linked to: its e-mail or the name of a key linked to it " +
      "(the account's owner links keys when signed in: the client dashboard or POST /api/account-keys)",
    { field: "agent_id" },
  );
}

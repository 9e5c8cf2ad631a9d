/**
 * Lookups of prepaid client accounts (by id, e-mail, or an API key linked to the account) and the
 * row lock every ledger writer takes. Billing owns them (the account is what a task is billed to
 * and what the ledger locks); lib/accounts (registration, the owner's and the operator's views)
 * builds on them, so the two folders depend one way only.
 */
import { eq } from "drizzle-orm";
import { type Db, getDb, type Tx } from "../../db/client.js";
import {
  apiKeys,
  type ClientAccount,
  clientAccounts,
  erasureRequests,
  pendingErasureOf,
} from "../../db/schema/index.js";
import { DomainError } from "../../errors.js";

/** The account with e-mail `email` (case-insensitive), or undefined. */
export async function findAccountByEmail(email: string, db?: Db | Tx): Promise<ClientAccount | undefined> {
  const handle = db ?? (await getDb());
  const [row] = await handle
    .select()
    .from(clientAccounts)
    .where(eq(clientAccounts.email, email.trim().toLowerCase()));
  return row;
}

/** The account `id`, or undefined. */
export async function findAccountById(id: string, db?: Db | Tx): Promise<ClientAccount | undefined> {
  const handle = db ?? (await getDb());
  const [row] = await handle.select().from(clientAccounts).where(eq(clientAccounts.id, id));
  return row;
}

/**
 * The account key `keyId` is linked to (`api_keys.account_id`, set only by the account's verified
 * owner: lib/keys/account-keys.ts), or undefined. This is the account a task submitted with the key
 * is billed to and the only account the key may read. The key's typed `contact` plays no part.
 * Read from the database on every call (never from the per-instance key cache), so an unlink holds
 * at once everywhere.
 */
export async function findAccountForKey(keyId: string, db?: Db | Tx): Promise<ClientAccount | undefined> {
  const handle = db ?? (await getDb());
  const [row] = await handle
    .select({ account: clientAccounts })
    .from(apiKeys)
    .innerJoin(clientAccounts, eq(clientAccounts.id, apiKeys.accountId))
    .where(eq(apiKeys.id, keyId));
  return row?.account;
}

/**
 * The account key `keyId` is linked to.
 * @throws DomainError NOT_FOUND (with a suggestion) when the key is linked to none
 */
export async function getAccountForKeyOrThrow(keyId: string, db?: Db | Tx): Promise<ClientAccount> {
  const account = await findAccountForKey(keyId, db);
  if (!account) {
    throw new DomainError("NOT_FOUND", "This API key is not linked to a prepaid account", {
      extra: {
        suggestion:
          "The account's owner links keys when signed in: the client dashboard (API keys) or POST /api/account-keys",
      },
    });
  }
  return account;
}

/**
 * The account with e-mail `email`.
 * @throws DomainError NOT_FOUND
 */
export async function getAccountByEmailOrThrow(email: string, db?: Db | Tx): Promise<ClientAccount> {
  const account = await findAccountByEmail(email, db);
  if (!account) {
    throw new DomainError("NOT_FOUND", `No prepaid account for ${email.trim().toLowerCase()}`, {
      extra: { suggestion: "Create one with POST /api/client-account" },
    });
  }
  return account;
}

/**
 * Locks the account row (`SELECT … FOR UPDATE`) for the rest of `tx`: every writer that
 * debits or credits the ledger takes this lock first, so balances are checked and
 * changed one writer at a time.
 * @throws DomainError NOT_FOUND
 */
export async function lockAccount(tx: Tx, accountId: string): Promise<ClientAccount> {
  const [row] = await tx.select().from(clientAccounts).where(eq(clientAccounts.id, accountId)).for("update");
  if (!row) throw new DomainError("NOT_FOUND", `No account ${accountId}`);
  return row;
}

/**
 * True when `accountId` has a pending erasure request: the account is on hold (no charge, no
 * deposit, keys refused) until the request is processed or withdrawn (docs/privacy.md).
 */
export async function erasurePending(db: Db | Tx, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: erasureRequests.id })
    .from(erasureRequests)
    .where(pendingErasureOf(accountId))
    .limit(1);
  return row !== undefined;
}

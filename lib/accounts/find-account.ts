/** Lookups of prepaid client accounts (by id, e-mail, or the contact of an API key). */
import { eq } from "drizzle-orm";
import { type Db, getDb, type Tx } from "../db/client.js";
import { apiKeys, type ClientAccount, clientAccounts } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";

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
 * The account a task submitted with key `keyId` is billed to: the account whose e-mail is
 * that key's contact e-mail (README "Accounts, billing and client login"), or undefined.
 */
export async function findAccountForKey(keyId: string, db?: Db | Tx): Promise<ClientAccount | undefined> {
  const handle = db ?? (await getDb());
  const [row] = await handle
    .select({ account: clientAccounts })
    .from(apiKeys)
    .innerJoin(clientAccounts, eq(clientAccounts.email, apiKeys.contact))
    .where(eq(apiKeys.id, keyId));
  return row?.account;
}

/**
 * The account with e-mail `email`.
 * @throws ApiError NOT_FOUND
 */
export async function getAccountByEmailOrThrow(email: string, db?: Db | Tx): Promise<ClientAccount> {
  const account = await findAccountByEmail(email, db);
  if (!account) {
    throw new ApiError("NOT_FOUND", `No prepaid account for ${email.trim().toLowerCase()}`, {
      extra: { suggestion: "Create one with POST /api/client-account" },
    });
  }
  return account;
}

/**
 * Locks the account row (`SELECT … FOR UPDATE`) for the rest of `tx`: every writer that
 * debits or credits the ledger takes this lock first, so balances are checked and
 * changed one writer at a time.
 * @throws ApiError NOT_FOUND
 */
export async function lockAccount(tx: Tx, accountId: string): Promise<ClientAccount> {
  const [row] = await tx.select().from(clientAccounts).where(eq(clientAccounts.id, accountId)).for("update");
  if (!row) throw new ApiError("NOT_FOUND", `No account ${accountId}`);
  return row;
}

/**
 * `agent_id` of the billing operations (spec "Billing"): an e-mail (the account's) or
 * the name of an API key (whose contact e-mail is the account's). A caller sees only
 * its own account (its key's contact e-mail, or the name of an active key registered
 * to that contact); an admin sees any.
 */
import { and, eq, isNull } from "drizzle-orm";
import { getAccountByEmailOrThrow } from "../accounts/find-account.js";
import { getDb } from "../db/client.js";
import { apiKeys, type ClientAccount } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import type { Caller } from "../keys/authenticate.js";

/**
 * The account `agentId` names, as seen by `caller`.
 * @throws ApiError FORBIDDEN (another client's account), NOT_FOUND (no such account or key
 *   name), VALIDATION_ERROR (a key name shared by several contacts: use the e-mail)
 */
export async function resolveBillingAccount(caller: Caller, agentId: string): Promise<ClientAccount> {
  const id = agentId.trim();
  if (id.includes("@")) {
    const email = id.toLowerCase();
    if (!caller.isAdmin && email !== caller.contact) throw forbidden();
    return getAccountByEmailOrThrow(email);
  }
  const db = await getDb();
  const rows = await db
    .selectDistinct({ contact: apiKeys.contact })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.name, id),
        isNull(apiKeys.revokedAt),
        ...(caller.isAdmin ? [] : [eq(apiKeys.contact, caller.contact)]),
      ),
    );
  if (rows.length === 0) {
    if (!caller.isAdmin) throw forbidden();
    throw new ApiError("NOT_FOUND", `No active API key named ${id}`, { field: "agent_id" });
  }
  if (rows.length > 1) {
    throw new ApiError("VALIDATION_ERROR", `Several clients have a key named ${id}; use the account e-mail`, {
      field: "agent_id",
    });
  }
  return getAccountByEmailOrThrow(rows[0]!.contact);
}

function forbidden(): ApiError {
  return new ApiError(
    "FORBIDDEN",
    "agent_id must be your own account: your key's contact e-mail or the name of one of your keys",
    { field: "agent_id" },
  );
}

/**
 * The records of one client (the "subject" of an access or erasure request): their account,
 * the API keys linked to it or that opened it, the tasks those keys submitted or that name the
 * account or its e-mail, and the webhooks of those keys. Export and de-identification both
 * start from this set, so they cover the same rows.
 */
import { eq, inArray, or } from "drizzle-orm";
import type { Db, Tx } from "../db/client.js";
import { apiKeys, type ClientAccount, tasks, webhooks } from "../db/schema/index.js";

/** Ids of everything that belongs to one account. */
export interface SubjectScope {
  account: ClientAccount;
  keyIds: string[];
  taskIds: string[];
  webhookIds: string[];
}

/** Collects the ids of `account`'s keys, tasks and webhooks (see the module comment). */
export async function subjectScope(db: Db | Tx, account: ClientAccount): Promise<SubjectScope> {
  const keyRows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      account.apiKeyId
        ? or(eq(apiKeys.accountId, account.id), eq(apiKeys.id, account.apiKeyId))
        : eq(apiKeys.accountId, account.id),
    );
  const keyIds = keyRows.map((r) => r.id);
  const taskRows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      or(
        eq(tasks.accountId, account.id),
        eq(tasks.requesterContact, account.email),
        inArray(tasks.apiKeyId, keyIds),
      ),
    );
  const hookRows = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(inArray(webhooks.apiKeyId, keyIds));
  return {
    account,
    keyIds,
    taskIds: taskRows.map((r) => r.id),
    webhookIds: hookRows.map((r) => r.id),
  };
}

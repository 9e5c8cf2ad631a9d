/**
 * The records of one client (the "subject" of an access or erasure request; issue 25): the rows
 * the subject owns — their account, the API keys linked to it (by the account's owner, never the
 * key that merely opened the account: its contact is typed by whoever created it), the tasks
 * those keys submitted or charged to the account, their events, proof files, ratings and
 * transfers, the webhooks of those keys and their deliveries, the account's invoices, ledger and
 * pre-authorizations, its sessions, the e-mails of the account and of its tasks, and the activity of
 * its keys. Export and
 * de-identification both start from this set, so they cover the same rows.
 *
 * Tasks of others whose typed `requester_contact` is the account's e-mail are not the subject's:
 * they are listed apart (`namedTaskIds`), never exported (nor the e-mails about them), and
 * de-identification replaces only their requester contact and the address of the e-mails sent to
 * it, once they are terminal (lib/privacy/erasure.ts). Another tenant's
 * keys, webhooks and deliveries are never in the set.
 */
import { and, eq, inArray, isNull, or, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Db, Tx } from "../db/client.js";
import type { ClientAccount } from "../db/schema/index.js";
import * as t from "../db/schema/index.js";

/**
 * The condition that selects the subject's rows in each table holding personal information,
 * by export section name. Export reads these rows and de-identification rewrites or deletes
 * them, so both use this one definition.
 */
export interface SubjectRows {
  api_keys: SQL;
  sessions: SQL;
  tasks: SQL;
  task_events: SQL | undefined;
  proof_files: SQL;
  task_scores: SQL;
  chain_transfers: SQL;
  invoices: SQL;
  ledger_entries: SQL;
  preauthorizations: SQL;
  emails: SQL | undefined;
  activity: SQL | undefined;
  webhooks: SQL;
  deliveries: SQL | undefined;
  erasure_requests: SQL;
  privacy_audit: SQL;
}

/** The table of each section of `SubjectRows`, in the order the export lists them. */
export const SUBJECT_TABLES = {
  api_keys: t.apiKeys,
  sessions: t.clientSessions,
  tasks: t.tasks,
  task_events: t.taskEvents,
  proof_files: t.proofFiles,
  task_scores: t.taskScores,
  chain_transfers: t.chainTransfers,
  invoices: t.invoices,
  ledger_entries: t.ledgerEntries,
  preauthorizations: t.preauthorizations,
  emails: t.emails,
  activity: t.activityLog,
  webhooks: t.webhooks,
  deliveries: t.deliveries,
  erasure_requests: t.erasureRequests,
  privacy_audit: t.privacyAudit,
} satisfies Record<keyof SubjectRows, PgTable>;

/** Ids of everything that belongs to one account, and the row conditions built from them. */
export interface SubjectScope {
  account: ClientAccount;
  /** Keys linked to the account (`api_keys.account_id`). */
  keyIds: string[];
  /** Tasks the subject owns: submitted by `keyIds` or charged to the account. */
  taskIds: string[];
  /** Tasks of others that only name the account's e-mail as `requester_contact`. */
  namedTaskIds: string[];
  /** Webhooks of `keyIds`. */
  webhookIds: string[];
  rows: SubjectRows;
}

/** The row conditions of `subjectRows` for `account` and the ids collected for it. */
function subjectRows(
  account: ClientAccount,
  keyIds: string[],
  taskIds: string[],
  webhookIds: string[],
): SubjectRows {
  return {
    api_keys: inArray(t.apiKeys.id, keyIds),
    sessions: eq(t.clientSessions.accountId, account.id),
    tasks: inArray(t.tasks.id, taskIds),
    task_events: or(inArray(t.taskEvents.taskId, taskIds), eq(t.taskEvents.accountId, account.id)),
    proof_files: inArray(t.proofFiles.taskId, taskIds),
    task_scores: inArray(t.taskScores.taskId, taskIds),
    chain_transfers: inArray(t.chainTransfers.taskId, taskIds),
    invoices: eq(t.invoices.accountId, account.id),
    ledger_entries: eq(t.ledgerEntries.accountId, account.id),
    preauthorizations: eq(t.preauthorizations.accountId, account.id),
    // The account's messages, its tasks' messages, and the messages to its address that concern no
    // task of another (those are the other's records: only their address is the subject's, see
    // lib/privacy/erasure.ts).
    emails: or(
      eq(t.emails.accountId, account.id),
      inArray(t.emails.taskId, taskIds),
      and(eq(t.emails.toAddress, account.email), isNull(t.emails.taskId)),
    ),
    // Only the rows of the subject's keys: an `org_id` is typed by the caller (X-Agent-Identity).
    activity: inArray(t.activityLog.apiKeyId, keyIds),
    webhooks: inArray(t.webhooks.id, webhookIds),
    // Deliveries to the subject's webhooks, and the callbacks of its tasks; never another key's webhook.
    deliveries: or(
      inArray(t.deliveries.webhookId, webhookIds),
      and(isNull(t.deliveries.webhookId), inArray(t.deliveries.taskId, taskIds)),
    ),
    erasure_requests: eq(t.erasureRequests.accountId, account.id),
    privacy_audit: eq(t.privacyAudit.accountId, account.id),
  };
}

/**
 * Collects the ids of `account`'s keys, tasks and webhooks, the tasks of others naming its e-mail
 * (see the module comment), and the row conditions.
 * @returns the scope; the database's errors
 */
export async function subjectScope(db: Db | Tx, account: ClientAccount): Promise<SubjectScope> {
  const keyRows = await db
    .select({ id: t.apiKeys.id })
    .from(t.apiKeys)
    .where(eq(t.apiKeys.accountId, account.id));
  const keyIds = keyRows.map((r) => r.id);
  const taskRows = await db
    .select({ id: t.tasks.id })
    .from(t.tasks)
    .where(or(eq(t.tasks.accountId, account.id), inArray(t.tasks.apiKeyId, keyIds)));
  const taskIds = taskRows.map((r) => r.id);
  const owned = new Set(taskIds);
  const namedRows = await db
    .select({ id: t.tasks.id })
    .from(t.tasks)
    .where(eq(t.tasks.requesterContact, account.email.toLowerCase()));
  const namedTaskIds = namedRows.map((r) => r.id).filter((id) => !owned.has(id));
  const hookRows = await db
    .select({ id: t.webhooks.id })
    .from(t.webhooks)
    .where(inArray(t.webhooks.apiKeyId, keyIds));
  const webhookIds = hookRows.map((r) => r.id);
  return {
    account,
    keyIds,
    taskIds,
    namedTaskIds,
    webhookIds,
    rows: subjectRows(account, keyIds, taskIds, webhookIds),
  };
}

/**
 * The records of one client (the "subject" of an access or erasure request; issue 25): the rows
 * the subject owns — their account, the API keys linked to it (by the account's owner, never the
 * key that merely opened the account: its contact is typed by whoever created it), the tasks
 * those keys submitted or charged to the account, their events, proof files, disputes and their
 * evidence files, ratings and
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
 *
 * The sets are subqueries, never id lists read first and bound back: an account with 110,000
 * tasks would bind that many parameters, past the protocol's 65,535 (issue 32 item 5).
 */
import { and, eq, getTableColumns, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { getTableConfig, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
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
  task_disputes: SQL;
  dispute_files: SQL;
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
  task_disputes: t.taskDisputes,
  dispute_files: t.disputeFiles,
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

/**
 * The key the export pages `table` by and erasure chunks it by: its single-column primary key, else
 * the columns of its composite primary key in order (the partitioned `activity_log`: `(at, id)`,
 * docs/decisions.md 27). Unique, and read in order through the primary key's index.
 * @throws Error when the table has no primary key (a schema change this module must follow)
 */
export function tableKey(table: PgTable): PgColumn[] {
  const columns = Object.values(getTableColumns(table));
  const single = columns.find((c) => c.primary);
  if (single) return [single];
  const composite = getTableConfig(table).primaryKeys[0];
  if (!composite) throw new Error(`subject table ${getTableConfig(table).name} without a primary key`);
  // The table's own columns, by name: the key's copies are bare (their SQL type is not theirs to tell).
  return composite.columns.map((key) => columns.find((c) => c.name === key.name)!);
}

/** Everything that belongs to one account, and the row conditions built from it. */
export interface SubjectScope {
  account: ClientAccount;
  /** Tasks of others that only name the account's e-mail as `requester_contact`. */
  namedTaskIds: string[];
  rows: SubjectRows;
}

/**
 * The row conditions of `SubjectRows` for `account`. The subject's keys, tasks and webhooks are
 * subqueries evaluated by each statement (one parameter, the account id, whatever their number),
 * so a statement that rewrites them sees the same set as the export.
 */
function subjectRows(db: Db | Tx, account: ClientAccount): SubjectRows {
  const keys = db.select({ id: t.apiKeys.id }).from(t.apiKeys).where(eq(t.apiKeys.accountId, account.id));
  const ownedTask = or(eq(t.tasks.accountId, account.id), inArray(t.tasks.apiKeyId, keys))!;
  const ownedTasks = db.select({ id: t.tasks.id }).from(t.tasks).where(ownedTask);
  const hooks = db.select({ id: t.webhooks.id }).from(t.webhooks).where(inArray(t.webhooks.apiKeyId, keys));
  return {
    api_keys: eq(t.apiKeys.accountId, account.id),
    sessions: eq(t.clientSessions.accountId, account.id),
    tasks: ownedTask,
    task_events: or(inArray(t.taskEvents.taskId, ownedTasks), eq(t.taskEvents.accountId, account.id)),
    proof_files: inArray(t.proofFiles.taskId, ownedTasks),
    task_disputes: inArray(t.taskDisputes.taskId, ownedTasks),
    dispute_files: inArray(
      t.disputeFiles.disputeId,
      db
        .select({ id: t.taskDisputes.id })
        .from(t.taskDisputes)
        .where(inArray(t.taskDisputes.taskId, ownedTasks)),
    ),
    task_scores: inArray(t.taskScores.taskId, ownedTasks),
    chain_transfers: inArray(t.chainTransfers.taskId, ownedTasks),
    invoices: eq(t.invoices.accountId, account.id),
    ledger_entries: eq(t.ledgerEntries.accountId, account.id),
    preauthorizations: eq(t.preauthorizations.accountId, account.id),
    // The account's messages, its tasks' messages, and the messages to its address that concern no
    // task of another (those are the other's records: only their address is the subject's, see
    // lib/privacy/erasure.ts).
    emails: or(
      eq(t.emails.accountId, account.id),
      inArray(t.emails.taskId, ownedTasks),
      and(eq(t.emails.toAddress, account.email), isNull(t.emails.taskId)),
    ),
    // Only the rows of the subject's keys: an `org_id` is typed by the caller (X-Agent-Identity).
    activity: inArray(t.activityLog.apiKeyId, keys),
    webhooks: inArray(t.webhooks.apiKeyId, keys),
    // Deliveries to the subject's webhooks, and the callbacks of its tasks; never another key's webhook.
    deliveries: or(
      inArray(t.deliveries.webhookId, hooks),
      and(isNull(t.deliveries.webhookId), inArray(t.deliveries.taskId, ownedTasks)),
    ),
    erasure_requests: eq(t.erasureRequests.accountId, account.id),
    privacy_audit: eq(t.privacyAudit.accountId, account.id),
  };
}

/**
 * The row conditions of `account`'s records and the ids of the tasks of others naming its e-mail
 * (see the module comment).
 * @returns the scope; the database's errors
 */
export async function subjectScope(db: Db | Tx, account: ClientAccount): Promise<SubjectScope> {
  const rows = subjectRows(db, account);
  const namedRows = await db
    .select({ id: t.tasks.id })
    .from(t.tasks)
    // coalesce: an anonymous task has neither account nor key, and `not null` would drop it.
    .where(
      and(eq(t.tasks.requesterContact, account.email.toLowerCase()), sql`not coalesce(${rows.tasks}, false)`),
    );
  return { account, namedTaskIds: namedRows.map((r) => r.id), rows };
}

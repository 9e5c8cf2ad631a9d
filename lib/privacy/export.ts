/**
 * The client's access and portability right (Law 25; docs/privacy.md): everything the service
 * holds about one account as one JSON document, `GET /api/client-account?action=export`.
 *
 * Sections are named by `DATA_CLASSIFICATION[table].export`; each row carries every column of
 * its table by database name except the `secret` ones (password and key hashes, encrypted
 * secrets). Proof file contents are not inlined (they can be megabytes): each row says where to
 * download them. bigint values are decimal strings, times ISO 8601.
 */
import { desc, eq, getTableColumns, inArray, or } from "drizzle-orm";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import { type Db, getDb, type Tx } from "../db/client.js";
import {
  activityLog,
  apiKeys,
  type ClientAccount,
  chainTransfers,
  clientAccounts,
  clientSessions,
  deliveries,
  emails,
  erasureRequests,
  invoices,
  ledgerEntries,
  preauthorizations,
  privacyAudit,
  proofFiles,
  taskEvents,
  taskScores,
  tasks,
  webhooks,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { DATA_CLASSIFICATION } from "./classification.js";
import { subjectScope } from "./subject.js";

/** Version of the export document's shape. */
export const EXPORT_FORMAT = "law25-export/1";

/** The export document: `format`, `generated_at`, `account` (one row) and one array per section. */
export type ExportDocument = Record<string, unknown>;

/**
 * One row of `table` as exported: database column names, no `secret` column, bigint as string,
 * binary content replaced by a note.
 */
export function exportRow(table: PgTable, row: Record<string, unknown>): Record<string, unknown> {
  const name = getTableConfig(table).name;
  const classes = DATA_CLASSIFICATION[name]?.columns ?? {};
  const out: Record<string, unknown> = {};
  for (const [prop, column] of Object.entries(getTableColumns(table))) {
    if (classes[column.name] === "secret") continue;
    const value = row[prop];
    if (typeof value === "bigint") out[column.name] = value.toString();
    else if (value instanceof Uint8Array)
      out[column.name] = "not inlined: proof_files_data of GET /api/submit-task?task_id=<task_id>";
    else out[column.name] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

const rows = (table: PgTable, list: Record<string, unknown>[]) => list.map((r) => exportRow(table, r));

/**
 * Builds the export of account `accountId` and records an `export` row in `privacy_audit` (with
 * the section counts), in one transaction.
 * @param actor `client` or `admin:<key id>`
 * @returns the document (see the module comment)
 * @throws DomainError NOT_FOUND (no such account)
 */
export async function exportAccountData(accountId: string, actor: string): Promise<ExportDocument> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [account] = await tx.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
    if (!account) throw new DomainError("NOT_FOUND", `No account ${accountId}`, { field: "account_id" });
    const doc = await buildExport(tx, account);
    const counts: Record<string, number> = {};
    for (const [k, v] of Object.entries(doc)) if (Array.isArray(v)) counts[k] = v.length;
    await tx.insert(privacyAudit).values({ action: "export", accountId: account.id, actor, details: counts });
    return doc;
  });
}

/** The document itself (no audit row). */
export async function buildExport(db: Db | Tx, account: ClientAccount): Promise<ExportDocument> {
  const scope = await subjectScope(db, account);
  const { keyIds, taskIds, webhookIds } = scope;
  return {
    format: EXPORT_FORMAT,
    generated_at: new Date().toISOString(),
    account: exportRow(clientAccounts, account),
    api_keys: rows(apiKeys, await db.select().from(apiKeys).where(inArray(apiKeys.id, keyIds))),
    sessions: rows(
      clientSessions,
      await db.select().from(clientSessions).where(eq(clientSessions.accountId, account.id)),
    ),
    tasks: rows(tasks, await db.select().from(tasks).where(inArray(tasks.id, taskIds))),
    task_events: rows(
      taskEvents,
      await db
        .select()
        .from(taskEvents)
        .where(or(inArray(taskEvents.taskId, taskIds), eq(taskEvents.accountId, account.id)))
        .orderBy(taskEvents.seq),
    ),
    proof_files: rows(
      proofFiles,
      await db.select().from(proofFiles).where(inArray(proofFiles.taskId, taskIds)),
    ),
    task_scores: rows(
      taskScores,
      await db.select().from(taskScores).where(inArray(taskScores.taskId, taskIds)),
    ),
    chain_transfers: rows(
      chainTransfers,
      await db.select().from(chainTransfers).where(inArray(chainTransfers.taskId, taskIds)),
    ),
    invoices: rows(invoices, await db.select().from(invoices).where(eq(invoices.accountId, account.id))),
    ledger_entries: rows(
      ledgerEntries,
      await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, account.id)),
    ),
    preauthorizations: rows(
      preauthorizations,
      await db.select().from(preauthorizations).where(eq(preauthorizations.accountId, account.id)),
    ),
    emails: rows(
      emails,
      await db
        .select()
        .from(emails)
        .where(
          or(
            eq(emails.toAddress, account.email),
            eq(emails.accountId, account.id),
            inArray(emails.taskId, taskIds),
          ),
        ),
    ),
    activity: rows(
      activityLog,
      await db
        .select()
        .from(activityLog)
        .where(or(inArray(activityLog.apiKeyId, keyIds), eq(activityLog.orgId, account.orgId)))
        .orderBy(desc(activityLog.at)),
    ),
    webhooks: rows(webhooks, await db.select().from(webhooks).where(inArray(webhooks.id, webhookIds))),
    deliveries: rows(
      deliveries,
      await db
        .select()
        .from(deliveries)
        .where(or(inArray(deliveries.taskId, taskIds), inArray(deliveries.webhookId, webhookIds))),
    ),
    erasure_requests: rows(
      erasureRequests,
      await db.select().from(erasureRequests).where(eq(erasureRequests.accountId, account.id)),
    ),
    privacy_audit: rows(
      privacyAudit,
      await db.select().from(privacyAudit).where(eq(privacyAudit.accountId, account.id)),
    ),
  };
}

/**
 * The client's access and portability right (Law 25; docs/privacy.md): everything the service
 * holds about one account as one JSON document, `GET /api/client-account?action=export`.
 *
 * Sections are named by `DATA_CLASSIFICATION[table].export`; each row carries every column of
 * its table by database name except the `secret` ones (password and key hashes, encrypted
 * secrets). Proof file contents are not inlined (they can be megabytes): each row says where to
 * download them. bigint values are decimal strings, times ISO 8601.
 */
import { desc, eq, getTableColumns, type SQL } from "drizzle-orm";
import { getTableConfig, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import {
  activityLog,
  type ClientAccount,
  clientAccounts,
  privacyAudit,
  taskEvents,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { DATA_CLASSIFICATION } from "./classification.js";
import { SUBJECT_TABLES, type SubjectRows, subjectScope } from "./subject.js";

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
      out[column.name] =
        name === "dispute_files"
          ? "not inlined: the evidence file sent with the dispute (size and sha256 listed)"
          : "not inlined: proof_files_data of GET /api/submit-task?task_id=<task_id>";
    else out[column.name] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

/** Sections listed in a set order (the others in the database's order). */
const SECTION_ORDER: Partial<Record<keyof SubjectRows, SQL | PgColumn>> = {
  task_events: taskEvents.seq,
  activity: desc(activityLog.at),
};

const rows = (table: PgTable, list: Record<string, unknown>[]) => list.map((r) => exportRow(table, r));

/**
 * Builds the export of account `accountId` and records an `export` row in `privacy_audit` (with
 * the section counts), in one transaction.
 * @param actor `client` or `admin:<key id>`
 * @returns the document (see the module comment)
 * @throws DomainError NOT_FOUND (no such account)
 */
export async function exportAccountData(accountId: string, actor: string): Promise<ExportDocument> {
  await flushActivityBeforeRead();
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
  const { rows: where } = await subjectScope(db, account);
  const doc: ExportDocument = {
    format: EXPORT_FORMAT,
    generated_at: new Date().toISOString(),
    account: exportRow(clientAccounts, account),
  };
  for (const [name, table] of Object.entries(SUBJECT_TABLES) as [keyof SubjectRows, PgTable][]) {
    const query = db.select().from(table).where(where[name]);
    const order = SECTION_ORDER[name];
    doc[name] = rows(table, await (order ? query.orderBy(order) : query));
  }
  return doc;
}

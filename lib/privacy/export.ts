/**
 * The client's access and portability right (Law 25; docs/privacy.md): everything the service
 * holds about one account as one JSON document, `GET /api/client-account?action=export`. The
 * answer is streamed (issue 32 item 4): each section is read in keyset pages of
 * {@link EXPORT_PAGE_ROWS} rows and written as it is read, so an account of any size never sits
 * whole in memory ({@link accountExportStream}).
 *
 * Sections are named by `DATA_CLASSIFICATION[table].export`; each row carries every column of
 * its table by database name except the `secret` ones (password and key hashes, encrypted
 * secrets). Proof file contents are not inlined (they can be megabytes): each row says where to
 * download them. bigint values are decimal strings, times ISO 8601.
 */
import { and, asc, desc, eq, getTableColumns, type SQL } from "drizzle-orm";
import { getTableConfig, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { type Db, getDb } from "../db/client.js";
import { keyCompare, keyOfRow, keysetPages, keyText } from "../db/keyset-pages.js";
import { type ClientAccount, clientAccounts, privacyAudit, taskEvents } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { describeError } from "../log-error.js";
import { primedTextStream } from "../text-stream.js";
import { DATA_CLASSIFICATION } from "./classification.js";
import { SUBJECT_TABLES, type SubjectRows, subjectScope, tableKey } from "./subject.js";

/** Version of the export document's shape. */
export const EXPORT_FORMAT = "law25-export/1";

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

/** Rows per page of the streamed export (one indexed range read each). */
export const EXPORT_PAGE_ROWS = 2_000;

/**
 * The key a section is read by, page after page: `task_events` in commit order (`seq`),
 * `activity` newest first (`(at, id)`), the others by primary key. Every key is unique, so
 * `key > last` (or `<`) starts the next page exactly after the last row.
 */
function sectionKey(name: keyof SubjectRows, table: PgTable): { key: PgColumn[]; desc: boolean } {
  if (name === "task_events") return { key: [taskEvents.seq], desc: false };
  return { key: tableKey(table), desc: name === "activity" };
}

/** The exported rows of one section, read in keyset pages of {@link EXPORT_PAGE_ROWS}. */
async function* sectionRows(
  db: Db,
  name: keyof SubjectRows,
  table: PgTable,
  where: SQL | undefined,
): AsyncGenerator<Record<string, unknown>> {
  const { key, desc: newestFirst } = sectionKey(name, table);
  const order = key.map((column) => (newestFirst ? desc(column) : asc(column)));
  const read = (after: string[] | null) =>
    db
      .select({ ...getTableColumns(table), ...keyText(key) })
      .from(table)
      .where(and(where, after === null ? undefined : keyCompare(key, newestFirst ? "<" : ">", after)))
      .orderBy(...order)
      .limit(EXPORT_PAGE_ROWS) as Promise<Record<string, unknown>[]>;
  for await (const page of keysetPages(read, (row) => keyOfRow(key, row), EXPORT_PAGE_ROWS)) {
    for (const row of page) yield exportRow(table, row);
  }
}

/**
 * The pieces of JSON text of `{ ...head, export: <the export document of account> }`, in order:
 * `head`'s members, then the document's header and each section as its pages are read. Records
 * the `export` row in `privacy_audit` first (who, when), and its section counts once written.
 */
async function* exportText(
  head: Record<string, unknown>,
  account: ClientAccount,
  actor: string,
): AsyncGenerator<string> {
  await flushActivityBeforeRead();
  const db = await getDb();
  const [audit] = await db
    .insert(privacyAudit)
    .values({ action: "export", accountId: account.id, actor, details: { streamed: true } })
    .returning({ id: privacyAudit.id });
  const { rows: where } = await subjectScope(db, account);
  const opening = JSON.stringify(head).slice(0, -1);
  yield `${opening}${opening.length > 1 ? "," : ""}"export":`;
  yield JSON.stringify({
    format: EXPORT_FORMAT,
    generated_at: new Date().toISOString(),
    account: exportRow(clientAccounts, account),
  }).slice(0, -1);
  const counts: Record<string, number> = {};
  for (const [name, table] of Object.entries(SUBJECT_TABLES) as [keyof SubjectRows, PgTable][]) {
    yield `,${JSON.stringify(name)}:[`;
    let n = 0;
    for await (const row of sectionRows(db, name, table, where[name])) {
      yield `${n === 0 ? "" : ","}${JSON.stringify(row)}`;
      n++;
    }
    counts[name] = n;
    yield "]";
  }
  yield "}}";
  await db
    .update(privacyAudit)
    .set({ details: { streamed: true, ...counts } })
    .where(eq(privacyAudit.id, audit!.id));
}

/**
 * The answer of `GET /api/client-account?action=export` as a byte stream: the JSON object `head`
 * (the account read) with its member `export`, the export document of account `accountId`,
 * written as its sections are read. A failure after the first bytes ends the stream with an
 * error (the client sees a truncated, invalid JSON document, never a partial one that parses).
 * @param actor `client` or `admin:<key id>` (the `privacy_audit` row)
 * @throws DomainError NOT_FOUND (no such account), before any byte
 */
export async function accountExportStream(
  accountId: string,
  actor: string,
  head: Record<string, unknown>,
): Promise<ReadableStream<Uint8Array>> {
  const db = await getDb();
  const [account] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
  if (!account) throw new DomainError("NOT_FOUND", `No account ${accountId}`, { field: "account_id" });
  return primedTextStream(exportText(head, account, actor), (error) =>
    console.error(`[export] account ${accountId}: ${describeError(error)}`),
  );
}

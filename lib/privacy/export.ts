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
import { and, asc, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import { getTableConfig, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { type Db, getDb } from "../db/client.js";
import { keyCompare, keyOfRow, keyText } from "../db/keyset-pages.js";
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

/**
 * One keyset page of a section: up to `limit` exported rows whose key follows `after` (null: the
 * section's start), and the key (as text) of the last one (null when the page is empty).
 */
async function sectionPage(
  db: Db,
  name: keyof SubjectRows,
  table: PgTable,
  where: SQL | undefined,
  after: string[] | null,
  limit: number,
): Promise<{ rows: Record<string, unknown>[]; last: string[] | null }> {
  const { key, desc: newestFirst } = sectionKey(name, table);
  const order = key.map((column) => (newestFirst ? desc(column) : asc(column)));
  const rows = (await db
    .select({ ...getTableColumns(table), ...keyText(key) })
    .from(table)
    .where(and(where, after === null ? undefined : keyCompare(key, newestFirst ? "<" : ">", after)))
    .orderBy(...order)
    .limit(limit)) as Record<string, unknown>[];
  const lastRow = rows.at(-1);
  return { rows: rows.map((row) => exportRow(table, row)), last: lastRow ? keyOfRow(key, lastRow) : null };
}

/** The exported rows of one section, read in keyset pages of {@link EXPORT_PAGE_ROWS}. */
async function* sectionRows(
  db: Db,
  name: keyof SubjectRows,
  table: PgTable,
  where: SQL | undefined,
): AsyncGenerator<Record<string, unknown>> {
  let after: string[] | null = null;
  for (;;) {
    const page = await sectionPage(db, name, table, where, after, EXPORT_PAGE_ROWS);
    yield* page.rows;
    if (page.rows.length < EXPORT_PAGE_ROWS) return;
    after = page.last;
  }
}

/** One section of the export document, read page by page from any point (an export job's chunks). */
export interface ExportSection {
  /** The section's member name in the document (`tasks`, `task_events`, …). */
  name: string;
  /**
   * Up to `limit` exported rows after the key `after` (null: from the start) in the section's
   * order, and the last row's key (text) to continue from.
   */
  page(
    after: string[] | null,
    limit: number,
  ): Promise<{ rows: Record<string, unknown>[]; last: string[] | null }>;
}

/**
 * The sections of the export document of `account`, in document order, each readable in pages
 * from a saved key (lib/exports/law25-job.ts writes them chunk by chunk).
 * @returns the document's header (`format`, `generated_at`, `account`) and the sections
 */
export async function exportSections(
  db: Db,
  account: ClientAccount,
): Promise<{ header: Record<string, unknown>; sections: ExportSection[] }> {
  const { rows: where } = await subjectScope(db, account);
  const sections = (Object.entries(SUBJECT_TABLES) as [keyof SubjectRows, PgTable][]).map(
    ([name, table]) => ({
      name,
      page: (after: string[] | null, limit: number) =>
        sectionPage(db, name, table, where[name], after, limit),
    }),
  );
  return {
    header: {
      format: EXPORT_FORMAT,
      generated_at: new Date().toISOString(),
      account: exportRow(clientAccounts, account),
    },
    sections,
  };
}

/**
 * The pieces of JSON text of `{ ...head, export: <the export document of account> }`, in order:
 * `head`'s members, then the document's header and each section as its pages are read, then its
 * `counts` (rows by section) and `complete: true` — the last members, which a reader of a body cut
 * short never sees (docs/privacy.md "Access and portability"; docs/decisions.md 50). Records the
 * `export` row in `privacy_audit` first (`outcome: started`), then `complete` with the section
 * counts, or `failed` with the error and the rows written when a read fails midway.
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
    .values({
      action: "export",
      accountId: account.id,
      actor,
      details: { delivery: "stream", outcome: "started" },
    })
    .returning({ id: privacyAudit.id });
  const { rows: where } = await subjectScope(db, account);
  const counts: Record<string, number> = {};
  try {
    const opening = JSON.stringify(head).slice(0, -1);
    yield `${opening}${opening.length > 1 ? "," : ""}"export":`;
    yield JSON.stringify({
      format: EXPORT_FORMAT,
      generated_at: new Date().toISOString(),
      account: exportRow(clientAccounts, account),
    }).slice(0, -1);
    for (const [name, table] of Object.entries(SUBJECT_TABLES) as [keyof SubjectRows, PgTable][]) {
      yield `,${JSON.stringify(name)}:[`;
      let n = 0;
      for await (const row of sectionRows(db, name, table, where[name])) {
        yield `${n === 0 ? "" : ","}${JSON.stringify(row)}`;
        n++;
        counts[name] = n;
      }
      counts[name] = n;
      yield "]";
    }
    yield `,"counts":${JSON.stringify(counts)},"complete":true}}`;
  } catch (error) {
    auditStreamFailure(audit!.id, account.id, counts, error);
    throw error;
  }
  await db
    .update(privacyAudit)
    .set({ details: { delivery: "stream", outcome: "complete", ...counts } })
    .where(eq(privacyAudit.id, audit!.id));
}

/** Attempts to audit a failed stream, and the pause between them, ms: the database may be what failed. */
const AUDIT_FAILURE_ATTEMPTS = 10;
const AUDIT_FAILURE_PAUSE_MS = 3_000;

/**
 * Marks the `export` audit row `id` failed (`outcome: failed`, the error, the rows written by
 * section). The database may be what failed: the update is retried in the background (up to
 * AUDIT_FAILURE_ATTEMPTS, AUDIT_FAILURE_PAUSE_MS apart) so the stream's error reaches the client at
 * once; a row never updated still says `started`, never complete. Every failed try is logged.
 */
function auditStreamFailure(
  id: number,
  accountId: string,
  counts: Record<string, number>,
  error: unknown,
): void {
  const details = {
    delivery: "stream",
    outcome: "failed",
    error: describeError(error).slice(0, 500),
    rows_written: { ...counts },
  };
  void (async () => {
    for (let attempt = 1; attempt <= AUDIT_FAILURE_ATTEMPTS; attempt++) {
      try {
        const db = await getDb();
        await db.update(privacyAudit).set({ details }).where(eq(privacyAudit.id, id));
        return;
      } catch (auditError) {
        console.error(
          `[export] account ${accountId}: the failure could not be audited (try ${attempt}): ${describeError(auditError)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, AUDIT_FAILURE_PAUSE_MS));
      }
    }
  })();
}

/**
 * The answer of `GET /api/client-account?action=export` as a byte stream: the JSON object `head`
 * (the account read) with its member `export`, the export document of account `accountId`,
 * written as its sections are read, ending with `export.counts` and `export.complete: true`. A
 * failure after the first bytes ends the stream with an error (the client sees a truncated, invalid
 * JSON document without `complete`, never a partial one that parses) and audits the export as
 * failed.
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

/** The sections whose size decides whether an account's export runs as a job (the large ones). */
const SIZED_SECTIONS = ["tasks", "ledger_entries", "activity"] as const;

/**
 * Whether the export of `account` is past `threshold` rows: its tasks, ledger entries or activity
 * rows, each counted up to `threshold + 1` (a capped count: at most that many index entries read,
 * whatever the account's size). docs/decisions.md 48.
 */
export async function accountExportExceeds(
  db: Db,
  account: ClientAccount,
  threshold: number,
): Promise<boolean> {
  const { rows: where } = await subjectScope(db, account);
  for (const name of SIZED_SECTIONS) {
    const inner = db
      .select({ one: sql`1` })
      .from(SUBJECT_TABLES[name])
      .where(where[name])
      .limit(threshold + 1);
    const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(inner.as("capped"));
    if ((row?.n ?? 0) > threshold) return true;
  }
  return false;
}

/** The number of sections of the export document (an export job's progress). */
export const EXPORT_SECTION_COUNT = Object.keys(SUBJECT_TABLES).length;

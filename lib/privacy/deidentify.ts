/**
 * De-identification of an account (Law 25; docs/privacy.md "Erasure"), the step ./erasure.ts runs
 * when a request is due or processed early: every `personal` column of the subject's rows
 * (./subject.ts) replaced or cleared, the subject's files and e-mails deleted, its keys revoked,
 * the accounting records kept, the export files holding copies of its rows deleted, and the
 * requester contact of other tenants' terminal tasks naming the account's e-mail replaced. Large sections are changed in chunks of {@link ERASURE_CHUNK_ROWS}
 * rows inside the caller's transaction.
 */
import { and, asc, eq, exists, inArray, ne, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource } from "drizzle-orm/pg-core";
import { jsonList } from "../db/bulk.js";
import type { Db, Tx } from "../db/client.js";
import { keyCompare, keyOfRow, keysetPages, keyText } from "../db/keyset-pages.js";
import {
  activityLog,
  apiKeys,
  authTokens,
  type ClientAccount,
  clientAccounts,
  emails,
  exportJobParts,
  exportJobs,
  tasks,
  webhooks,
} from "../db/schema/index.js";
import { sha256Hex } from "../ids.js";
import { TERMINAL_STATUSES } from "../tasks/state/transitions.js";
import { SUBJECT_TABLES, type SubjectRows, subjectScope, tableKey } from "./subject.js";

/** Text put in place of de-identified required free text. */
export const DEIDENTIFIED = "[de-identified]";

/** A replacement e-mail address for `id`: unique, lowercase, undeliverable (`.invalid`, RFC 2606). */
export function erasedAddress(id: string): string {
  return `erased.${sha256Hex(id).slice(0, 20)}@deidentified.invalid`;
}

/**
 * Replaces the requester contact of the terminal tasks among `taskIds` (tasks of others that
 * named the e-mail of de-identified account `accountId`) with `erasedAddress(accountId)`, and the
 * recipient of the e-mails those tasks sent to it, and nothing else of them: their submitter's
 * data, keys, webhooks and deliveries stay (issue 25).
 * @returns the ids replaced now (a task not yet terminal, gone, or already replaced is skipped)
 */
export async function redactRequesterOfTerminal(
  tx: Db | Tx,
  accountId: string,
  taskIds: string[],
  now: Date,
): Promise<string[]> {
  if (taskIds.length === 0) return [];
  const erased = erasedAddress(accountId);
  // One jsonb parameter, however many ids (an unbounded `in (...)` list fails past 65,535; issue 32 item 5).
  const due = and(
    sql`${tasks.id} in ${jsonList(taskIds)}`,
    inArray(tasks.status, [...TERMINAL_STATUSES]),
    ne(tasks.requesterContact, erased),
  );
  // The e-mails first, while the tasks still name the address they were sent to.
  await tx
    .update(emails)
    .set({ toAddress: erased })
    .where(
      inArray(
        emails.id,
        tx
          .select({ id: emails.id })
          .from(emails)
          .innerJoin(tasks, and(eq(emails.taskId, tasks.id), eq(emails.toAddress, tasks.requesterContact)))
          .where(due),
      ),
    );
  const rows = await tx
    .update(tasks)
    .set({ requesterContact: erased, updatedAt: now })
    .where(due)
    .returning({ id: tasks.id });
  return rows.map((r) => r.id);
}

/** Rows rewritten or deleted per statement: each statement stays far inside the statement timeout. */
export const ERASURE_CHUNK_ROWS = 5_000;

/**
 * Applies `change` to the rows of `table` matching `where`, in chunks of {@link ERASURE_CHUNK_ROWS}
 * taken in key order (`tableKey`: one select of the chunk's keys, one statement of `change` on the
 * rows of `where` between its first and last key), so an
 * account with 100,000 tasks is rewritten in 20 short statements of one transaction rather than one
 * that passes the statement timeout. `where` must still select a row after `change` (rewrites keep
 * the owning columns) or the row must be gone (deletes): the next chunk starts after the last key.
 * @returns how many rows were changed
 */
async function inChunks(
  tx: Tx,
  table: PgTable,
  where: SQL | undefined,
  change: (rows: SQL) => Promise<unknown>,
): Promise<number> {
  const key = tableKey(table);
  const read = async (after: string[] | null) =>
    (
      await tx
        .select(keyText(key))
        .from(table)
        .where(and(where, after === null ? undefined : keyCompare(key, ">", after)))
        .orderBy(...key.map((column) => asc(column)))
        .limit(ERASURE_CHUNK_ROWS)
    ).map((row) => keyOfRow(key, row));
  let count = 0;
  for await (const keys of keysetPages(read, (k) => k, ERASURE_CHUNK_ROWS)) {
    // The chunk's rows are those of `where` from its first key to its last, bounds bound as two
    // parameters each (never one per row).
    await change(and(where, keyCompare(key, ">=", keys[0]!), keyCompare(key, "<=", keys.at(-1)!))!);
    count += keys.length;
  }
  return count;
}

/**
 * De-identifies everything of `account` in `tx` (see the module comment) and returns the
 * counts per table, with `named_tasks_redacted` (tasks of others naming the e-mail, terminal:
 * requester contact replaced) and `named_tasks_pending` (their ids not yet terminal, which
 * `redactNamedTasks` replaces later); the caller writes them in the audit row. Revoked keys are
 * forgotten by the key cache after commit.
 */
export async function deidentifyAccount(
  tx: Tx,
  account: ClientAccount,
  now = new Date(),
): Promise<Record<string, number | string[]>> {
  const { rows: where, namedTaskIds } = await subjectScope(tx, account);
  const counts: Record<string, number | string[]> = {};

  const keys = await tx
    .update(apiKeys)
    .set({
      name: DEIDENTIFIED,
      contact: erasedAddress(account.id),
      createdIp: null,
      revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})`,
    })
    .where(where.api_keys)
    .returning({ id: apiKeys.id });
  // A revoked key stops authenticating within API_KEY_CACHE_TTL_MS (the per-instance key cache).
  counts.api_keys = keys.length;

  /** Sets `values` on the subject's rows of section `name` and counts them. */
  const rewrite = async <N extends keyof SubjectRows>(
    name: N,
    values: PgUpdateSetSource<(typeof SUBJECT_TABLES)[N]>,
  ) => {
    const table = SUBJECT_TABLES[name];
    counts[name] = await inChunks(tx, table, where[name], (rows) => tx.update(table).set(values).where(rows));
  };
  /** Deletes the subject's rows of section `name` and counts them. */
  const remove = async (name: keyof SubjectRows) => {
    const table = SUBJECT_TABLES[name];
    counts[name] = await inChunks(tx, table, where[name], (rows) => tx.delete(table).where(rows));
  };

  await rewrite("tasks", {
    locationAddress: DEIDENTIFIED,
    taskDescription: DEIDENTIFIED,
    requesterContact: erasedAddress(account.id),
    specialInstructions: null,
    callbackUrl: null,
    agentIdentity: null,
    accessTokenHash: null,
    location: null,
    reviewReason: null,
    operatorNotes: null,
    failureReason: null,
    noVisitReason: null,
    cancelReason: null,
    refundNote: null,
    // The screen's record quotes the description's matched words; the receipt signs the location.
    policy: null,
    receipt: null,
    updatedAt: now,
  });
  const redacted = await redactRequesterOfTerminal(tx, account.id, namedTaskIds, now);
  counts.named_tasks_redacted = redacted.length;
  const done = new Set(redacted);
  const pending = namedTaskIds.filter((id) => !done.has(id));
  if (pending.length > 0) counts.named_tasks_pending = pending;
  await rewrite("task_events", { payload: { deidentified: true } });
  await remove("deliveries");
  await rewrite("webhooks", {
    url: "https://deidentified.invalid/",
    deletedAt: sql`coalesce(${webhooks.deletedAt}, ${now})`,
  });
  await remove("proof_files");
  await remove("dispute_files");
  await rewrite("task_disputes", { details: DEIDENTIFIED, resolutionReason: null });
  await rewrite("task_scores", { feedback: null });
  await remove("emails");
  await rewrite("activity", { ip: null, agentName: null });
  await rewrite("preauthorizations", { agentId: DEIDENTIFIED });
  await remove("sessions");
  Object.assign(counts, await deleteExportFiles(tx, account, where));
  await tx.delete(authTokens).where(eq(authTokens.accountId, account.id));
  await tx
    .update(clientAccounts)
    .set({
      contactName: DEIDENTIFIED,
      email: erasedAddress(account.id),
      passwordHash: null,
      passwordChangedAt: now,
      companyName: null,
      phone: null,
      addressLine1: null,
      addressLine2: null,
      city: null,
      postalCode: null,
      status: "suspended",
      updatedAt: now,
    })
    .where(eq(clientAccounts.id, account.id));
  counts.account = 1;
  return counts;
}

/**
 * Deletes the export jobs (lib/exports/jobs.ts) that hold a copy of the subject's rows, with their
 * files (`export_job_parts`): the account's Law 25 exports, and every compliance export whose
 * filter (organisation, dataset, period) takes in at least one of the subject's tasks or activity
 * rows — whatever their status (queued, running, ready to download). docs/privacy.md "Erasure".
 * @returns `{ export_jobs, export_job_parts }`: the rows deleted
 */
async function deleteExportFiles(
  tx: Tx,
  account: ClientAccount,
  where: SubjectRows,
): Promise<{ export_jobs: number; export_job_parts: number }> {
  const param = (name: string) => sql`(${exportJobs.params}->>${name})`;
  const inFilter = (orgId: PgColumn, at: PgColumn) =>
    and(
      sql`${orgId} = ${param("org_id")}`,
      sql`${at} >= ${param("from")}::timestamptz`,
      sql`${at} < ${param("to")}::timestamptz`,
    );
  const holdsSubject = or(
    eq(exportJobs.accountId, account.id),
    and(
      eq(exportJobs.kind, "analytics"),
      or(
        and(
          sql`${param("dataset")} = 'tasks'`,
          exists(
            tx
              .select({ one: sql`1` })
              .from(tasks)
              .where(and(where.tasks, inFilter(tasks.orgId, tasks.createdAt))),
          ),
        ),
        and(
          sql`${param("dataset")} = 'activity'`,
          exists(
            tx
              .select({ one: sql`1` })
              .from(activityLog)
              .where(and(where.activity, inFilter(activityLog.orgId, activityLog.at))),
          ),
        ),
      ),
    ),
  );
  const jobs = tx.select({ id: exportJobs.id }).from(exportJobs).where(holdsSubject);
  const parts = await tx
    .delete(exportJobParts)
    .where(inArray(exportJobParts.jobId, jobs))
    .returning({ seq: exportJobParts.seq });
  const deleted = await tx.delete(exportJobs).where(holdsSubject).returning({ id: exportJobs.id });
  return { export_jobs: deleted.length, export_job_parts: parts.length };
}

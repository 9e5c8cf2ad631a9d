/**
 * Erasure by de-identification (Law 25; docs/privacy.md "Erasure").
 *
 * A signed-in client asks for erasure (`requestErasure`) and may withdraw the request while it is
 * pending (`withdrawErasure`). While it is pending the account is on hold: its API keys are refused
 * (403, `reason: erasure_pending`, lib/keys/authenticate.ts), nothing is charged to it, no deposit
 * is taken; sign-in still works (export, withdrawal). A positive prepaid balance at the request is
 * recorded on it (`balance_to_refund_cad`) for the operator to refund. The request is due once the newest
 * accounting record of the account (invoice, ledger entry) is ACCOUNTING_RETENTION_YEARS old,
 * or at once when it has none. The privacy-retention job de-identifies due requests
 * (`processDueErasures`); the operator may process one earlier with a reason
 * (`processErasureEarly`), e.g. when no record must be kept. De-identification replaces or
 * clears every `personal` column of the subject's rows (lib/privacy/subject.ts: the rows the
 * account owns), revokes the keys linked to the account, keeps
 * the accounting records (invoices, ledger, chain transfers) and writes a `privacy_audit` row,
 * all in one transaction. Tasks of others that merely name the account's e-mail keep everything
 * but their requester contact (and the recipient of the e-mails sent to it), which is replaced once
 * the task is terminal: at once for those already terminal, by the job (`redactNamedTasks`) for the
 * others (issue 25).
 */
import { and, asc, eq, gt, inArray, lte, max, ne, type SQL, sql } from "drizzle-orm";
import type { PgTable, PgUpdateSetSource } from "drizzle-orm/pg-core";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { accountBalance } from "../billing/balance.js";
import { getConfig } from "../config.js";
import { jsonList } from "../db/bulk.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import {
  apiKeys,
  authTokens,
  type ClientAccount,
  clientAccounts,
  type ErasureRequest,
  emails,
  erasureRequests,
  invoices,
  ledgerEntries,
  pendingErasureOf,
  privacyAudit,
  tasks,
  webhooks,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId, sha256Hex } from "../ids.js";
import { forgetCachedKey } from "../keys/authenticate.js";
import { TERMINAL_STATUSES } from "../tasks/state/transitions.js";
import { primaryColumn, SUBJECT_TABLES, type SubjectRows, subjectScope } from "./subject.js";

/** Text put in place of de-identified required free text. */
export const DEIDENTIFIED = "[de-identified]";

/** The JSON form of an erasure request. */
export interface ErasureRequestView {
  request_id: string;
  account_id: string;
  status: "pending" | "completed" | "withdrawn";
  requested_at: string;
  /** The prepaid balance the operator must refund (CAD), or null when there was none. */
  balance_to_refund_cad: number | null;
  withdrawn_at: string | null;
  due_at: string;
  processed_at: string | null;
  processed_by: string | null;
  early_reason: string | null;
}

/** JSON form of `row`. */
export function erasureView(row: ErasureRequest): ErasureRequestView {
  return {
    request_id: row.id,
    account_id: row.accountId,
    status: row.status,
    requested_at: row.requestedAt.toISOString(),
    balance_to_refund_cad: row.balanceToRefundCad,
    withdrawn_at: row.withdrawnAt?.toISOString() ?? null,
    due_at: row.dueAt.toISOString(),
    processed_at: row.processedAt?.toISOString() ?? null,
    processed_by: row.processedBy,
    early_reason: row.earlyReason,
  };
}

/** A replacement e-mail address for `id`: unique, lowercase, undeliverable (`.invalid`, RFC 2606). */
export function erasedAddress(id: string): string {
  return `erased.${sha256Hex(id).slice(0, 20)}@deidentified.invalid`;
}

/**
 * When an erasure of `accountId` may be processed: the newest invoice or ledger entry plus
 * ACCOUNTING_RETENTION_YEARS (calendar years), or `now` when that is earlier or there is none.
 */
export async function erasureDueAt(db: Db | Tx, accountId: string, now = new Date()): Promise<Date> {
  const [inv] = await db
    .select({ at: max(invoices.issuedAt) })
    .from(invoices)
    .where(eq(invoices.accountId, accountId));
  const [led] = await db
    .select({ at: max(ledgerEntries.createdAt) })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.accountId, accountId));
  const newest = [inv?.at, led?.at].filter((d): d is Date => d instanceof Date).sort((a, b) => +b - +a)[0];
  if (!newest) return now;
  const due = new Date(newest);
  due.setUTCFullYear(due.getUTCFullYear() + getConfig().ACCOUNTING_RETENTION_YEARS);
  return due > now ? due : now;
}

/**
 * Forgets the cached keys of `accountId` on this instance once `tx` commits, so the hold (or its
 * end) applies at once here; other instances follow within API_KEY_CACHE_TTL_MS.
 */
async function forgetAccountKeys(tx: Tx, accountId: string): Promise<void> {
  const keys = await tx
    .select({ hash: apiKeys.keyHash })
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId));
  for (const k of keys) await forgetCachedKey(k.hash);
}

/**
 * Records the erasure request of `account` (asked by its signed-in owner), which puts the account
 * on hold (module comment); a positive balance is recorded for the operator to refund. A second
 * request while one is pending returns the pending one.
 * @returns the request and whether it was created now
 */
export async function requestErasure(
  account: ClientAccount,
  now = new Date(),
): Promise<{ request: ErasureRequestView; created: boolean }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx
      .select({ id: clientAccounts.id })
      .from(clientAccounts)
      .where(eq(clientAccounts.id, account.id))
      .for("update");
    const [pending] = await tx.select().from(erasureRequests).where(pendingErasureOf(account.id));
    if (pending) return { request: erasureView(pending), created: false };
    const dueAt = await erasureDueAt(tx, account.id, now);
    const { balance_cad } = await accountBalance(account.id, tx, now);
    const balanceToRefundCad = balance_cad > 0 ? balance_cad : null;
    const [row] = await tx
      .insert(erasureRequests)
      .values({ id: prefixedId("era"), accountId: account.id, requestedAt: now, dueAt, balanceToRefundCad })
      .returning();
    await tx.insert(privacyAudit).values({
      action: "erasure_requested",
      accountId: account.id,
      actor: "client",
      details: {
        request_id: row!.id,
        due_at: dueAt.toISOString(),
        balance_to_refund_cad: balanceToRefundCad,
      },
      at: now,
    });
    await forgetAccountKeys(tx, account.id);
    return { request: erasureView(row!), created: true };
  });
}

/**
 * Withdraws the pending erasure request of `account` (its signed-in owner): the hold ends, the
 * keys work again. Writes a `privacy_audit` row (`erasure_withdrawn`).
 * @throws DomainError CONFLICT (no pending request)
 */
export async function withdrawErasure(account: ClientAccount, now = new Date()): Promise<ErasureRequestView> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(erasureRequests)
      .set({ status: "withdrawn", withdrawnAt: now })
      .where(pendingErasureOf(account.id))
      .returning();
    if (!row)
      throw new DomainError("CONFLICT", "There is no pending erasure request to withdraw", {
        field: "action",
      });
    await tx.insert(privacyAudit).values({
      action: "erasure_withdrawn",
      accountId: account.id,
      actor: "client",
      details: { request_id: row.id },
      at: now,
    });
    await forgetAccountKeys(tx, account.id);
    return erasureView(row);
  });
}

/**
 * Replaces the requester contact of the terminal tasks among `taskIds` (tasks of others that
 * named the e-mail of de-identified account `accountId`) with `erasedAddress(accountId)`, and the
 * recipient of the e-mails those tasks sent to it, and nothing else of them: their submitter's
 * data, keys, webhooks and deliveries stay (issue 25).
 * @returns the ids replaced now (a task not yet terminal, gone, or already replaced is skipped)
 */
async function redactRequesterOfTerminal(
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
 * taken in key order (one select of the chunk's keys, one statement of `change` on them), so an
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
  const { column } = primaryColumn(table);
  let after: unknown;
  let count = 0;
  for (;;) {
    const keys = (
      await tx
        .select({ key: column })
        .from(table)
        .where(and(where, after === undefined ? undefined : gt(column, after)))
        .orderBy(asc(column))
        .limit(ERASURE_CHUNK_ROWS)
    ).map((r) => r.key);
    if (keys.length === 0) return count;
    await change(inArray(column, keys));
    count += keys.length;
    if (keys.length < ERASURE_CHUNK_ROWS) return count;
    after = keys[keys.length - 1];
  }
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

/** Processes one pending request in its own transaction (locks it; skips one already done). */
async function processRequest(
  requestId: string,
  actor: string,
  earlyReason: string | null,
  now: Date,
): Promise<ErasureRequestView | null> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [req] = await tx
      .select()
      .from(erasureRequests)
      .where(eq(erasureRequests.id, requestId))
      .for("update");
    if (req?.status !== "pending") return null;
    const [account] = await tx
      .select()
      .from(clientAccounts)
      .where(eq(clientAccounts.id, req.accountId))
      .for("update");
    if (!account) return null;
    const counts = await deidentifyAccount(tx, account, now);
    const [done] = await tx
      .update(erasureRequests)
      .set({ status: "completed", processedAt: now, processedBy: actor, earlyReason })
      .where(eq(erasureRequests.id, req.id))
      .returning();
    await tx.insert(privacyAudit).values({
      action: "deidentified",
      accountId: account.id,
      actor,
      details: { request_id: req.id, early: earlyReason !== null, ...counts },
      at: now,
    });
    return erasureView(done!);
  });
}

/**
 * The job's part: de-identifies every pending request whose `due_at` is past (oldest first, at
 * most `limit` per run). @returns how many were processed
 */
export async function processDueErasures(now = new Date(), limit = 50): Promise<number> {
  await flushActivityBeforeRead();
  const db = await getDb();
  const due = await db
    .select({ id: erasureRequests.id })
    .from(erasureRequests)
    .where(and(eq(erasureRequests.status, "pending"), lte(erasureRequests.dueAt, now)))
    .orderBy(asc(erasureRequests.dueAt))
    .limit(limit);
  let done = 0;
  for (const r of due) if (await processRequest(r.id, "job", null, now)) done++;
  return done;
}

/**
 * The job's part for tasks of others that named a de-identified account's e-mail and were not
 * terminal then (`named_tasks_pending` of its `deidentified` audit row): once terminal, their
 * requester contact is replaced (`erasedAddress` of the account), with one `privacy_audit` row
 * (`named_tasks_redacted`, the task ids) per account, in one transaction.
 * @returns how many tasks were redacted now
 */
export async function redactNamedTasks(now = new Date()): Promise<number> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const audits = await tx
      .select({ accountId: privacyAudit.accountId, details: privacyAudit.details })
      .from(privacyAudit)
      .where(
        and(
          eq(privacyAudit.action, "deidentified"),
          sql`${privacyAudit.details} -> 'named_tasks_pending' is not null`,
        ),
      );
    let total = 0;
    for (const audit of audits) {
      const pending = audit.details.named_tasks_pending;
      if (!audit.accountId || !Array.isArray(pending)) continue;
      const ids = await redactRequesterOfTerminal(tx, audit.accountId, pending.map(String), now);
      if (ids.length === 0) continue;
      total += ids.length;
      await tx.insert(privacyAudit).values({
        action: "named_tasks_redacted",
        accountId: audit.accountId,
        actor: "job",
        details: { task_ids: ids },
        at: now,
      });
    }
    return total;
  });
}

/**
 * The operator processes the erasure of `accountId` now, before its due date, with `reason`
 * (the legal ground). A request is recorded first when the client asked by other means.
 * @throws DomainError NOT_FOUND (no such account), CONFLICT (already de-identified)
 */
export async function processErasureEarly(
  accountId: string,
  adminKeyId: string,
  reason: string,
  now = new Date(),
): Promise<ErasureRequestView> {
  await flushActivityBeforeRead();
  const db = await getDb();
  const [account] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
  if (!account) throw new DomainError("NOT_FOUND", `No account ${accountId}`, { field: "account_id" });
  let [pending] = await db.select().from(erasureRequests).where(pendingErasureOf(accountId));
  if (!pending) {
    const [completed] = await db
      .select({ id: erasureRequests.id })
      .from(erasureRequests)
      .where(and(eq(erasureRequests.accountId, accountId), eq(erasureRequests.status, "completed")));
    if (completed)
      throw new DomainError("CONFLICT", "This account is already de-identified", { field: "account_id" });
    [pending] = await db
      .insert(erasureRequests)
      .values({
        id: prefixedId("era"),
        accountId,
        requestedAt: now,
        dueAt: await erasureDueAt(db, accountId, now),
      })
      .returning();
  }
  const done = await processRequest(pending!.id, `admin:${adminKeyId}`, reason, now);
  if (!done)
    throw new DomainError("CONFLICT", "This erasure request was processed meanwhile", {
      field: "account_id",
    });
  return done;
}

/** Every erasure request, newest first (operator listing). */
export async function listErasureRequests(limit = 200): Promise<ErasureRequestView[]> {
  const db = await getDb();
  const list = await db
    .select()
    .from(erasureRequests)
    .orderBy(sql`${erasureRequests.requestedAt} desc`)
    .limit(limit);
  return list.map(erasureView);
}

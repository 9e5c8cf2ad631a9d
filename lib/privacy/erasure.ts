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
 * clears every `personal` column of the subject's rows (lib/privacy/deidentify.ts; lib/privacy/subject.ts: the rows the
 * account owns), revokes the keys linked to the account, keeps
 * the accounting records (invoices, ledger, chain transfers) and writes a `privacy_audit` row,
 * all in one transaction. Tasks of others that merely name the account's e-mail keep everything
 * but their requester contact (and the recipient of the e-mails sent to it), which is replaced once
 * the task is terminal: at once for those already terminal, by the job (`redactNamedTasks`) for the
 * others (issue 25).
 */
import { and, asc, eq, lte, max, sql } from "drizzle-orm";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { accountBalance } from "../billing/balance.js";
import { getConfig } from "../config.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import {
  apiKeys,
  type ClientAccount,
  clientAccounts,
  type ErasureRequest,
  erasureRequests,
  invoices,
  ledgerEntries,
  pendingErasureOf,
  privacyAudit,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { forgetCachedKey } from "../keys/authenticate.js";
import { deidentifyAccount, redactRequesterOfTerminal } from "./deidentify.js";

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

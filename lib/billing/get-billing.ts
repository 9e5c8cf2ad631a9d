/**
 * GET /api/billing (MCP `check_balance`): the balance of the account `agent_id` names
 * and, for `transactions`, its ledger newest first with date and service filters and
 * pagination (`limit` default 50, max 200; `total` counts the matches up to `offset` +
 * TRANSACTIONS_TOTAL_CAP, then `total_capped` is true: issue 45, a key with 92,000 entries counted
 * them all on every page).
 */
import { and, count, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import type { RefundReason } from "../db/schema/enums.js";
import { ledgerEntries, tasks } from "../db/schema/index.js";
import type { Caller } from "../keys/authenticate.js";
import { refundReasonsOf, singleRefundReason } from "../tasks/state/refund-reasons.js";
import { accountBalance, type SpendingLevel, spendingLevel } from "./balance.js";
import { dayRange } from "./dates.js";
import { resolveBillingAccount } from "./resolve-agent.js";
import { type BillingQuery, TRANSACTIONS_DEFAULT_LIMIT, TRANSACTIONS_TOTAL_CAP } from "./schemas.js";

/** One ledger entry as a transaction. */
export interface BillingTransaction {
  transaction_id: string;
  kind: "deposit" | "charge" | "refund" | "adjustment";
  task_id: string | null;
  amount_cad: number;
  /**
   * A refund: why the money went back (`cancellation`, `dispute`, `sla_credit`; read from the
   * task's refund entries, lib/tasks/state/refund-reasons.ts); null for other kinds and for refunds
   * recorded before reasons were.
   */
  refund_reason: RefundReason | null;
  service_type: string | null;
  description: string | null;
  invoice_id: string | null;
  created_at: string;
}

/** Balance response, plus the page for `transactions`. */
export interface BillingResponse {
  agent_id: string;
  account_id: string;
  account_status: "pending_deposit" | "active" | "suspended";
  balance_cad: number;
  held_cad: number;
  available_balance_cad: number;
  spending_level: SpendingLevel;
  currency: "CAD";
  transactions?: BillingTransaction[];
  total?: number;
  total_capped?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * Answers GET /api/billing for `caller`.
 * @throws DomainError FORBIDDEN, NOT_FOUND, VALIDATION_ERROR (see resolveBillingAccount; date_from after date_to)
 */
export async function getBilling(caller: Caller, query: BillingQuery): Promise<BillingResponse> {
  const account = await resolveBillingAccount(caller, query.agent_id);
  const balance = await accountBalance(account.id);
  const out: BillingResponse = {
    agent_id: query.agent_id,
    account_id: account.id,
    account_status: account.status,
    ...balance,
    spending_level: spendingLevel(account.status, balance.available_balance_cad),
    currency: "CAD",
  };
  if (query.action === "balance") return out;
  const { from, to } = dayRange(query.date_from, query.date_to);
  const limit = query.limit ?? TRANSACTIONS_DEFAULT_LIMIT;
  const offset = query.offset ?? 0;
  const where: SQL[] = [eq(ledgerEntries.accountId, account.id)];
  if (from) where.push(gte(ledgerEntries.createdAt, from));
  if (to) where.push(lt(ledgerEntries.createdAt, to));
  if (query.service_type) where.push(eq(tasks.serviceType, query.service_type));
  const db = await getDb();
  const condition = and(...where);
  const cap = offset + TRANSACTIONS_TOTAL_CAP;
  const [rows, [totalRow]] = await Promise.all([
    db
      .select({ entry: ledgerEntries, serviceType: tasks.serviceType })
      .from(ledgerEntries)
      .leftJoin(tasks, eq(tasks.id, ledgerEntries.taskId))
      .where(condition)
      .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
      .limit(limit)
      .offset(offset),
    // Counts at most `cap` + 1 entries (the inner LIMIT stops the index range there), joining the
    // tasks only when their service filters.
    db.select({ n: count() }).from(
      (query.service_type
        ? db
            .select({ one: sql`1`.as("one") })
            .from(ledgerEntries)
            .leftJoin(tasks, eq(tasks.id, ledgerEntries.taskId))
        : db.select({ one: sql`1`.as("one") }).from(ledgerEntries)
      )
        .where(condition)
        .limit(cap + 1)
        .as("matching"),
    ),
  ]);
  const reasons = await refundReasonsOf(
    db,
    rows.flatMap(({ entry }) => (entry.kind === "refund" && entry.invoiceId ? [entry.invoiceId] : [])),
  );
  return {
    ...out,
    transactions: rows.map(({ entry, serviceType }) => ({
      transaction_id: entry.id,
      kind: entry.kind,
      task_id: entry.taskId,
      amount_cad: entry.amountCad,
      refund_reason:
        entry.kind === "refund" && entry.invoiceId ? singleRefundReason(reasons.get(entry.invoiceId)) : null,
      service_type: serviceType,
      description: entry.description,
      invoice_id: entry.invoiceId,
      created_at: entry.createdAt.toISOString(),
    })),
    total: Math.min(totalRow?.n ?? 0, cap),
    total_capped: (totalRow?.n ?? 0) > cap,
    limit,
    offset,
  };
}

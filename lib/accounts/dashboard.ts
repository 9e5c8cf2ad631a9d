/**
 * The client dashboard data (`GET /api/client-account?include=dashboard`): the latest
 * transactions, tasks and invoices of an account (20 each, newest first). The account's
 * tasks are those submitted with a key linked to the account, or charged to it; each says whether
 * it has a dispute (`dispute_status`, issue 27) and the SLA credit it was given (`sla_credited_cad`);
 * each refund and credit note says why the money went back (`refund_reason`, `refund_reasons`: an
 * SLA credit, a dispute's refund or a cancellation's; lib/tasks/state/refund-reasons.ts).
 */
import { desc, eq, inArray, or, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import type { RefundReason } from "../db/schema/enums.js";
import { apiKeys, type ClientAccount, invoices, ledgerEntries, tasks } from "../db/schema/index.js";
import { refundReasonsOf, singleRefundReason } from "../tasks/state/refund-reasons.js";

/** Rows of each list. */
export const DASHBOARD_ROWS = 20;

/** The dashboard payload. */
export interface Dashboard {
  transactions: {
    transaction_id: string;
    kind: string;
    amount_cad: number;
    /** A refund: `cancellation`, `dispute` or `sla_credit`; null otherwise (see GET /api/billing). */
    refund_reason: RefundReason | null;
    task_id: string | null;
    invoice_id: string | null;
    description: string | null;
    created_at: string;
  }[];
  tasks: {
    task_id: string;
    service_type: string;
    status: string;
    price_cad: number | null;
    payment_method: string | null;
    /** A sandbox task (X-Service-Mode: sandbox): never charged; the dashboard hides it by default. */
    sandbox: boolean;
    /** The status of the task's latest dispute (issue 27), or null when it has none. */
    dispute_status: "open" | "resolved" | null;
    /** The SLA credit given for lateness (issue 27), CAD, or null when none. */
    sla_credited_cad: number | null;
    created_at: string;
  }[];
  invoices: {
    invoice_id: string;
    /** `YYYY-NNNNNN`, null before numbering. */
    number: string | null;
    kind: string;
    total_cad: number;
    /** A credit note: why it gave money back (one reason, or several when one settlement closed them); else []. */
    refund_reasons: RefundReason[];
    task_id: string | null;
    issued_at: string;
  }[];
}

/** The dashboard of `account`. */
export async function accountDashboard(account: ClientAccount): Promise<Dashboard> {
  const db = await getDb();
  const keyIds = db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.accountId, account.id));
  const [entries, taskRows, invoiceRows] = await Promise.all([
    db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.accountId, account.id))
      .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
      .limit(DASHBOARD_ROWS),
    db
      .select({
        task: tasks,
        // Outer columns spelled qualified: drizzle writes them unqualified in a select list.
        disputeStatus: sql<"open" | "resolved" | null>`(select d.status from task_disputes d
          where d.task_id = "tasks"."id" order by d.opened_at desc limit 1)`,
        slaCredited: sql<
          string | null
        >`(select s.amount_cad from sla_credits s where s.task_id = "tasks"."id")`,
      })
      .from(tasks)
      .where(or(inArray(tasks.apiKeyId, keyIds), eq(tasks.accountId, account.id)))
      .orderBy(desc(tasks.createdAt))
      .limit(DASHBOARD_ROWS),
    db
      .select()
      .from(invoices)
      .where(eq(invoices.accountId, account.id))
      .orderBy(desc(invoices.issuedAt), desc(invoices.id))
      .limit(DASHBOARD_ROWS),
  ]);
  const reasons = await refundReasonsOf(db, [
    ...entries.flatMap((e) => (e.kind === "refund" && e.invoiceId ? [e.invoiceId] : [])),
    ...invoiceRows.flatMap((i) => (i.kind === "refund" ? [i.id] : [])),
  ]);
  return {
    transactions: entries.map((e) => ({
      transaction_id: e.id,
      kind: e.kind,
      amount_cad: e.amountCad,
      refund_reason: e.kind === "refund" && e.invoiceId ? singleRefundReason(reasons.get(e.invoiceId)) : null,
      task_id: e.taskId,
      invoice_id: e.invoiceId,
      description: e.description,
      created_at: e.createdAt.toISOString(),
    })),
    tasks: taskRows.map(({ task: t, disputeStatus, slaCredited }) => ({
      task_id: t.id,
      service_type: t.serviceType,
      status: t.status,
      price_cad: t.priceCad,
      payment_method: t.paymentMethod,
      sandbox: t.sandbox,
      dispute_status: disputeStatus ?? null,
      sla_credited_cad: slaCredited == null ? null : Number(slaCredited),
      created_at: t.createdAt.toISOString(),
    })),
    invoices: invoiceRows.map((i) => ({
      invoice_id: i.id,
      number: i.number,
      kind: i.kind,
      total_cad: i.amountCad,
      refund_reasons: i.kind === "refund" ? (reasons.get(i.id) ?? []) : [],
      task_id: i.taskId,
      issued_at: i.issuedAt.toISOString(),
    })),
  };
}

/**
 * Why a credit note gave money back (issue 42 item 5: billing tells an SLA credit from a dispute
 * refund from a cancellation refund), read from the task's refund entries (lib/db/schema/task-refunds.ts)
 * that name the credit note (`invoice_id`): a `credit` entry by its `source`; a `settlement` entry
 * by the sources of the `owed` entries it closed (`settlement_id`). Read by the billing ledger
 * (GET /api/billing, the dashboard), the credit note's JSON view and its PDF.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db, Tx } from "../../db/client.js";
import { REFUND_REASONS, type RefundReason } from "../../db/schema/enums.js";
import { taskRefunds } from "../../db/schema/index.js";

/**
 * The reasons of each credit note of `invoiceIds` (invoices of kind `refund`), in the order of
 * REFUND_REASONS (cancellation, dispute, SLA credit): usually one; several when one settlement
 * closed refunds owed for different reasons. A credit note no refund entry names (issued before
 * entries named their credit note) is absent from the map. One query.
 */
export async function refundReasonsOf(
  db: Db | Tx,
  invoiceIds: string[],
): Promise<Map<string, RefundReason[]>> {
  const ids = [...new Set(invoiceIds)];
  const out = new Map<string, RefundReason[]>();
  if (ids.length === 0) return out;
  const closed = alias(taskRefunds, "closed");
  const rows = await db
    .selectDistinct({
      invoiceId: taskRefunds.invoiceId,
      source: sql<
        string | null
      >`case when ${taskRefunds.kind} = 'settlement' then ${closed.source} else ${taskRefunds.source} end`,
    })
    .from(taskRefunds)
    .leftJoin(closed, and(eq(closed.settlementId, taskRefunds.id), eq(closed.kind, "owed")))
    .where(inArray(taskRefunds.invoiceId, ids));
  for (const row of rows) {
    const reason = REFUND_REASONS.find((r) => r === row.source);
    if (!row.invoiceId || !reason) continue;
    const list = out.get(row.invoiceId) ?? [];
    if (!list.includes(reason)) list.push(reason);
    out.set(row.invoiceId, list);
  }
  for (const list of out.values()) list.sort((a, b) => REFUND_REASONS.indexOf(a) - REFUND_REASONS.indexOf(b));
  return out;
}

/** The one reason of a refund with `reasons` ({@link refundReasonsOf}), or null when it has none or several. */
export function singleRefundReason(reasons: RefundReason[] | undefined): RefundReason | null {
  return reasons?.length === 1 ? reasons[0]! : null;
}

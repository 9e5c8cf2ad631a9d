/**
 * One running total of what a task gave back (issue 42; docs/payments.md "Refunds"): every path
 * that gives money back or promises it writes an entry of `task_refunds`
 * (lib/db/schema/task-refunds.ts), and every cap asks {@link refundableCad}:
 *
 * - a cancellation (lib/tasks/cancel-task.ts): a credit to the prepaid account, or a refund owed;
 * - a dispute resolved with a refund and an SLA credit (lib/tasks/recourse-refund.ts);
 * - finance's settlement of what is owed (POST /api/task-refund, lib/tasks/settle-refund.ts), with
 *   the credit note of a USDC receipt (lib/billing/credit-notes.ts) or the ledger refund.
 *
 * All amounts are CAD with taxes (like the price paid), summed in integer cents (lib/money.ts).
 * The task's `refund_*` columns are derived from the entries ({@link refundColumns}) for the
 * status view; no cap reads them. Callers hold the task's row lock (`SELECT … FOR UPDATE`), so two
 * paths never read the same total and both spend it.
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Tx } from "../db/client.js";
import {
  type RefundStatus,
  type Task,
  type TaskRefund,
  type TaskRefundSource,
  taskRefunds,
  tasks,
} from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { fromCents, toCents } from "../money.js";
import { accountChargeCad, refundTaskToAccount } from "./charge-task.js";
import { findUsdcReceipt } from "./credit-notes.js";

/** What a task was paid and what of it went back or is promised, CAD (see {@link refundableCad}). */
export interface Refundable {
  /** What was paid: the prepaid charge, else the USDC receipt's total, else the price; 0 if never paid. */
  paidCad: number;
  /** Given back: prepaid credits and settled refunds (`refunded` settlements). */
  givenCad: number;
  /** Promised and not yet settled: the `owed` entries no settlement closed (an unset amount counts 0). */
  owedCad: number;
  /** What is left to give back or promise: max(0, paid − given − owed). */
  leftCad: number;
  /** What a settlement may record (it closes the owed entries): max(0, paid − given). */
  settleableCad: number;
}

/**
 * What is left to give back of what `task` (locked in `tx`) was paid: the one answer every refund
 * path asks (cancellation, dispute resolution, SLA credit, settlement; a settlement asks it before
 * the USDC receipt's credit note is issued, which keeps its own check against the receipt).
 *
 * Units: CAD, taxes included, exact to the cent (computed in integer cents). Rule:
 * left = paid − Σ given − Σ owed, never below 0, where paid is the prepaid charge (ledger), else
 * the USDC receipt's total, else the price (`manual`, or USDC without a receipt); given sums the
 * `credit` entries and the `refunded` settlements; owed sums the `owed` entries not yet settled.
 * A task never paid has 0 left.
 */
export async function refundableCad(tx: Tx, task: Task): Promise<Refundable> {
  const zero = { paidCad: 0, givenCad: 0, owedCad: 0, leftCad: 0, settleableCad: 0 };
  if (!task.paidAt) return zero;
  const paid =
    task.paymentMethod === "account"
      ? ((await accountChargeCad(tx, task.id)) ?? 0)
      : ((await findUsdcReceipt(tx, task))?.amountCad ?? task.priceCad ?? 0);
  const [sums] = await tx
    .select({
      given: sql<string>`coalesce(sum(${taskRefunds.amountCad}) filter (where ${taskRefunds.kind} <> 'owed'), 0)`,
      owed: sql<string>`coalesce(sum(${taskRefunds.amountCad}) filter (where ${taskRefunds.kind} = 'owed' and ${taskRefunds.settlementId} is null), 0)`,
    })
    .from(taskRefunds)
    .where(eq(taskRefunds.taskId, task.id));
  const paidCents = toCents(paid);
  const givenCents = toCents(Number(sums?.given ?? 0));
  const owedCents = toCents(Number(sums?.owed ?? 0));
  return {
    paidCad: fromCents(paidCents),
    givenCad: fromCents(givenCents),
    owedCad: fromCents(owedCents),
    leftCad: fromCents(Math.max(0, paidCents - givenCents - owedCents)),
    settleableCad: fromCents(Math.max(0, paidCents - givenCents)),
  };
}

/**
 * Credits up to `amountCad` of prepaid `task` (locked in `tx`) back to its account at `now`, for
 * `reason` (on the credit note): the ledger refund and credit note (lib/billing/charge-task.ts
 * `refundTaskToAccount`) and the `credit` entry of `source` (`disputeId` for a dispute), which
 * names the credit note (what billing reads its reason from: lib/tasks/state/refund-reasons.ts).
 * @returns the amount credited, CAD, or null when the task has no charge or nothing is left of it.
 */
export async function creditToAccount(
  tx: Tx,
  task: Pick<Task, "id">,
  amountCad: number,
  source: TaskRefundSource,
  reason: string,
  now: Date,
  disputeId: string | null = null,
): Promise<number | null> {
  const credited = await refundTaskToAccount(tx, task, reason, now, amountCad);
  if (credited === null) return null;
  await tx.insert(taskRefunds).values({
    id: prefixedId("rfd"),
    taskId: task.id,
    kind: "credit",
    source,
    disputeId,
    amountCad: credited.amountCad,
    invoiceId: credited.invoiceId,
    createdAt: now,
  });
  return credited.amountCad;
}

/**
 * Records in `tx` a refund owed to `task`'s payer at `now` (USDC or out of band; finance settles
 * it): `amountCad` (null: the operator fixes it at settlement), `usdcMicro` at the task's rate.
 */
export async function recordOwedRefund(
  tx: Tx,
  task: Pick<Task, "id">,
  owed: { amountCad: number | null; usdcMicro: bigint | null; source: TaskRefundSource; disputeId?: string },
  now: Date,
): Promise<void> {
  await tx.insert(taskRefunds).values({
    id: prefixedId("rfd"),
    taskId: task.id,
    kind: "owed",
    source: owed.source,
    disputeId: owed.disputeId ?? null,
    amountCad: owed.amountCad,
    usdcMicro: owed.usdcMicro,
    createdAt: now,
  });
}

/**
 * Records in `tx` one settlement of `task` at `now` and closes every owed entry still pending
 * (`settlement_id`). `amountCad` is what went back (0 when denied).
 * @returns the settlement's id (`rfd_…`), unique per settlement: the key of what it writes once
 *   (its requester e-mail).
 */
export async function recordSettlement(
  tx: Tx,
  task: Pick<Task, "id">,
  settlement: {
    outcome: "refunded" | "denied";
    amountCad: number;
    txHash: string | null;
    invoiceId: string | null;
  },
  now: Date,
): Promise<string> {
  const id = prefixedId("rfd");
  await tx.insert(taskRefunds).values({
    id,
    taskId: task.id,
    kind: "settlement",
    source: "settlement",
    amountCad: settlement.outcome === "refunded" ? settlement.amountCad : 0,
    outcome: settlement.outcome,
    txHash: settlement.txHash,
    invoiceId: settlement.invoiceId,
    createdAt: now,
  });
  await tx
    .update(taskRefunds)
    .set({ settlementId: id })
    .where(
      and(eq(taskRefunds.taskId, task.id), eq(taskRefunds.kind, "owed"), isNull(taskRefunds.settlementId)),
    );
  return id;
}

/** The task's refund columns derived from its entries (see {@link refundColumns}). */
export interface RefundColumns {
  refundStatus: RefundStatus;
  refundAmountCad: number | null;
  refundUsdcMicro: bigint | null;
  refundSettledAt: Date | null;
  refundTxHash: string | null;
}

/**
 * `task`'s `refund_*` columns derived from its entries in `tx` (what the status view shows):
 * - `pending` while an owed entry is unsettled: the amount owed (null when none is fixed) and its USDC;
 * - else, after a settlement or a cancellation's credit, the last one's outcome (`refunded` or
 *   `denied`), with everything given back so far (null when nothing) and the last settlement's
 *   time and transaction;
 * - else `none` (credits of recourse to a prepaid account alone leave no refund request).
 */
export async function refundColumns(tx: Tx, taskId: string): Promise<RefundColumns> {
  const rows: TaskRefund[] = await tx
    .select()
    .from(taskRefunds)
    .where(eq(taskRefunds.taskId, taskId))
    .orderBy(asc(taskRefunds.createdAt), asc(taskRefunds.id));
  const pending = rows.filter((r) => r.kind === "owed" && r.settlementId === null);
  if (pending.length) {
    const amounts = pending.filter((r) => r.amountCad !== null);
    const micros = pending.filter((r) => r.usdcMicro !== null);
    return {
      refundStatus: "pending",
      refundAmountCad: amounts.length
        ? fromCents(amounts.reduce((sum, r) => sum + toCents(r.amountCad!), 0))
        : null,
      refundUsdcMicro: micros.length ? micros.reduce((sum, r) => sum + r.usdcMicro!, 0n) : null,
      refundSettledAt: null,
      refundTxHash: null,
    };
  }
  const closing = rows.filter(
    (r) => r.kind === "settlement" || (r.kind === "credit" && r.source === "cancellation"),
  );
  const last = closing.at(-1);
  if (!last) {
    return {
      refundStatus: "none",
      refundAmountCad: null,
      refundUsdcMicro: null,
      refundSettledAt: null,
      refundTxHash: null,
    };
  }
  const given = rows.filter((r) => r.kind !== "owed").reduce((sum, r) => sum + toCents(r.amountCad ?? 0), 0);
  const settlement = rows.filter((r) => r.kind === "settlement").at(-1);
  return {
    refundStatus: last.kind === "settlement" ? last.outcome! : "refunded",
    refundAmountCad: given > 0 ? fromCents(given) : null,
    refundUsdcMicro: null,
    refundSettledAt: settlement?.createdAt ?? null,
    refundTxHash: settlement?.txHash ?? null,
  };
}

/**
 * Writes `task`'s derived refund columns ({@link refundColumns}) in `tx` at `now`, with `extra`
 * columns (the note), and bumps its version. @returns the updated row.
 */
export async function syncRefundColumns(
  tx: Tx,
  task: Pick<Task, "id">,
  now: Date,
  extra: Partial<Pick<Task, "refundNote">> = {},
): Promise<Task> {
  const [updated] = await tx
    .update(tasks)
    .set({
      ...(await refundColumns(tx, task.id)),
      ...extra,
      version: sql`${tasks.version} + 1`,
      updatedAt: now,
    })
    .where(eq(tasks.id, task.id))
    .returning();
  return updated!;
}

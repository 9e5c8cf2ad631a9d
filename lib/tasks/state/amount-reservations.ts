/**
 * Which task holds which exact USDC amount (table `payment_amounts`, docs/payments.md "Payments",
 * amounts). The amount alone tells the payment checker which task a transfer pays, so:
 *
 * - one task at a time holds an amount (partial unique index `payment_amounts_held_uq`);
 * - an amount released by its task (paid, expired, cancelled) is given to no other task
 *   for `AMOUNT_REUSE_COOLDOWN_HOURS` (default 168), so a late transfer meant for the old
 *   task cannot pay a new one;
 * - the moment the amount was given to the task (`assigned_at`) is the lower bound of the
 *   block times that may pay it (lib/payments/match-transfers.ts).
 *
 * Allocation cannot collide under concurrency: each candidate amount is claimed with
 * `INSERT … ON CONFLICT DO NOTHING` on the partial unique index. A racer that loses (the
 * amount was claimed by a transaction that committed first, or that it waited for) gets no
 * row back and tries the next amount; nothing raises a unique violation.
 * Release is done by the transition layer (lib/tasks/state/apply-transition.ts) in the same
 * transaction as the status change that ends the wait for payment.
 */
import { and, between, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { jsonList } from "../../db/bulk.js";
import type { Tx } from "../../db/client.js";
import type { TaskStatus } from "../../db/schema/enums.js";
import { paymentAmounts, tasks } from "../../db/schema/index.js";

/** Statuses of a task that awaits payment (and holds its amount). */
export const AWAITING_PAYMENT_STATUSES: readonly TaskStatus[] = [
  "accepted_pending_payment",
  "counter_offered",
];

/** How far above the base amount allocation may go, micro-USDC (0.01 USDC). */
export const MAX_UNIQUENESS_BUMP = 10_000;

/** Thrown when every amount of [base, base + MAX_UNIQUENESS_BUMP] is held or cooling down. */
export class NoFreeAmountError extends Error {
  constructor(readonly base: bigint) {
    super(`no free payment amount within ${MAX_UNIQUENESS_BUMP} micro-USDC of ${base}`);
  }
}

/**
 * Gives task `taskId` the smallest amount ≥ `base` (micro-USDC) that no task holds and
 * that no task released less than `cooldownHours` before `now`; records it with
 * `assigned_at = now`, inside `tx` (the approval's transaction: a rollback frees it).
 * Amounts of open tasks that have no reservation row (inserted by other means) count as
 * held too.
 * @returns the amount given, micro-USDC (base + the fewest micro-units possible).
 * @throws NoFreeAmountError when all MAX_UNIQUENESS_BUMP + 1 candidates are taken.
 */
export async function reserveAmount(
  tx: Tx,
  taskId: string,
  base: bigint,
  now: Date,
  cooldownHours: number,
): Promise<bigint> {
  const top = base + BigInt(MAX_UNIQUENESS_BUMP);
  const cutoff = new Date(now.getTime() - cooldownHours * 3_600_000);
  const reserved = await tx
    .select({ amount: paymentAmounts.amountMicro })
    .from(paymentAmounts)
    .where(
      and(
        between(paymentAmounts.amountMicro, base, top),
        or(isNull(paymentAmounts.releasedAt), gt(paymentAmounts.releasedAt, cutoff)),
      ),
    );
  const open = await tx
    .select({ amount: tasks.paymentUsdcMicro })
    .from(tasks)
    .where(
      and(
        inArray(tasks.status, [...AWAITING_PAYMENT_STATUSES]),
        eq(tasks.sandbox, false),
        between(tasks.paymentUsdcMicro, base, top),
      ),
    );
  const taken = new Set<bigint>([...reserved, ...open].map((r) => r.amount!));
  for (let candidate = base; candidate <= top; candidate++) {
    if (taken.has(candidate)) continue;
    // Claimed here or by a concurrent approval: the loser gets no row and moves on.
    const won = await tx
      .insert(paymentAmounts)
      .values({ taskId, amountMicro: candidate, assignedAt: now })
      .onConflictDoNothing({ target: paymentAmounts.amountMicro, where: sql`released_at is null` })
      .returning({ amount: paymentAmounts.amountMicro });
    if (won.length) return candidate;
  }
  throw new NoFreeAmountError(base);
}

/**
 * Releases the amounts held by `taskIds` at `now` (their tasks stopped awaiting payment),
 * inside `tx`. Tasks holding none (sandbox, never priced) are ignored.
 */
export async function releaseAmounts(tx: Tx, taskIds: readonly string[], now: Date): Promise<void> {
  if (taskIds.length === 0) return;
  await tx
    .update(paymentAmounts)
    .set({ releasedAt: now })
    .where(and(sql`${paymentAmounts.taskId} in ${jsonList(taskIds)}`, isNull(paymentAmounts.releasedAt)));
}

/** True when a transition from `from` to `to` ends the wait for payment (the amount is released). */
export function releasesAmount(from: TaskStatus, to: TaskStatus): boolean {
  return AWAITING_PAYMENT_STATUSES.includes(from) && !AWAITING_PAYMENT_STATUSES.includes(to);
}

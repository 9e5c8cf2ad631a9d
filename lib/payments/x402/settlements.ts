/**
 * The x402 settlements of tasks (`x402_settlements`; docs/x402.md "What happens"): claiming one
 * before anything is sent, following it (pending → broadcast → settled or failed), reconciling an
 * abandoned or in-flight one with the chain, and recording a mined one through the task state
 * layer in one transaction (the task paid, its event and audit row, the USDC receipt, the
 * `matched` chain transfer). The request flow that uses them is ./pay-task.ts.
 */ import { and, eq, inArray } from "drizzle-orm";
import { getDb } from "../../db/client.js";
import { chainTransfers, type Task, type X402Settlement, x402Settlements } from "../../db/schema/index.js";
import { DomainError, isDomainError } from "../../errors.js";
import { prefixedId } from "../../ids.js";
import { formatUsdc } from "../../money.js";
import { getTaskOrThrow } from "../../tasks/state/apply-transition.js";
import { recordPayment } from "../../tasks/state/record-payment.js";
import { type NetworkConfig, networkConfigs } from "../networks.js";
import { type PresentedPayment, refusedPayment, X402_REASONS, type X402Version } from "./protocol.js";
import { type SettledTransfer, transferOf } from "./settler.js";

/** A `pending` settlement (claimed, nothing broadcast) older than this, ms, was abandoned by a crash. */
const ABANDONED_AFTER_MS = 5 * 60_000;

/** x402's settlement answer (`PAYMENT-RESPONSE`, `_meta["x402/payment-response"]`). */
export interface X402SettleResponse {
  success: true;
  /** Transaction hash. */
  transaction: string;
  /** CAIP-2 (v2) or the network's name (v1). */
  network: string;
  payer: string;
}

/** The live (pending, broadcast or settled) settlement of `taskId`, if any. */
export async function liveSettlement(taskId: string): Promise<X402Settlement | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(x402Settlements)
    .where(
      and(
        eq(x402Settlements.taskId, taskId),
        inArray(x402Settlements.status, ["pending", "broadcast", "settled"]),
      ),
    );
  return row;
}

export async function updateSettlement(id: string, set: Partial<X402Settlement>): Promise<void> {
  const db = await getDb();
  await db
    .update(x402Settlements)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(x402Settlements.id, id));
}

/** The configured network of a settlement row (null when it is no longer configured). */
function networkOf(row: Pick<X402Settlement, "chainId">): NetworkConfig | null {
  return networkConfigs().find((n) => n.chainId === row.chainId) ?? null;
}

/** The x402 settle answer of `row` in `version`'s naming. */
export function settleResponse(row: X402Settlement, version: X402Version): X402SettleResponse {
  return {
    success: true,
    transaction: row.txHash ?? "",
    network: version === 1 ? row.network : `eip155:${row.chainId}`,
    payer: row.payer,
  };
}

/**
 * Records the mined settlement `row` (its `transfer`) through the task state layer, in one
 * transaction: the task paid (event, audit, USDC receipt), the `matched` chain_transfers row, the
 * settlement `settled`. A task the payment checker already paid with this very transaction counts
 * as paid by it.
 * @throws DomainError CONFLICT when the task stopped awaiting payment meanwhile (the transfer is
 *   then left to the checker, which records it as late or unmatched, for a refund)
 */
export async function recordSettled(
  row: X402Settlement,
  net: NetworkConfig,
  transfer: SettledTransfer,
): Promise<Task> {
  const now = new Date();
  try {
    const result = await recordPayment(
      row.taskId,
      {
        method: "usdc",
        network: net.name,
        txHash: transfer.txHash,
        note: `x402: ${formatUsdc(row.amountMicro)} USDC from ${row.payer} (log ${transfer.logIndex}, block ${transfer.blockNumber})`,
      },
      now,
      async (task, tx) => {
        await tx
          .insert(chainTransfers)
          .values({
            id: prefixedId("ctr"),
            network: net.name,
            chainId: net.chainId,
            txHash: transfer.txHash,
            logIndex: transfer.logIndex,
            blockNumber: transfer.blockNumber,
            blockHash: transfer.blockHash,
            blockTime: transfer.blockTime,
            fromAddress: row.payer,
            toAddress: net.wallet,
            tokenAddress: net.usdcContract,
            amountMicro: row.amountMicro,
            status: "matched",
            taskId: task.id,
            reason: null,
          })
          // The checker may have stored this log first as unmatched (e.g. a block dated before the
          // approval by a chain clock behind ours): the settlement says whose payment it is.
          .onConflictDoUpdate({
            target: [chainTransfers.chainId, chainTransfers.txHash, chainTransfers.logIndex],
            set: { status: "matched", taskId: task.id, reason: null, updatedAt: now },
          });
        await tx
          .update(x402Settlements)
          .set({ status: "settled", txHash: transfer.txHash, updatedAt: now })
          .where(eq(x402Settlements.id, row.id));
      },
    );
    return result.task;
  } catch (error) {
    if (!isDomainError(error, "CONFLICT")) throw error;
    const task = await getTaskOrThrow(row.taskId);
    if (task.paymentTxHash?.toLowerCase() === transfer.txHash) {
      await updateSettlement(row.id, { status: "settled", txHash: transfer.txHash });
      return task;
    }
    await updateSettlement(row.id, { status: "failed", errorReason: "task_not_awaiting_payment" });
    throw new DomainError(
      "CONFLICT",
      `Task ${task.id} became ${task.status} before the x402 transfer ${transfer.txHash} was recorded; ` +
        "the operator sees the transfer among the unmatched ones and refunds it",
      { extra: { current_status: task.status, tx_hash: transfer.txHash } },
    );
  }
}

/**
 * Brings a live settlement up to date. `settled` stays; `broadcast` asks the chain: mined → recorded
 * (settled), reverted or without our Transfer → failed; `pending` older than ABANDONED_AFTER_MS →
 * failed (a crash before the broadcast).
 * @returns the row as it now is
 * @throws DomainError CONFLICT when the mined payment's task stopped awaiting payment (recordSettled)
 */
export async function reconcile(row: X402Settlement): Promise<X402Settlement> {
  if (row.status === "pending") {
    if (Date.now() - row.updatedAt.getTime() < ABANDONED_AFTER_MS) return row;
    await updateSettlement(row.id, { status: "failed", errorReason: "abandoned_before_broadcast" });
    return { ...row, status: "failed" };
  }
  if (row.status !== "broadcast" || !row.txHash) return row;
  const net = networkOf(row);
  if (!net) return row;
  const outcome = await transferOf(
    net,
    row.txHash as `0x${string}`,
    row.payer as `0x${string}`,
    row.amountMicro,
  );
  if (outcome.state === "pending") return row;
  if (outcome.state !== "mined") {
    const reason =
      outcome.state === "reverted"
        ? X402_REASONS.transactionFailed
        : "invalid_exact_evm_transfer_event_mismatch";
    await updateSettlement(row.id, { status: "failed", errorReason: reason });
    return { ...row, status: "failed", errorReason: reason };
  }
  await recordSettled(row, net, outcome.transfer);
  return { ...row, status: "settled", txHash: outcome.transfer.txHash };
}

/**
 * Claims the settlement of `payment` for `task` (a committed `pending` row). A row of the same
 * authorization (chain, payer, nonce) that failed before is taken again; one of another task or
 * signature means the nonce was used.
 * @returns the claimed row, or the live row of the task that holds the claim (a concurrent request)
 * @throws DomainError PAYMENT_REQUIRED (`invalid_exact_evm_nonce_already_used`)
 */
export async function claim(
  task: Task,
  payment: PresentedPayment,
): Promise<{ claimed: X402Settlement } | { live: X402Settlement }> {
  const db = await getDb();
  const a = payment.authorization;
  const values = {
    id: prefixedId("x4s"),
    taskId: task.id,
    network: payment.network.name,
    chainId: payment.network.chainId,
    x402Version: payment.version,
    payer: a.from.toLowerCase(),
    nonce: a.nonce.toLowerCase(),
    amountMicro: BigInt(a.value),
    signature: payment.signature.toLowerCase(),
    status: "pending" as const,
  };
  // ON CONFLICT DO NOTHING covers both unique keys: this authorization, and the task's live settlement.
  const [inserted] = await db.insert(x402Settlements).values(values).onConflictDoNothing().returning();
  if (inserted) return { claimed: inserted };
  const [same] = await db
    .select()
    .from(x402Settlements)
    .where(
      and(
        eq(x402Settlements.chainId, values.chainId),
        eq(x402Settlements.payer, values.payer),
        eq(x402Settlements.nonce, values.nonce),
      ),
    );
  if (same && same.status !== "failed") {
    if (same.taskId === task.id && same.signature === values.signature) return { live: same };
    throw refusedPayment(
      X402_REASONS.nonceUsed,
      "This authorization's nonce was already presented for another payment",
    );
  }
  if (same && same.taskId === task.id && same.signature === values.signature) {
    try {
      const [again] = await db
        .update(x402Settlements)
        .set({ status: "pending", errorReason: null, txHash: null, updatedAt: new Date() })
        .where(and(eq(x402Settlements.id, same.id), eq(x402Settlements.status, "failed")))
        .returning();
      if (again) return { claimed: again };
    } catch {
      // the live-task index: another settlement took the task meanwhile
    }
    const live = await liveSettlement(task.id);
    if (live) return { live };
  }
  if (!same) {
    const live = await liveSettlement(task.id);
    if (live) return { live };
  }
  throw refusedPayment(
    X402_REASONS.nonceUsed,
    "This authorization's nonce was already presented for another payment",
  );
}

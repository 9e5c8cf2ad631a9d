/**
 * Paying a task with x402 (POST /api/task-pay, MCP `pay_task`; docs/x402.md, docs/decisions.md
 * "x402 at the payment step"). For the task's owner (lib/tasks/state/task-access.ts; anyone else
 * is told the task does not exist), on a task awaiting payment (`accepted_pending_payment`,
 * `counter_offered`):
 *
 * 1. No payment presented → what to sign: the x402 `PaymentRequired` (one `exact` requirement per
 *    network, `amount` = the task's payment_usdc in micro-units).
 * 2. A signed EIP-3009 authorization presented → checked without the chain (wallet, exact value,
 *    validity window), then on it (nonce unused per `authorizationState`, payer balance), verified by
 *    the facilitator (signature, simulation), claimed (an `x402_settlements` row committed before
 *    anything is sent), settled (`transferWithAuthorization`, the hash stored as soon as it is
 *    broadcast), and once mined recorded through the task state layer: the task paid, its
 *    `task.paid` event and audit row, the USDC receipt, the `matched` chain_transfers row of the
 *    Transfer log (so the payment checker knows it and records nothing more) and the settlement
 *    `settled`, in ONE transaction.
 * 3. While a settlement of the task is in flight → `in_flight` (HTTP 202 + Retry-After), never a
 *    new PaymentRequired; the same signed payment presented again once settled → the same answer.
 *
 * Any refusal before the broadcast records nothing but a `failed` settlement row when it was
 * claimed; the task is unchanged and may be paid by another payment or by a plain transfer.
 */
import { and, eq, inArray } from "drizzle-orm";
import { getConfig } from "../../config.js";
import { getDb } from "../../db/client.js";
import { OPEN_PAYMENT_STATUSES } from "../../db/schema/enums.js";
import {
  chainTransfers,
  type Task,
  tasks,
  type X402Settlement,
  x402Settlements,
} from "../../db/schema/index.js";
import { DomainError, isDomainError } from "../../errors.js";
import { prefixedId } from "../../ids.js";
import { formatUsdc } from "../../money.js";
import { getTaskOrThrow } from "../../tasks/state/apply-transition.js";
import { recordPayment } from "../../tasks/state/record-payment.js";
import { type TaskCredential, taskAccess } from "../../tasks/state/task-access.js";
import { type NetworkConfig, networkConfigs } from "../networks.js";
import {
  checkAuthorization,
  decodePayment,
  type PresentedPayment,
  refusedPayment,
  requirementFor,
  type TaskPaymentRequired,
  taskPaymentRequired,
  X402_REASONS,
  type X402Version,
  x402Enabled,
} from "./protocol.js";
import { authorizationFacts, type SettledTransfer, settlerFor, transferOf } from "./settler.js";

/** Seconds a caller waits before asking again about a settlement in flight (HTTP Retry-After). */
export const IN_FLIGHT_RETRY_SECONDS = 2;

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

/** What a pay request comes to (refusals are thrown, see {@link payTaskWithX402}). */
export type X402Outcome =
  /** Nothing presented: what to sign. */
  | { kind: "required"; task: Task; required: TaskPaymentRequired }
  /** A settlement of this task is in flight: ask again after `retryAfterSeconds`. */
  | { kind: "in_flight"; task: Task; retryAfterSeconds: number; txHash: string | null }
  /** Paid by this payment (`replayed`: it had been settled by an earlier request). */
  | { kind: "paid"; task: Task; response: X402SettleResponse; version: X402Version; replayed: boolean };

/** A presented payment: the raw header value (base64) or MCP object, and the version it came as. */
export interface PaymentPresentation {
  raw: unknown;
  version: X402Version;
}

/**
 * The task for its owner.
 * @throws DomainError NOT_FOUND (unknown, or not the caller's: a stranger learns nothing)
 */
async function ownedTask(taskId: string, credential: TaskCredential): Promise<Task> {
  const task = await getTaskOrThrow(taskId);
  if ((await taskAccess(task, credential)) === "public") {
    throw new DomainError("NOT_FOUND", `No task ${taskId}`, { field: "task_id" });
  }
  return task;
}

/**
 * Refuses a task that does not await an x402 payment.
 * @throws DomainError CONFLICT (`current_status`)
 */
function assertAwaitingPayment(task: Task, now: Date): bigint {
  const open = (OPEN_PAYMENT_STATUSES as readonly string[]).includes(task.status);
  if (!open || task.paymentUsdcMicro === null) {
    throw new DomainError(
      "CONFLICT",
      `Task ${task.id} is ${task.status}, not awaiting payment (x402 pays accepted_pending_payment and counter_offered tasks)`,
      { extra: { current_status: task.status } },
    );
  }
  if (task.sandbox) {
    throw new DomainError(
      "CONFLICT",
      `Task ${task.id} is a sandbox task: it advances by status checks, unpaid`,
      {
        extra: { current_status: task.status },
      },
    );
  }
  if (task.paymentExpiresAt && task.paymentExpiresAt <= now) {
    throw new DomainError(
      "CONFLICT",
      `Task ${task.id}'s payment window closed at ${task.paymentExpiresAt.toISOString()}`,
      {
        extra: { current_status: task.status },
      },
    );
  }
  return task.paymentUsdcMicro;
}

/** The live (pending, broadcast or settled) settlement of `taskId`, if any. */
async function liveSettlement(taskId: string): Promise<X402Settlement | undefined> {
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

async function updateSettlement(id: string, set: Partial<X402Settlement>): Promise<void> {
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
function settleResponse(row: X402Settlement, version: X402Version): X402SettleResponse {
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
async function recordSettled(
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
async function reconcile(row: X402Settlement): Promise<X402Settlement> {
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
 * The answer a live settlement `row` of `task` gives to a request presenting `presented` (or
 * nothing): in flight → `in_flight`; settled by the same signature → `paid` (replayed); settled by
 * another → the task is no longer awaiting payment. Undefined when the row has failed (the task
 * is payable again).
 * @throws DomainError CONFLICT (paid by another payment)
 */
async function answerOfLive(
  task: Task,
  row: X402Settlement,
  presented: PresentedPayment | null,
  version: X402Version,
): Promise<X402Outcome | undefined> {
  const now = await reconcile(row);
  if (now.status === "failed") return undefined;
  if (now.status === "pending" || now.status === "broadcast") {
    return { kind: "in_flight", task, retryAfterSeconds: IN_FLIGHT_RETRY_SECONDS, txHash: now.txHash };
  }
  const current = await getTaskOrThrow(task.id);
  if (presented && presented.signature.toLowerCase() === now.signature) {
    return { kind: "paid", task: current, response: settleResponse(now, version), version, replayed: true };
  }
  throw new DomainError(
    "CONFLICT",
    `Task ${task.id} is ${current.status}: it was paid by x402 transaction ${now.txHash}`,
    {
      extra: { current_status: current.status },
    },
  );
}

/**
 * Claims the settlement of `payment` for `task` (a committed `pending` row). A row of the same
 * authorization (chain, payer, nonce) that failed before is taken again; one of another task or
 * signature means the nonce was used.
 * @returns the claimed row, or the live row of the task that holds the claim (a concurrent request)
 * @throws DomainError PAYMENT_REQUIRED (`invalid_exact_evm_nonce_already_used`)
 */
async function claim(
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

/**
 * Checks `payment` on chain (nonce unused, balance) and with the facilitator (signature, simulation).
 * @throws DomainError PAYMENT_REQUIRED with the x402 reason
 */
async function verifyPayment(payment: PresentedPayment, amountMicro: bigint): Promise<void> {
  const a = payment.authorization;
  const facts = await authorizationFacts(payment.network, a.from, a.nonce);
  if (facts.nonceUsed) {
    throw refusedPayment(
      X402_REASONS.nonceUsed,
      "This authorization's nonce was already used on chain (EIP-3009)",
    );
  }
  if (facts.balance < amountMicro) {
    throw refusedPayment(
      X402_REASONS.insufficientBalance,
      `The payer holds ${formatUsdc(facts.balance)} USDC; the task needs ${formatUsdc(amountMicro)}`,
    );
  }
  const settler = await settlerFor(payment.network);
  const verdict = await settler.verify(payment.payload, requirementFor(payment.network, amountMicro));
  if (!verdict.isValid) {
    throw refusedPayment(
      verdict.invalidReason ?? "invalid_payment",
      `The facilitator refused the payment: ${verdict.invalidReason ?? "invalid"}${verdict.invalidMessage ? ` (${verdict.invalidMessage.slice(0, 200)})` : ""}`,
    );
  }
}

/**
 * Settles the claimed `row` and, once mined, records it.
 * @returns `paid`, or `in_flight` when the transaction was broadcast but not yet mined
 * @throws DomainError PAYMENT_REQUIRED (settlement refused before any broadcast), CONFLICT (see recordSettled)
 */
async function settle(
  task: Task,
  row: X402Settlement,
  payment: PresentedPayment,
  amountMicro: bigint,
): Promise<X402Outcome> {
  const settler = await settlerFor(payment.network);
  let result: Awaited<ReturnType<typeof settler.settle>>;
  try {
    result = await settler.settle(
      payment.payload,
      requirementFor(payment.network, amountMicro),
      async (txHash) => {
        // Committed at once: from now on this task answers "in flight", never a new 402.
        await updateSettlement(row.id, { status: "broadcast", txHash: txHash.toLowerCase() });
      },
    );
  } catch (error) {
    // Outcome unknown (a facilitator timeout, a network failure): broadcast may have happened.
    const [now] = await (await getDb()).select().from(x402Settlements).where(eq(x402Settlements.id, row.id));
    if (now?.status === "pending" && settler.kind === "inprocess") {
      await updateSettlement(row.id, { status: "failed", errorReason: "settle_error" });
    }
    throw error;
  }
  const txHash = result.transaction ? (result.transaction.toLowerCase() as `0x${string}`) : null;
  if (txHash) await updateSettlement(row.id, { status: "broadcast", txHash });
  if (!result.success && !txHash) {
    await updateSettlement(row.id, { status: "failed", errorReason: result.errorReason ?? "settle_failed" });
    throw refusedPayment(
      result.errorReason ?? "settle_failed",
      `Settlement failed before anything was sent: ${result.errorReason ?? "unknown"}`,
    );
  }
  const now = await reconcile({ ...row, status: "broadcast", txHash });
  if (now.status === "failed") {
    throw refusedPayment(
      now.errorReason ?? X402_REASONS.transactionFailed,
      `The settlement transaction ${txHash} failed on chain`,
    );
  }
  if (now.status !== "settled") {
    return { kind: "in_flight", task, retryAfterSeconds: IN_FLIGHT_RETRY_SECONDS, txHash };
  }
  return {
    kind: "paid",
    task: await getTaskOrThrow(task.id),
    response: settleResponse(now, payment.version),
    version: payment.version,
    replayed: false,
  };
}

/**
 * Pays task `taskId` for `credential` with the x402 payment `presentation` (see the module comment),
 * or, with none, says what to sign.
 * @throws DomainError NOT_FOUND (unknown task, or not the caller's), CONFLICT (not awaiting payment,
 *   sandbox, window closed, paid by another payment), INVALID_FORMAT (not an x402 `exact` payload),
 *   PAYMENT_REQUIRED (refused: `invalid_reason` in the error, the x402 reason); NOT_FOUND also
 *   when x402 is off (no such way to pay here: not a failure to retry)
 */
export async function payTaskWithX402(
  taskId: string,
  credential: TaskCredential,
  presentation: PaymentPresentation | undefined,
): Promise<X402Outcome> {
  const config = getConfig();
  if (!x402Enabled(config) || networkConfigs(config).length === 0) {
    throw new DomainError(
      "NOT_FOUND",
      "x402 payments are not enabled on this service; pay by a USDC transfer (the task's payment.networks)",
    );
  }
  const task = await ownedTask(taskId, credential);
  const now = new Date();
  const live = await liveSettlement(task.id);
  let presented: PresentedPayment | null = null;
  if (presentation && task.paymentUsdcMicro !== null) {
    presented = decodePayment(presentation.raw, presentation.version, task.paymentUsdcMicro, config);
  }
  if (live) {
    const answer = await answerOfLive(task, live, presented, presentation?.version ?? 2);
    if (answer) return answer;
  }
  const fresh = live ? await getTaskOrThrow(task.id) : task;
  const amount = assertAwaitingPayment(fresh, now);
  if (!presentation)
    return { kind: "required", task: fresh, required: taskPaymentRequired(fresh.id, amount) };
  presented ??= decodePayment(presentation.raw, presentation.version, amount, config);
  checkAuthorization(presented, amount, now);
  await verifyPayment(presented, amount);
  const claimed = await claim(fresh, presented);
  if ("live" in claimed) {
    const answer = await answerOfLive(fresh, claimed.live, presented, presented.version);
    if (answer) return answer;
    throw refusedPayment(X402_REASONS.nonceUsed, "This authorization was refused before; sign a new one");
  }
  return settle(fresh, claimed.claimed, presented, amount);
}

/**
 * The PaymentRequired of task `taskId` with the refusal `reason` (a 402 answering a refused payment
 * carries it again), or undefined when the task does not await payment.
 */
export async function requiredAfterRefusal(
  taskId: string,
  reason: string | undefined,
): Promise<TaskPaymentRequired | undefined> {
  const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, taskId));
  if (
    !task ||
    task.paymentUsdcMicro === null ||
    !(OPEN_PAYMENT_STATUSES as readonly string[]).includes(task.status)
  ) {
    return undefined;
  }
  return taskPaymentRequired(task.id, task.paymentUsdcMicro, reason);
}

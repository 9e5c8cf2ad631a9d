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
import { eq } from "drizzle-orm";
import { getConfig } from "../../config.js";
import { getDb } from "../../db/client.js";
import { OPEN_PAYMENT_STATUSES } from "../../db/schema/enums.js";
import { type Task, tasks, type X402Settlement, x402Settlements } from "../../db/schema/index.js";
import { DomainError } from "../../errors.js";
import { formatUsdc } from "../../money.js";
import { getTaskOrThrow } from "../../tasks/state/apply-transition.js";
import { type TaskCredential, taskAccess } from "../../tasks/state/task-access.js";
import { networkConfigs } from "../networks.js";
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
import {
  claim,
  liveSettlement,
  reconcile,
  settleResponse,
  updateSettlement,
  type X402SettleResponse,
} from "./settlements.js";
import { authorizationFacts, settlerFor } from "./settler.js";

/** Seconds a caller waits before asking again about a settlement in flight (HTTP Retry-After). */
export const IN_FLIGHT_RETRY_SECONDS = 2;

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
  checkAuthorization(presented, amount, now, config.X402_MAX_TIMEOUT_SECONDS);
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

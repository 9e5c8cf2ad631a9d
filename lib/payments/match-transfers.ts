/**
 * Matching new USDC transfers to tasks (step 4 of a payment-checker pass, see
 * scan-network.ts; docs/payments.md "Payments"). Each new log is matched by its exact amount to a
 * non-sandbox task awaiting payment (`accepted_pending_payment`, `counter_offered`) whose
 * amount was assigned at or before the log's block time (whole seconds: block times have no
 * fraction):
 *
 * - paid through the state machine in batches: the matches go to the `record` function the
 *   caller gives (the cron job passes the task state layer's `recordPayments`: one transaction
 *   per batch, the `matched` transfer rows written in the same transaction). The checker itself
 *   only finds matches: it never changes a task;
 * - paid after the window closed → `late`;
 * - anything else (wrong amount, a task already paid, a sandbox amount, a transfer older than
 *   the assignment of its amount) → `unmatched`, reason given.
 *
 * A late or unmatched transfer is explained by the task that held its amount at its block time
 * (`payment_amounts`), if any.
 */
import { and, desc, eq, inArray, notInArray, sql } from "drizzle-orm";
import { bulkInsert, chunks, jsonList } from "../db/bulk.js";
import { getDb } from "../db/client.js";
import { OPEN_PAYMENT_STATUSES, type TaskStatus } from "../db/schema/enums.js";
import { chainTransfers, type NewChainTransfer, paymentAmounts, tasks } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { formatUsdc } from "../money.js";
import type { PaymentEntry, recordPayments } from "../tasks/state/record-payment.js";
import type { BlockRef, ChainLog } from "./chain-reader.js";
import type { NetworkConfig } from "./networks.js";

/** Payment batches in flight at once (each on its own connection; PGlite runs them one after another). */
const PAY_CONCURRENCY = 2;

/**
 * Records a batch of matches as payments (the task state layer's `recordPayments`, given by the
 * cron job): `(matches, paidAt, claim)`, where `claim` runs in the payment transaction and
 * returns the matches that are still ours; resolves to the applied and the refused matches.
 */
export type RecordPayments = typeof recordPayments;

/** A task as the matcher sees it. */
interface TaskRef {
  id: string;
  amount: bigint;
  status: TaskStatus;
  expiresAt: Date | null;
  /** When the amount was given to the task (`payment_amounts`); null when not recorded. */
  assignedAt: Date | null;
}

/** A transfer that pays an open task, with what its transfer row needs. */
type Candidate = PaymentEntry & { log: ChainLog; block: BlockRef | undefined; task: TaskRef };

/**
 * A transfer that pays nothing (yet): `task` is the task that explains it when known, `reason`
 * a ready-made reason, `later` the open task that was given the amount only after it was sent.
 */
interface Leftover {
  log: ChainLog;
  task?: TaskRef;
  reason?: string;
  later?: TaskRef;
}

/** Counts of what {@link matchTransfers} recorded. */
export interface MatchCounts {
  matched: number;
  unmatched: number;
  late: number;
}

/** `time` truncated to the whole second (block times have whole seconds). */
const wholeSecond = (time: Date): number => Math.floor(time.getTime() / 1000) * 1000;

/** True when a transfer in `block` was sent before `task` was given its amount. */
const sentBeforeAssignment = (task: TaskRef, block: BlockRef | undefined): boolean =>
  task.assignedAt !== null && block !== undefined && block.time.getTime() < wholeSecond(task.assignedAt);

/** The columns of a {@link TaskRef} but its amount (read from the task or from the assignment). */
const TASK_REF_COLUMNS = {
  id: tasks.id,
  status: tasks.status,
  expiresAt: tasks.paymentExpiresAt,
  assignedAt: paymentAmounts.assignedAt,
};

/** Tasks (non-sandbox) with one of `amounts`, in the open statuses or outside them. */
async function tasksByAmount(amounts: bigint[], open: boolean): Promise<Map<bigint, TaskRef>> {
  const db = await getDb();
  const found = new Map<bigint, TaskRef>();
  for (const part of chunks(amounts, 10_000)) {
    const rows = await db
      .select({ ...TASK_REF_COLUMNS, amount: tasks.paymentUsdcMicro })
      .from(tasks)
      .leftJoin(paymentAmounts, eq(paymentAmounts.taskId, tasks.id))
      .where(
        and(
          eq(tasks.sandbox, false),
          sql`${tasks.paymentUsdcMicro} in ${jsonList(part, "bigint")}`,
          open
            ? inArray(tasks.status, [...OPEN_PAYMENT_STATUSES])
            : notInArray(tasks.status, [...OPEN_PAYMENT_STATUSES]),
        ),
      )
      .orderBy(desc(tasks.createdAt));
    // Newest first: the most recent task with that amount explains the transfer best.
    for (const r of rows) if (!found.has(r.amount!)) found.set(r.amount!, { ...r, amount: r.amount! });
  }
  return found;
}

/**
 * Every task that was given one of `amounts` (`payment_amounts`), newest assignment first:
 * who held an amount when a transfer was sent.
 */
async function holdersByAmount(amounts: bigint[]): Promise<Map<bigint, TaskRef[]>> {
  const db = await getDb();
  const found = new Map<bigint, TaskRef[]>();
  for (const part of chunks(amounts, 10_000)) {
    const rows = await db
      .select({ ...TASK_REF_COLUMNS, amount: paymentAmounts.amountMicro })
      .from(paymentAmounts)
      .innerJoin(tasks, eq(tasks.id, paymentAmounts.taskId))
      .where(sql`${paymentAmounts.amountMicro} in ${jsonList(part, "bigint")}`)
      .orderBy(desc(paymentAmounts.assignedAt));
    for (const r of rows) {
      const list = found.get(r.amount) ?? [];
      list.push(r);
      found.set(r.amount, list);
    }
  }
  return found;
}

/** The `chain_transfers` row of `log` on `net` with its outcome. */
function transferRow(
  net: NetworkConfig,
  log: ChainLog,
  block: BlockRef | undefined,
  status: NewChainTransfer["status"],
  taskId: string | null,
  reason: string | null,
): NewChainTransfer {
  return {
    id: prefixedId("ctr"),
    network: net.name,
    chainId: net.chainId,
    txHash: log.txHash,
    logIndex: log.logIndex,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    blockTime: block?.time ?? null,
    fromAddress: log.from,
    toAddress: log.to,
    tokenAddress: net.usdcContract,
    amountMicro: log.amount,
    status,
    taskId,
    reason,
  };
}

/**
 * Sorts `logs` (block order) into payments of the open tasks (`open`, by amount) and leftovers:
 * no open task with the amount; sent before the task was given it; a second transfer for a task
 * paid earlier in the run; sent after the task's window closed. Reads nothing, writes nothing.
 */
function planPayments(
  net: NetworkConfig,
  logs: ChainLog[],
  blocks: Map<bigint, BlockRef>,
  open: Map<bigint, TaskRef>,
): { candidates: Candidate[]; leftover: Leftover[] } {
  const paidThisRun = new Map<string, string>();
  const leftover: Leftover[] = [];
  const candidates: Candidate[] = [];
  for (const log of logs) {
    const block = blocks.get(log.blockNumber);
    const task = open.get(log.amount);
    if (!task) {
      leftover.push({ log });
      continue;
    }
    // Sent before the amount was given to this task: meant for an earlier holder, or none.
    if (sentBeforeAssignment(task, block)) {
      leftover.push({ log, later: task });
      continue;
    }
    if (paidThisRun.has(task.id)) {
      leftover.push({ log, task, reason: `Task ${task.id} was already paid by ${paidThisRun.get(task.id)}` });
      continue;
    }
    if (task.expiresAt && block && block.time > task.expiresAt) {
      leftover.push({ log, task: { ...task, status: "payment_expired" } });
      continue;
    }
    paidThisRun.set(task.id, log.txHash);
    candidates.push({
      taskId: task.id,
      log,
      block,
      task,
      payment: {
        method: "usdc",
        network: net.name,
        txHash: log.txHash,
        note: `${formatUsdc(log.amount)} USDC from ${log.from} (log ${log.logIndex}, block ${log.blockNumber})`,
      },
    });
  }
  return { candidates, leftover };
}

/**
 * Pays `part` through `record` in one transaction, each `matched` transfer row written with its
 * payment.
 * @returns how many were paid, and the refused ones as leftovers (the task changed since it was
 *   read: expired, cancelled, paid another way)
 */
async function payBatch(
  net: NetworkConfig,
  part: Candidate[],
  record: RecordPayments,
): Promise<{ matched: number; refused: Leftover[] }> {
  const outcome = await record(part, new Date(), async (ready, tx) => {
    const rows = ready.map(({ entry }) =>
      transferRow(net, entry.log, entry.block, "matched", entry.taskId, null),
    );
    const inserted = await bulkInsert(tx, chainTransfers, rows, {
      onConflictDoNothing: true,
      returning: ["id"],
    });
    // A row that already exists was recorded by a concurrent run: that payment is not ours.
    const ours = new Set(inserted.map((r) => r.id));
    return ready.filter((_, i) => ours.has(rows[i]!.id)).map((r) => r.entry);
  });
  return {
    matched: outcome.applied.length,
    refused: outcome.refused.map(({ entry, currentStatus }) => ({
      log: entry.log,
      task: { ...entry.task, status: currentStatus ?? entry.task.status },
    })),
  };
}

/**
 * Pays `candidates` through `record` in batches of `batchSize`. PAY_CONCURRENCY batches run at once on separate
 * connections (their tasks and transfers are disjoint, so they never wait on each other's
 * locks): one builds its statements while the database executes another's. A failing batch
 * stops the others from starting new ones; every worker finishes its batch in flight before
 * the first error is rethrown, so a run never reports while one of its transactions is open.
 * @returns how many were paid, and the refused candidates as leftovers
 * @throws the first batch's error
 */
async function payInBatches(
  net: NetworkConfig,
  candidates: Candidate[],
  batchSize: number,
  record: RecordPayments,
): Promise<{ matched: number; refused: Leftover[] }> {
  const parts = chunks(candidates, batchSize);
  const total = { matched: 0, refused: [] as Leftover[] };
  let next = 0;
  let failed = false;
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(PAY_CONCURRENCY, parts.length) }, async () => {
      while (!failed && next < parts.length) {
        const part = parts[next++]!;
        try {
          const done = await payBatch(net, part, record);
          total.matched += done.matched;
          total.refused.push(...done.refused);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
  const failure = workers.find((w): w is PromiseRejectedResult => w.status === "rejected");
  if (failure) throw failure.reason;
  return total;
}

/**
 * The tasks that explain leftovers without one: for each amount, every task that held it
 * (`payment_amounts`) and, for amounts with no recorded assignment, the newest other task
 * with the amount.
 */
async function explainers(
  leftover: Leftover[],
): Promise<{ history: Map<bigint, TaskRef[]>; others: Map<bigint, TaskRef> }> {
  const unexplained = [...new Set(leftover.filter((l) => !l.task).map((l) => l.log.amount))];
  const history = unexplained.length ? await holdersByAmount(unexplained) : new Map<bigint, TaskRef[]>();
  const unrecorded = unexplained.filter((a) => !history.has(a));
  const others = unrecorded.length ? await tasksByAmount(unrecorded, false) : new Map<bigint, TaskRef>();
  return { history, others };
}

/**
 * The `late` or `unmatched` row of one leftover, explained by `item.task`, else by the task
 * that held the amount when the transfer was sent (the newest assignment at or before its
 * block time, other than `item.later`), else by `other` (newest other task with the amount).
 */
function leftoverRow(
  net: NetworkConfig,
  item: Leftover,
  block: BlockRef | undefined,
  holders: TaskRef[] | undefined,
  other: TaskRef | undefined,
): NewChainTransfer {
  const { log, later } = item;
  const task =
    item.task ??
    (holders ? holders.find((h) => h.id !== later?.id && !sentBeforeAssignment(h, block)) : other);
  const usdc = formatUsdc(log.amount);
  const sentAt = block ? ` (block time ${block.time.toISOString()})` : "";
  const notLater = later
    ? `; task ${later.id} was given this amount only at ${later.assignedAt!.toISOString()}, after this transfer${sentAt}, so it does not pay it`
    : "";
  if (task && task.status === "payment_expired") {
    // Sent inside the window but confirmed only after the task had expired, or sent too late.
    const inWindow = block && task.expiresAt && block.time <= task.expiresAt;
    const reason =
      (inWindow
        ? `${usdc} USDC arrived at ${block.time.toISOString()}, inside task ${task.id}'s payment window (closed ${task.expiresAt!.toISOString()}), but was confirmed after the task had expired`
        : `${usdc} USDC arrived ${block ? `at ${block.time.toISOString()} ` : ""}after task ${task.id}'s payment window closed` +
          (task.expiresAt ? ` (${task.expiresAt.toISOString()})` : "")) +
      `; refund to ${log.from} or settle by hand${notLater}`;
    return transferRow(net, log, block, "late", task.id, reason);
  }
  const reason =
    item.reason ??
    (task
      ? `Task ${task.id} with this amount is ${task.status}, not awaiting payment; refund to ${log.from}${notLater}`
      : later
        ? `No task awaited a payment of exactly ${usdc} USDC when it was sent; refund to ${log.from}${notLater}`
        : `No task awaits a payment of exactly ${usdc} USDC`);
  return transferRow(net, log, block, "unmatched", task?.id ?? null, reason);
}

/**
 * Pays (through `record`, the task state layer's `recordPayments` given by the cron job), or
 * records as late / unmatched, each new log of `net` (in block order; see the module comment).
 * `blocks` holds the header of every log's block; rows are written `batchSize` per statement and
 * payments `batchSize` per transaction. Known transfers are refused by the
 * unique key (chain id, tx hash, log index), so a concurrent run never records one twice.
 * @returns the counts of matched, unmatched and late transfers recorded
 * @throws the database's errors (a failed payment batch is rolled back whole)
 */
export async function matchTransfers(
  net: NetworkConfig,
  logs: ChainLog[],
  blocks: Map<bigint, BlockRef>,
  batchSize: number,
  record: RecordPayments,
): Promise<MatchCounts> {
  const open = await tasksByAmount([...new Set(logs.map((l) => l.amount))], true);
  const { candidates, leftover } = planPayments(net, logs, blocks, open);
  const paid = await payInBatches(net, candidates, batchSize, record);
  leftover.push(...paid.refused);

  const { history, others } = await explainers(leftover);
  const counts: MatchCounts = { matched: paid.matched, unmatched: 0, late: 0 };
  const rows = leftover.map((item) => {
    const row = leftoverRow(
      net,
      item,
      blocks.get(item.log.blockNumber),
      history.get(item.log.amount),
      others.get(item.log.amount),
    );
    counts[row.status === "late" ? "late" : "unmatched"]++;
    return row;
  });
  const db = await getDb();
  for (const part of chunks(rows, batchSize)) {
    await bulkInsert(db, chainTransfers, part, { onConflictDoNothing: true });
  }
  return counts;
}

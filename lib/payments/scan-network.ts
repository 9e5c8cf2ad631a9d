/**
 * One payment-checker pass over one network (issue "On-chain USDC payments", README
 * "Payments"):
 *
 * 1. Read the chain id (must equal the configured one) and the confirmed head.
 * 2. Scan blocks [cursor + 1 − CHECKER_RESCAN_BLOCKS, min(head, cursor + CHECKER_MAX_BLOCKS_PER_RUN)]
 *    in eth_getLogs ranges of CHECKER_BLOCK_RANGE blocks for USDC Transfer logs to the wallet,
 *    then the headers of the blocks holding new logs (their time decides lateness).
 *    Every RPC read happens before any write: an RPC failure leaves everything, the
 *    cursor included, as it was.
 * 3. Reorgs: a stored transfer inside the scanned range that the chain no longer has
 *    becomes `reorged` (with the reason); one that moved to another block gets its new
 *    block number and hash.
 * 4. Each new log (unique chain id + tx hash + log index) is matched by its exact amount
 *    to a non-sandbox task awaiting payment (`accepted_pending_payment`, `counter_offered`):
 *    paid through the state machine in batches (`recordPayments`: one transaction per
 *    batch, the `matched` transfer rows written in the same transaction); paid after the window closed → `late`; anything
 *    else (wrong amount, a task already paid, a sandbox amount) → `unmatched`, reason given.
 * 5. Move the cursor to the last scanned block (with its hash).
 *
 * Re-running over the same blocks changes nothing: known transfers are skipped and the
 * unique key refuses a second row even to a concurrent run.
 */
import { and, between, desc, eq, inArray, notInArray, sql } from "drizzle-orm";
import { bulkInsert, jsonList } from "../db/bulk.js";
import { getDb } from "../db/client.js";
import type { TaskStatus } from "../db/schema/enums.js";
import { chainCursors, chainTransfers, type NewChainTransfer, tasks } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { type PaymentEntry, recordPayments } from "../tasks/record-payment.js";
import { formatUsdc } from "./amount.js";
import { type BlockRef, type ChainLog, ChainReader } from "./chain-reader.js";
import type { NetworkConfig } from "./networks.js";

/** Statuses of a task that still awaits payment. */
export const OPEN_PAYMENT_STATUSES: TaskStatus[] = ["accepted_pending_payment", "counter_offered"];

/** Scan limits (from config). */
export interface ScanLimits {
  /** Blocks per eth_getLogs. */
  blockRange: number;
  /** New blocks per run. */
  maxBlocksPerRun: number;
  /** Blocks below the cursor re-scanned (reorgs). */
  rescanBlocks: number;
  /** Payments (and unmatched transfer rows) written per transaction; default 1,000. */
  payBatch?: number;
}

/** What one pass did. */
export interface NetworkScanResult {
  network: string;
  chain_id: number;
  /** First and last block scanned (null when nothing was scanned). */
  from_block: string | null;
  to_block: string | null;
  confirmed_head: string | null;
  /** Transfer logs read in the scanned range (re-scan window included). */
  transfers_seen: number;
  /** Logs not seen before. */
  new_transfers: number;
  matched: number;
  unmatched: number;
  late: number;
  reorged: number;
  /** Milliseconds waiting for the RPC node (the rest of the pass is the checker's own time). */
  rpc_ms: number;
}

const keyOf = (txHash: string, logIndex: number) => `${txHash}:${logIndex}`;

/** Payment batches in flight at once (each on its own connection; PGlite runs them one after another). */
const PAY_CONCURRENCY = 2;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Scans network `net` once (see the module comment).
 * @throws the RPC's errors (network failure, timeout, RpcGarbageError), or Error when the
 *   node's chain id differs from the configured one; nothing is written then.
 */
export async function scanNetwork(net: NetworkConfig, limits: ScanLimits): Promise<NetworkScanResult> {
  const reader = new ChainReader(net);
  const db = await getDb();
  let rpcMs = 0;
  const rpc = async <T>(work: Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await work;
    } finally {
      rpcMs += performance.now() - t;
    }
  };
  const result: NetworkScanResult = {
    network: net.name,
    chain_id: net.chainId,
    from_block: null,
    to_block: null,
    confirmed_head: null,
    transfers_seen: 0,
    new_transfers: 0,
    matched: 0,
    unmatched: 0,
    late: 0,
    reorged: 0,
    rpc_ms: 0,
  };

  // 1. Chain id and confirmed head.
  const chainId = await rpc(reader.chainId());
  if (chainId !== net.chainId) {
    throw new Error(`${net.name}: the RPC node serves chain ${chainId}, configured ${net.chainId}`);
  }
  const head = await rpc(reader.confirmedHead());
  result.confirmed_head = head === null ? null : head.toString();
  const [cursor] = await db.select().from(chainCursors).where(eq(chainCursors.network, net.name));
  if (cursor && cursor.chainId !== net.chainId) {
    throw new Error(
      `${net.name}: the cursor belongs to chain ${cursor.chainId}, configured ${net.chainId}; ` +
        "delete its chain_cursors row to rescan from the start block",
    );
  }
  if (head === null) return { ...result, rpc_ms: Math.round(rpcMs) };

  // 2. Range: the re-scan window below the cursor, then new blocks up to the confirmed head.
  const rescan = BigInt(limits.rescanBlocks);
  const floor = cursor ? 0n : BigInt(net.startBlock ?? Math.max(0, Number(head - rescan)));
  const last = cursor ? cursor.lastScannedBlock : floor - 1n;
  let from = last + 1n - rescan;
  if (from < floor) from = floor;
  let to = last + BigInt(limits.maxBlocksPerRun);
  if (to > head) to = head;
  if (to < from) return { ...result, rpc_ms: Math.round(rpcMs) };

  const logs: ChainLog[] = [];
  for (let a = from; a <= to; a += BigInt(limits.blockRange)) {
    let b = a + BigInt(limits.blockRange) - 1n;
    if (b > to) b = to;
    logs.push(...(await rpc(reader.transferLogs(a, b))));
  }
  result.from_block = from.toString();
  result.to_block = to.toString();
  result.transfers_seen = logs.length;

  // Known transfers in the range (reorg check) and which logs are new.
  const stored = await db
    .select({
      id: chainTransfers.id,
      txHash: chainTransfers.txHash,
      logIndex: chainTransfers.logIndex,
      blockHash: chainTransfers.blockHash,
      blockNumber: chainTransfers.blockNumber,
      status: chainTransfers.status,
      taskId: chainTransfers.taskId,
    })
    .from(chainTransfers)
    .where(and(eq(chainTransfers.chainId, net.chainId), between(chainTransfers.blockNumber, from, to)));
  const storedByKey = new Map(stored.map((s) => [keyOf(s.txHash, s.logIndex), s]));
  const fresh = new Map(logs.map((l) => [keyOf(l.txHash, l.logIndex), l]));
  // Logs stored outside the range (a re-included transaction that moved blocks) are known too.
  const unknownTxs = [
    ...new Set(logs.filter((l) => !storedByKey.has(keyOf(l.txHash, l.logIndex))).map((l) => l.txHash)),
  ];
  if (unknownTxs.length) {
    for (const part of chunks(unknownTxs, 1000)) {
      const rows = await db
        .select({
          id: chainTransfers.id,
          txHash: chainTransfers.txHash,
          logIndex: chainTransfers.logIndex,
          blockHash: chainTransfers.blockHash,
          blockNumber: chainTransfers.blockNumber,
          status: chainTransfers.status,
          taskId: chainTransfers.taskId,
        })
        .from(chainTransfers)
        .where(and(eq(chainTransfers.chainId, net.chainId), inArray(chainTransfers.txHash, part)));
      for (const r of rows) storedByKey.set(keyOf(r.txHash, r.logIndex), r);
    }
  }
  const reappeared = new Set<string>();
  const newLogs = logs.filter((l) => {
    const known = storedByKey.get(keyOf(l.txHash, l.logIndex));
    if (known?.status === "reorged") reappeared.add(known.id);
    return !known || known.status === "reorged";
  });

  // Headers of the blocks holding new logs (time → lateness; hash → consistency), and of `to`.
  const wanted = [...new Set([...newLogs.map((l) => l.blockNumber), to])];
  const blocks = new Map<bigint, BlockRef>();
  for (const part of chunks(wanted, 100)) {
    const refs = await rpc(Promise.all(part.map((n) => reader.block(n))));
    refs.forEach((ref, i) => {
      if (!ref) throw new Error(`${net.name}: the RPC node has no block ${part[i]} below its confirmed head`);
      blocks.set(ref.number, ref);
    });
  }
  for (const l of newLogs) {
    if (blocks.get(l.blockNumber)?.hash !== l.blockHash) {
      throw new Error(
        `${net.name}: block ${l.blockNumber} changed while reading it (reorg); retrying next run`,
      );
    }
  }
  result.rpc_ms = Math.round(rpcMs);

  // 3. Reorgs: stored transfers of the range that the chain no longer has, or that moved.
  for (const s of stored) {
    const log = fresh.get(keyOf(s.txHash, s.logIndex));
    if (!log && s.status !== "reorged") {
      await db
        .update(chainTransfers)
        .set({
          status: "reorged",
          reason:
            `The log is no longer on chain (block ${s.blockNumber} ${s.blockHash} was reorganized)` +
            (s.status === "matched" && s.taskId
              ? `; task ${s.taskId} was marked paid by it: check the payment by hand`
              : ""),
          updatedAt: new Date(),
        })
        .where(eq(chainTransfers.id, s.id));
      result.reorged++;
    }
  }
  for (const s of storedByKey.values()) {
    const log = fresh.get(keyOf(s.txHash, s.logIndex));
    if (
      log &&
      s.status !== "reorged" &&
      (log.blockHash !== s.blockHash || log.blockNumber !== s.blockNumber)
    ) {
      await db
        .update(chainTransfers)
        .set({ blockNumber: log.blockNumber, blockHash: log.blockHash, updatedAt: new Date() })
        .where(eq(chainTransfers.id, s.id));
    }
  }
  if (reappeared.size) await db.delete(chainTransfers).where(inArray(chainTransfers.id, [...reappeared]));

  // 4. Match new logs.
  result.new_transfers = newLogs.length;
  if (newLogs.length) {
    const outcome = await matchTransfers(net, newLogs, blocks, limits.payBatch ?? 1000);
    result.matched = outcome.matched;
    result.unmatched = outcome.unmatched;
    result.late = outcome.late;
  }

  // 5. Cursor.
  const toBlock = blocks.get(to)!;
  if (!cursor || to > cursor.lastScannedBlock) {
    await db
      .insert(chainCursors)
      .values({ network: net.name, chainId: net.chainId, lastScannedBlock: to, lastBlockHash: toBlock.hash })
      .onConflictDoUpdate({
        target: chainCursors.network,
        set: {
          chainId: net.chainId,
          lastScannedBlock: to,
          lastBlockHash: toBlock.hash,
          updatedAt: new Date(),
        },
      });
  }
  return result;
}

interface TaskRef {
  id: string;
  amount: bigint;
  status: TaskStatus;
  expiresAt: Date | null;
}

/** Tasks (non-sandbox) with one of `amounts`, in the open statuses or outside them. */
async function tasksByAmount(amounts: bigint[], open: boolean): Promise<Map<bigint, TaskRef>> {
  const db = await getDb();
  const found = new Map<bigint, TaskRef>();
  for (const part of chunks(amounts, 10_000)) {
    const rows = await db
      .select({
        id: tasks.id,
        amount: tasks.paymentUsdcMicro,
        status: tasks.status,
        expiresAt: tasks.paymentExpiresAt,
      })
      .from(tasks)
      .where(
        and(
          eq(tasks.sandbox, false),
          sql`${tasks.paymentUsdcMicro} in ${jsonList(part, "bigint")}`,
          open
            ? inArray(tasks.status, OPEN_PAYMENT_STATUSES)
            : notInArray(tasks.status, OPEN_PAYMENT_STATUSES),
        ),
      )
      .orderBy(desc(tasks.createdAt));
    // Newest first: the most recent task with that amount explains the transfer best.
    for (const r of rows) if (!found.has(r.amount!)) found.set(r.amount!, { ...r, amount: r.amount! });
  }
  return found;
}

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

/** Pays, or records as late / unmatched, each new log (in block order). */
async function matchTransfers(
  net: NetworkConfig,
  logs: ChainLog[],
  blocks: Map<bigint, BlockRef>,
  batchSize: number,
): Promise<{ matched: number; unmatched: number; late: number }> {
  const db = await getDb();
  const counts = { matched: 0, unmatched: 0, late: 0 };
  const amounts = [...new Set(logs.map((l) => l.amount))];
  const open = await tasksByAmount(amounts, true);
  const paidThisRun = new Map<string, string>();
  const leftover: { log: ChainLog; task?: TaskRef; reason?: string }[] = [];

  const candidates: (PaymentEntry & { log: ChainLog; block: BlockRef | undefined; task: TaskRef })[] = [];
  for (const log of logs) {
    const block = blocks.get(log.blockNumber);
    const task = open.get(log.amount);
    if (!task) {
      leftover.push({ log });
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
  // Paid in batches: one transaction per batch, each transfer row written with its payment.
  // PAY_CONCURRENCY batches run at once on separate connections (their tasks and transfers
  // are disjoint, so they never wait on each other's locks): one builds its statements while
  // the database executes another's. A failing batch stops the others from starting new ones.
  const payBatch = async (part: typeof candidates) => {
    const outcome = await recordPayments(part, new Date(), async (ready, tx) => {
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
    counts.matched += outcome.applied.length;
    // The task changed since it was read (expired, cancelled, paid another way).
    for (const { entry, currentStatus } of outcome.refused) {
      leftover.push({ log: entry.log, task: { ...entry.task, status: currentStatus ?? entry.task.status } });
    }
  };
  const parts = chunks(candidates, batchSize);
  let next = 0;
  let failed = false;
  // Every worker finishes its batch in flight before the first error is rethrown, so a run
  // never reports while one of its transactions is still open.
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(PAY_CONCURRENCY, parts.length) }, async () => {
      while (!failed && next < parts.length) {
        const part = parts[next++]!;
        try {
          await payBatch(part);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
  const failure = workers.find((w): w is PromiseRejectedResult => w.status === "rejected");
  if (failure) throw failure.reason;

  // Late or unmatched, explained by the newest other task with the amount, if any.
  const unexplained = [...new Set(leftover.filter((l) => !l.task).map((l) => l.log.amount))];
  const others = unexplained.length ? await tasksByAmount(unexplained, false) : new Map<bigint, TaskRef>();
  const rows: NewChainTransfer[] = [];
  for (const item of leftover) {
    const { log } = item;
    const block = blocks.get(log.blockNumber);
    const task = item.task ?? others.get(log.amount);
    const usdc = formatUsdc(log.amount);
    if (task && task.status === "payment_expired") {
      rows.push(
        transferRow(
          net,
          log,
          block,
          "late",
          task.id,
          `${usdc} USDC arrived ${block ? `at ${block.time.toISOString()} ` : ""}after task ${task.id}'s payment window closed` +
            (task.expiresAt ? ` (${task.expiresAt.toISOString()})` : "") +
            `; refund to ${log.from} or settle by hand`,
        ),
      );
      counts.late++;
      continue;
    }
    const reason =
      item.reason ??
      (task
        ? `Task ${task.id} with this amount is ${task.status}, not awaiting payment; refund to ${log.from}`
        : `No task awaits a payment of exactly ${usdc} USDC`);
    rows.push(transferRow(net, log, block, "unmatched", task?.id ?? null, reason));
    counts.unmatched++;
  }
  for (const part of chunks(rows, batchSize)) {
    await bulkInsert(db, chainTransfers, part, { onConflictDoNothing: true });
  }
  return counts;
}

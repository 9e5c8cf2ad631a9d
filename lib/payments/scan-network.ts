/**
 * One payment-checker pass over one network (issue "On-chain USDC payments", docs/payments.md
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
 *    to a task awaiting payment and paid (through the recorder the cron job gives), or
 *    recorded as `late` or `unmatched` (match-transfers.ts).
 * 5. Move the cursor to the last scanned block (with its hash).
 *
 * Re-running over the same blocks changes nothing: known transfers are skipped and the
 * unique key refuses a second row even to a concurrent run.
 */
import { and, between, eq, inArray } from "drizzle-orm";
import { chunks } from "../db/bulk.js";
import { type Db, getDb } from "../db/client.js";
import { type ChainCursor, chainCursors, chainTransfers } from "../db/schema/index.js";
import { type BlockRef, type ChainLog, ChainReader } from "./chain-reader.js";
import { matchTransfers, type RecordPayments } from "./match-transfers.js";
import type { NetworkConfig } from "./networks.js";

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

/** A stored transfer, as the reorg check reads it. */
interface StoredTransfer {
  id: string;
  txHash: string;
  logIndex: number;
  blockHash: string;
  blockNumber: bigint;
  status: "matched" | "unmatched" | "late" | "reorged";
  taskId: string | null;
}

const keyOf = (txHash: string, logIndex: number) => `${txHash}:${logIndex}`;

const storedColumns = {
  id: chainTransfers.id,
  txHash: chainTransfers.txHash,
  logIndex: chainTransfers.logIndex,
  blockHash: chainTransfers.blockHash,
  blockNumber: chainTransfers.blockNumber,
  status: chainTransfers.status,
  taskId: chainTransfers.taskId,
};

/** Wraps RPC calls to add up the time spent waiting for the node. */
function rpcTimer(): { rpc<T>(work: Promise<T>): Promise<T>; ms(): number } {
  let total = 0;
  return {
    async rpc(work) {
      const t = performance.now();
      try {
        return await work;
      } finally {
        total += performance.now() - t;
      }
    },
    ms: () => Math.round(total),
  };
}

/** A result with nothing scanned yet. */
function emptyResult(net: NetworkConfig): NetworkScanResult {
  return {
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
}

/**
 * The cursor of `net`, checked against the configured chain.
 * @throws Error when the stored cursor belongs to another chain id
 */
async function readCursor(db: Db, net: NetworkConfig): Promise<ChainCursor | undefined> {
  const [cursor] = await db.select().from(chainCursors).where(eq(chainCursors.network, net.name));
  if (cursor && cursor.chainId !== net.chainId) {
    throw new Error(
      `${net.name}: the cursor belongs to chain ${cursor.chainId}, configured ${net.chainId}; ` +
        "delete its chain_cursors row to rescan from the start block",
    );
  }
  return cursor;
}

/**
 * The blocks to scan: the re-scan window below the cursor, then new blocks up to the confirmed
 * `head`, at most `maxBlocksPerRun` past the cursor. Without a cursor the scan starts at the
 * network's start block (else `rescanBlocks` below the head). Null when there is nothing to scan.
 */
export function scanRange(
  cursorBlock: bigint | undefined,
  head: bigint,
  startBlock: number | undefined,
  limits: Pick<ScanLimits, "maxBlocksPerRun" | "rescanBlocks">,
): { from: bigint; to: bigint } | null {
  const rescan = BigInt(limits.rescanBlocks);
  const floor = cursorBlock !== undefined ? 0n : BigInt(startBlock ?? Math.max(0, Number(head - rescan)));
  const last = cursorBlock ?? floor - 1n;
  let from = last + 1n - rescan;
  if (from < floor) from = floor;
  let to = last + BigInt(limits.maxBlocksPerRun);
  if (to > head) to = head;
  return to < from ? null : { from, to };
}

/** The Transfer logs of blocks [from, to], read `blockRange` blocks per eth_getLogs. */
async function readTransferLogs(
  reader: ChainReader,
  rpc: <T>(work: Promise<T>) => Promise<T>,
  from: bigint,
  to: bigint,
  blockRange: number,
): Promise<ChainLog[]> {
  const logs: ChainLog[] = [];
  for (let a = from; a <= to; a += BigInt(blockRange)) {
    let b = a + BigInt(blockRange) - 1n;
    if (b > to) b = to;
    logs.push(...(await rpc(reader.transferLogs(a, b))));
  }
  return logs;
}

/**
 * The stored transfers of blocks [from, to] (`inRange`, for the reorg check) and every stored
 * transfer any of `logs` refers to (`byKey`, keyed tx hash:log index), including those stored
 * outside the range (a re-included transaction that moved blocks).
 */
async function knownTransfers(
  db: Db,
  net: NetworkConfig,
  logs: ChainLog[],
  from: bigint,
  to: bigint,
): Promise<{ inRange: StoredTransfer[]; byKey: Map<string, StoredTransfer> }> {
  const inRange = await db
    .select(storedColumns)
    .from(chainTransfers)
    .where(and(eq(chainTransfers.chainId, net.chainId), between(chainTransfers.blockNumber, from, to)));
  const byKey = new Map<string, StoredTransfer>(inRange.map((s) => [keyOf(s.txHash, s.logIndex), s]));
  const unknownTxs = [
    ...new Set(logs.filter((l) => !byKey.has(keyOf(l.txHash, l.logIndex))).map((l) => l.txHash)),
  ];
  for (const part of chunks(unknownTxs, 1000)) {
    const rows = await db
      .select(storedColumns)
      .from(chainTransfers)
      .where(and(eq(chainTransfers.chainId, net.chainId), inArray(chainTransfers.txHash, part)));
    for (const r of rows) byKey.set(keyOf(r.txHash, r.logIndex), r);
  }
  return { inRange, byKey };
}

/**
 * The headers of blocks `numbers`, 100 per JSON-RPC batch, checked against the block hashes of
 * `newLogs` (a mismatch means the block changed while it was read).
 * @throws Error when the node lacks a block below its confirmed head, or on a mismatch
 */
async function readBlocks(
  reader: ChainReader,
  rpc: <T>(work: Promise<T>) => Promise<T>,
  net: NetworkConfig,
  numbers: bigint[],
  newLogs: ChainLog[],
): Promise<Map<bigint, BlockRef>> {
  const blocks = new Map<bigint, BlockRef>();
  for (const part of chunks(numbers, 100)) {
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
  return blocks;
}

/**
 * Step 3: marks `reorged` the stored transfers of the range that the chain no longer has (with
 * the reason), moves those whose log moved to another block, and deletes the reorged rows whose
 * log reappeared (`reappeared`: they are matched again as new).
 * @returns how many transfers became reorged
 */
async function applyReorgs(
  db: Db,
  inRange: StoredTransfer[],
  known: Map<string, StoredTransfer>,
  fresh: Map<string, ChainLog>,
  reappeared: Set<string>,
): Promise<number> {
  let reorged = 0;
  for (const s of inRange) {
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
      reorged++;
    }
  }
  for (const s of known.values()) {
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
  return reorged;
}

/** Step 5: moves the cursor of `net` to block `to` (with its hash), unless it is already past it. */
async function advanceCursor(
  db: Db,
  net: NetworkConfig,
  cursor: ChainCursor | undefined,
  to: BlockRef,
): Promise<void> {
  if (cursor && to.number <= cursor.lastScannedBlock) return;
  await db
    .insert(chainCursors)
    .values({ network: net.name, chainId: net.chainId, lastScannedBlock: to.number, lastBlockHash: to.hash })
    .onConflictDoUpdate({
      target: chainCursors.network,
      set: {
        chainId: net.chainId,
        lastScannedBlock: to.number,
        lastBlockHash: to.hash,
        updatedAt: new Date(),
      },
    });
}

/**
 * Scans network `net` once (see the module comment); the matched transfers are paid through
 * `record` (the cron job gives the task state layer's `recordPayments`).
 * @returns what the pass read and recorded (counts, scanned range, time spent on RPC)
 * @throws the RPC's errors (network failure, timeout, RpcGarbageError), or Error when the
 *   node's chain id differs from the configured one; nothing is written then.
 */
export async function scanNetwork(
  net: NetworkConfig,
  limits: ScanLimits,
  record: RecordPayments,
): Promise<NetworkScanResult> {
  const reader = new ChainReader(net);
  const db = await getDb();
  const { rpc, ms } = rpcTimer();
  const result = emptyResult(net);

  // 1. Chain id and confirmed head.
  const chainId = await rpc(reader.chainId());
  if (chainId !== net.chainId) {
    throw new Error(`${net.name}: the RPC node serves chain ${chainId}, configured ${net.chainId}`);
  }
  const head = await rpc(reader.confirmedHead());
  result.confirmed_head = head === null ? null : head.toString();
  const cursor = await readCursor(db, net);
  if (head === null) return { ...result, rpc_ms: ms() };

  // 2. Range, its logs, which are new, and the headers of their blocks (and of `to`).
  const range = scanRange(cursor?.lastScannedBlock, head, net.startBlock, limits);
  if (!range) return { ...result, rpc_ms: ms() };
  const { from, to } = range;
  const logs = await readTransferLogs(reader, rpc, from, to, limits.blockRange);
  result.from_block = from.toString();
  result.to_block = to.toString();
  result.transfers_seen = logs.length;

  const { inRange, byKey } = await knownTransfers(db, net, logs, from, to);
  const fresh = new Map(logs.map((l) => [keyOf(l.txHash, l.logIndex), l]));
  const reappeared = new Set<string>();
  const newLogs = logs.filter((l) => {
    const known = byKey.get(keyOf(l.txHash, l.logIndex));
    if (known?.status === "reorged") reappeared.add(known.id);
    return !known || known.status === "reorged";
  });
  const wanted = [...new Set([...newLogs.map((l) => l.blockNumber), to])];
  const blocks = await readBlocks(reader, rpc, net, wanted, newLogs);
  result.rpc_ms = ms();

  // 3. Reorgs.
  result.reorged = await applyReorgs(db, inRange, byKey, fresh, reappeared);

  // 4. Match new logs.
  result.new_transfers = newLogs.length;
  if (newLogs.length) {
    const outcome = await matchTransfers(net, newLogs, blocks, limits.payBatch ?? 1000, record);
    result.matched = outcome.matched;
    result.unmatched = outcome.unmatched;
    result.late = outcome.late;
  }

  // 5. Cursor.
  await advanceCursor(db, net, cursor, blocks.get(to)!);
  return result;
}

/**
 * Reads one payment network over JSON-RPC (viem public client, HTTP transport with
 * `CHECKER_RPC_TIMEOUT_MS` per request, no retries, JSON-RPC batching): chain id,
 * confirmed head, block headers and the USDC `Transfer(from, to, value)` logs into the
 * service wallet. Every answer is validated strictly; anything malformed throws, so
 * the checker leaves its cursor where it was instead of recording garbage.
 * viem (~130 ms to import, docs/performance.md) is loaded by the first RPC request, not with
 * this module: a run of the checker with nothing to read, and every function that only
 * imports the checker's types, never pays for it.
 */
import type { PublicClient } from "viem";
import { getConfig } from "../config.js";
import type { NetworkConfig } from "./networks.js";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** A USDC transfer into the wallet, as read from a log. */
export interface ChainLog {
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: bigint;
  blockHash: `0x${string}`;
  /** Payer, lowercase. */
  from: `0x${string}`;
  /** Receiving wallet, lowercase. */
  to: `0x${string}`;
  /** Micro-USDC (6 decimals). */
  amount: bigint;
}

/** A block header: number, hash, timestamp. */
export interface BlockRef {
  number: bigint;
  hash: `0x${string}`;
  /** Block time. */
  time: Date;
}

/** Raised for an RPC answer that does not have the expected shape. */
export class RpcGarbageError extends Error {
  override name = "RpcGarbageError";
}

const HASH = /^0x[0-9a-f]{64}$/;
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const DATA_WORD = /^0x[0-9a-f]{64}$/;

function quantity(value: unknown, what: string): bigint {
  if (typeof value !== "string" || !QUANTITY.test(value.toLowerCase())) {
    throw new RpcGarbageError(`RPC returned a malformed ${what}: ${JSON.stringify(value)?.slice(0, 80)}`);
  }
  return BigInt(value);
}

function hash(value: unknown, what: string): `0x${string}` {
  const v = typeof value === "string" ? value.toLowerCase() : value;
  if (typeof v !== "string" || !HASH.test(v)) {
    throw new RpcGarbageError(`RPC returned a malformed ${what}: ${JSON.stringify(value)?.slice(0, 80)}`);
  }
  return v as `0x${string}`;
}

/** 32-byte topic holding an address → the lowercase address. */
function topicAddress(topic: `0x${string}`): `0x${string}` {
  if (!topic.startsWith("0x000000000000000000000000"))
    throw new RpcGarbageError(`topic is not an address: ${topic}`);
  return `0x${topic.slice(26)}`;
}

/** Reader of one network. */
export class ChainReader {
  /** The viem client, created with the first request (viem is imported then). */
  private client: Promise<PublicClient> | undefined;

  constructor(readonly network: NetworkConfig) {}

  /** The client, created once; a failed import of viem is tried again by the next request. */
  private connect(): Promise<PublicClient> {
    const timeout = getConfig().CHECKER_RPC_TIMEOUT_MS;
    this.client ??= import("viem").then(
      ({ createPublicClient, http }) =>
        createPublicClient({
          transport: http(this.network.rpcUrl, {
            timeout,
            retryCount: 0,
            batch: { batchSize: 100, wait: 0 },
          }),
        }),
      (error: unknown) => {
        this.client = undefined;
        throw error;
      },
    );
    return this.client;
  }

  private async request(method: string, params: unknown[]): Promise<unknown> {
    const client = await this.connect();
    return (client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({
      method,
      params,
    });
  }

  /** eth_chainId. */
  async chainId(): Promise<number> {
    return Number(quantity(await this.request("eth_chainId", []), "chain id"));
  }

  /** eth_blockNumber. */
  async latestBlockNumber(): Promise<bigint> {
    return quantity(await this.request("eth_blockNumber", []), "block number");
  }

  /** The header of block `n` (a number or a tag); null when the node has no such block. */
  async block(n: bigint | "finalized" | "safe" | "latest"): Promise<BlockRef | null> {
    const tag = typeof n === "bigint" ? `0x${n.toString(16)}` : n;
    const raw = (await this.request("eth_getBlockByNumber", [tag, false])) as Record<string, unknown> | null;
    if (raw === null) return null;
    if (typeof raw !== "object") throw new RpcGarbageError("RPC returned a malformed block");
    const number = quantity(raw.number, "block number");
    if (typeof n === "bigint" && number !== n) {
      throw new RpcGarbageError(`RPC returned block ${number} for block ${n}`);
    }
    return {
      number,
      hash: hash(raw.hash, "block hash"),
      time: new Date(Number(quantity(raw.timestamp, "block timestamp")) * 1000),
    };
  }

  /**
   * The highest confirmed block (network setting `confirmation`): the tag's head, or
   * latest − N + 1. Null when the chain is not that long yet.
   */
  async confirmedHead(): Promise<bigint | null> {
    const c = this.network.confirmation;
    if ("tag" in c) return (await this.block(c.tag))?.number ?? null;
    const head = (await this.latestBlockNumber()) - BigInt(c.confirmations - 1);
    return head < 0n ? null : head;
  }

  /**
   * USDC Transfer logs to the wallet in blocks [fromBlock, toBlock] (one eth_getLogs),
   * sorted by block and log index.
   * @throws RpcGarbageError for a malformed or foreign log; the transport's errors for failures and timeouts.
   */
  async transferLogs(fromBlock: bigint, toBlock: bigint): Promise<ChainLog[]> {
    const walletTopic = `0x${this.network.wallet.slice(2).padStart(64, "0")}`;
    const raw = await this.request("eth_getLogs", [
      {
        address: this.network.usdcContract,
        topics: [TRANSFER_TOPIC, null, walletTopic],
        fromBlock: `0x${fromBlock.toString(16)}`,
        toBlock: `0x${toBlock.toString(16)}`,
      },
    ]);
    if (!Array.isArray(raw)) throw new RpcGarbageError("RPC returned logs that are not an array");
    const logs: ChainLog[] = [];
    for (const item of raw as Record<string, unknown>[]) {
      if (!item || typeof item !== "object") throw new RpcGarbageError("RPC returned a malformed log");
      if (item.removed === true) continue;
      const topics = item.topics;
      if (!Array.isArray(topics) || topics.length !== 3) {
        throw new RpcGarbageError("RPC returned a Transfer log without its 3 topics");
      }
      const [t0, t1, t2] = topics.map((t, i) => hash(t, `log topic ${i}`));
      const address = typeof item.address === "string" ? item.address.toLowerCase() : "";
      if (t0 !== TRANSFER_TOPIC || t2 !== walletTopic || address !== this.network.usdcContract) {
        throw new RpcGarbageError("RPC returned a log that does not match the filter");
      }
      const data = typeof item.data === "string" ? item.data.toLowerCase() : "";
      if (!DATA_WORD.test(data)) throw new RpcGarbageError("RPC returned a Transfer log with malformed data");
      const blockNumber = quantity(item.blockNumber, "log block number");
      if (blockNumber < fromBlock || blockNumber > toBlock) {
        throw new RpcGarbageError(
          `RPC returned a log of block ${blockNumber} outside ${fromBlock}-${toBlock}`,
        );
      }
      logs.push({
        txHash: hash(item.transactionHash, "transaction hash"),
        logIndex: Number(quantity(item.logIndex, "log index")),
        blockNumber,
        blockHash: hash(item.blockHash, "log block hash"),
        from: topicAddress(t1!),
        to: topicAddress(t2!),
        amount: BigInt(data),
      });
    }
    return logs.sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    );
  }
}

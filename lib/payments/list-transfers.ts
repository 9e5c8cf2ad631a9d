/**
 * The operator's view of on-chain transfers (GET /api/chain-transfers): newest first,
 * filtered by status (default `unmatched` and `late`, the transfers that paid no task)
 * and network, paginated.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { type ChainTransfer, chainTransfers } from "../db/schema/index.js";
import { formatUsdc } from "../money.js";
import type { ChainTransfersQuery, ChainTransferView } from "./schemas.js";

/** A stored transfer as shown to the operator (amounts in USDC with 6 decimals). */
export function chainTransferView(t: ChainTransfer): ChainTransferView {
  return {
    id: t.id,
    network: t.network,
    chain_id: t.chainId,
    tx_hash: t.txHash,
    log_index: t.logIndex,
    block_number: t.blockNumber.toString(),
    block_hash: t.blockHash,
    block_time: t.blockTime?.toISOString() ?? null,
    from: t.fromAddress,
    to: t.toAddress,
    token: t.tokenAddress,
    amount_usdc: formatUsdc(t.amountMicro),
    status: t.status,
    reason: t.reason,
    task_id: t.taskId,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

/** Lists transfers matching `query`, with the total count. */
export async function listChainTransfers(query: ChainTransfersQuery) {
  const db = await getDb();
  const where = and(
    inArray(chainTransfers.status, query.status ?? ["unmatched", "late"]),
    query.network ? eq(chainTransfers.network, query.network) : undefined,
  );
  const [count] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(chainTransfers)
    .where(where);
  const rows = await db
    .select()
    .from(chainTransfers)
    .where(where)
    .orderBy(desc(chainTransfers.createdAt), desc(chainTransfers.blockNumber), desc(chainTransfers.logIndex))
    .limit(query.limit)
    .offset(query.offset);
  return {
    transfers: rows.map(chainTransferView),
    total: count?.n ?? 0,
    limit: query.limit,
    offset: query.offset,
  };
}

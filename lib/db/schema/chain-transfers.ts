import { bigint, index, integer, pgTable, text, unique } from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt, usdcMicro } from "./columns.js";
import type { ChainTransferStatus } from "./enums.js";
import { tasks } from "./tasks.js";

/**
 * Every USDC `Transfer` log into a service wallet that the payment checker has seen, and
 * what it was matched to. The unique (chain_id, tx_hash, log_index) makes scanning
 * idempotent: re-scanning a block range inserts nothing twice.
 */
export const chainTransfers = pgTable(
  "chain_transfers",
  {
    /** `ctr_<id>`. */
    id: text("id").primaryKey(),
    /** Network name as configured (e.g. `ethereum`, `base`). */
    network: text("network").notNull(),
    /** EVM chain id. */
    chainId: integer("chain_id").notNull(),
    /** Lowercase 0x-prefixed hex. */
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: bigint("block_number", { mode: "bigint" }).notNull(),
    /** Hash of the block the log was seen in; a different hash at the same height means a reorg. */
    blockHash: text("block_hash").notNull(),
    /** Block timestamp: decides whether the payment arrived inside the payment window. */
    blockTime: timestamptz("block_time"),
    /** Payer (lowercase); refunds go back to it. */
    fromAddress: text("from_address").notNull(),
    /** Service wallet (lowercase). */
    toAddress: text("to_address").notNull(),
    /** USDC contract (lowercase). */
    tokenAddress: text("token_address").notNull(),
    amountMicro: usdcMicro("amount_micro").notNull(),
    /** Task paid (status `matched`), or that the amount pointed to (`late`). */
    taskId: text("task_id").references(() => tasks.id, { onDelete: "set null" }),
    /** `matched`: paid a task; `unmatched`: no open task has this amount; `late`: window closed; `reorged`: log gone. */
    status: text("status").$type<ChainTransferStatus>().notNull(),
    /** Why the transfer is unmatched, late or reorged. */
    reason: text("reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("chain_transfers_chain_tx_log_uq").on(t.chainId, t.txHash, t.logIndex),
    index("chain_transfers_task_id_idx").on(t.taskId),
    index("chain_transfers_status_idx").on(t.status),
    /** The checker's reorg window: a network's transfers between two block heights (lib/payments/scan-network.ts). */
    index("chain_transfers_chain_id_block_number_idx").on(t.chainId, t.blockNumber),
  ],
);

export type ChainTransfer = typeof chainTransfers.$inferSelect;
export type NewChainTransfer = typeof chainTransfers.$inferInsert;

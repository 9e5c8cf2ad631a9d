import { bigint, integer, pgTable, text } from "drizzle-orm/pg-core";
import { updatedAt } from "./columns.js";

/** How far the payment checker has scanned each network. */
export const chainCursors = pgTable("chain_cursors", {
  /** Network name as configured (e.g. `ethereum`, `base`). */
  network: text("network").primaryKey(),
  /** EVM chain id. */
  chainId: integer("chain_id").notNull(),
  /** Highest block whose logs are recorded in `chain_transfers`. */
  lastScannedBlock: bigint("last_scanned_block", { mode: "bigint" }).notNull(),
  /** Hash of that block, to detect a reorg below the cursor on the next scan. */
  lastBlockHash: text("last_block_hash"),
  updatedAt: updatedAt(),
});

export type ChainCursor = typeof chainCursors.$inferSelect;
export type NewChainCursor = typeof chainCursors.$inferInsert;

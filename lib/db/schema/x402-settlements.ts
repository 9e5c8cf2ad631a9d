import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, unique, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt, usdcMicro } from "./columns.js";
import { tasks } from "./tasks.js";

/**
 * What an x402 settlement has reached: `pending` (claimed for its task, being verified; nothing
 * sent yet), `broadcast` (its `transferWithAuthorization` transaction was sent: `tx_hash` set,
 * outcome not known), `settled` (mined, the task paid), `failed` (refused before broadcast, or
 * the transaction reverted: the task may be paid another way).
 */
export type X402SettlementStatus = "pending" | "broadcast" | "settled" | "failed";

/**
 * x402 payments of tasks (POST /api/task-pay, MCP `pay_task`; docs/x402.md): one row per signed
 * EIP-3009 authorization presented, written and committed before anything is sent on chain, so a
 * settlement in flight is known to every instance (202 with Retry-After instead of a second
 * broadcast or a new 402) and survives a crash (the next request for the task reconciles it from
 * its `tx_hash`). At most one live (pending, broadcast or settled) settlement per task; one row
 * per (chain, payer, nonce): the same signed payment presented twice is the same settlement.
 */
export const x402Settlements = pgTable(
  "x402_settlements",
  {
    /** `x4s_<id>`. */
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /** Network name as configured (`ethereum`, `base`). */
    network: text("network").notNull(),
    /** EVM chain id (CAIP-2 `eip155:<chain_id>`). */
    chainId: integer("chain_id").notNull(),
    /** x402 protocol version of the request (1: `X-PAYMENT`, 2: `PAYMENT-SIGNATURE` / MCP). */
    x402Version: integer("x402_version").notNull(),
    /** EIP-3009 `from`, lowercase. */
    payer: text("payer").notNull(),
    /** EIP-3009 `nonce` (bytes32, lowercase 0x hex). */
    nonce: text("nonce").notNull(),
    /** EIP-3009 `value`, USDC micro-units. */
    amountMicro: usdcMicro("amount_micro").notNull(),
    /** The payer's signature (lowercase 0x hex): the same signed payment presented again matches it. */
    signature: text("signature").notNull(),
    status: text("status").$type<X402SettlementStatus>().notNull(),
    /** The `transferWithAuthorization` transaction, lowercase, once broadcast. */
    txHash: text("tx_hash"),
    /** x402 `invalidReason` / `errorReason` of a failed settlement. */
    errorReason: text("error_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("x402_settlements_chain_payer_nonce_uq").on(t.chainId, t.payer, t.nonce),
    uniqueIndex("x402_settlements_live_task_uq")
      .on(t.taskId)
      .where(sql`${t.status} in ('pending', 'broadcast', 'settled')`),
    index("x402_settlements_task_id_idx").on(t.taskId),
  ],
);

export type X402Settlement = typeof x402Settlements.$inferSelect;
export type NewX402Settlement = typeof x402Settlements.$inferInsert;

/** Schemas of the operator's view of on-chain transfers (GET /api/chain-transfers): its query and its rows. */
import { z } from "zod";
import { CHAIN_TRANSFER_STATUSES } from "../db/schema/enums.js";
import { queryNumber } from "../validation.js";

/** Largest page of GET /api/chain-transfers. */
export const CHAIN_TRANSFERS_MAX_LIMIT = 500;

/** Query of GET /api/chain-transfers. */
export const chainTransfersQuerySchema = z.object({
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").map((s) => s.trim()) : undefined))
    .pipe(z.array(z.enum(CHAIN_TRANSFER_STATUSES)).optional())
    .meta({
      description:
        "Comma-separated statuses (`matched`, `unmatched`, `late`, `reorged`); default `unmatched,late` " +
        "(transfers that paid no task).",
      examples: ["unmatched,late"],
    }),
  network: z.string().trim().max(32).optional().meta({ description: "Network name, e.g. `base`." }),
  limit: queryNumber().pipe(z.number().int().min(1).max(CHAIN_TRANSFERS_MAX_LIMIT)).optional().default(100),
  offset: queryNumber().pipe(z.number().int().min(0)).optional().default(0),
});
export type ChainTransfersQuery = z.output<typeof chainTransfersQuerySchema>;

/** One transfer as shown to the operator. */
export const chainTransferViewSchema = z.object({
  id: z.string(),
  network: z.string(),
  chain_id: z.number().int(),
  tx_hash: z.string(),
  log_index: z.number().int(),
  block_number: z.string().meta({ description: "Decimal block number." }),
  block_hash: z.string(),
  block_time: z.string().nullable(),
  from: z.string().meta({ description: "Payer (lowercase): refunds go back to this wallet." }),
  to: z.string(),
  token: z.string(),
  amount_usdc: z.string().meta({ description: "Amount in USDC, 6 decimals.", examples: ["234.070001"] }),
  status: z.enum(CHAIN_TRANSFER_STATUSES),
  reason: z.string().nullable(),
  task_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ChainTransferView = z.output<typeof chainTransferViewSchema>;

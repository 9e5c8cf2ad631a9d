/** Operation descriptors of the payments domain (operator views of on-chain transfers). */
import { z } from "zod";
import { defineOperation } from "../descriptors/operation.js";
import { chainTransfersQuerySchema, chainTransferViewSchema } from "./schemas.js";

export const listChainTransfersOperation = defineOperation({
  id: "listChainTransfers",
  method: "GET",
  path: "/api/chain-transfers",
  summary: "USDC transfers seen by the payment checker, by default those that paid no task (operator)",
  description:
    "Every USDC transfer into a service wallet is kept. `unmatched`: no task awaited that exact amount " +
    "(wrong amount, a task already paid, unknown); `late`: it arrived after the task's payment window; " +
    "`reorged`: the chain dropped it. `reason` explains each; `from` is where a refund goes.",
  tags: ["Operator"],
  auth: "admin",
  permission: "payments.read",
  query: chainTransfersQuerySchema,
  response: z.object({
    transfers: z.array(chainTransferViewSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  errors: ["VALIDATION_ERROR"],
});

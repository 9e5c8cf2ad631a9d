/** Zod schemas of /api/billing (spec "Billing"; README "Accounts, billing and client login"). */
import { DateTime } from "luxon";
import { z } from "zod";
import { SERVICE_TYPES } from "../db/schema/enums.js";
import { queryNumber } from "../pricing/schemas.js";

/** Default and maximum page size of `transactions`. */
export const TRANSACTIONS_DEFAULT_LIMIT = 50;
export const TRANSACTIONS_MAX_LIMIT = 200;

const dateTime = z.string().meta({ format: "date-time" });

/** A calendar date `YYYY-MM-DD` that exists. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date YYYY-MM-DD" })
  .refine((v) => DateTime.fromISO(v).isValid, { error: "is not a valid calendar date" })
  .meta({ examples: ["2025-01-31"] });

const agentId = z
  .string()
  .trim()
  .min(1)
  .max(254)
  .meta({
    description: "The account's e-mail, or the name of one of its API keys.",
    examples: ["ops@example.com"],
  });

/** A CAD amount of a request: positive, at most 1 000 000, at most 2 decimals. */
export const cadAmount = (min = 0.01) =>
  z.number().min(min).max(1_000_000).multipleOf(0.01, { error: "must have at most 2 decimals" });

export const billingQuerySchema = z.object({
  // string first, so that an absent action is 400 MISSING_FIELD (a bare enum reports 422).
  action: z
    .string()
    .pipe(z.enum(["balance", "transactions"]))
    .meta({ description: "`balance` or `transactions`." }),
  agent_id: agentId,
  date_from: isoDate
    .optional()
    .meta({ description: "transactions: from this day (inclusive, America/Toronto)." }),
  date_to: isoDate
    .optional()
    .meta({ description: "transactions: to this day (inclusive, America/Toronto)." }),
  service_type: z
    .enum(SERVICE_TYPES)
    .optional()
    .meta({ description: "transactions: only entries of tasks of this service." }),
  limit: queryNumber()
    .pipe(z.number().int().min(1).max(TRANSACTIONS_MAX_LIMIT))
    .optional()
    .meta({
      description: `transactions: page size, default ${TRANSACTIONS_DEFAULT_LIMIT}, max ${TRANSACTIONS_MAX_LIMIT}.`,
    }),
  offset: queryNumber()
    .pipe(z.number().int().min(0).max(1_000_000))
    .optional()
    .meta({ description: "transactions: rows to skip, default 0." }),
});
export type BillingQuery = z.output<typeof billingQuerySchema>;

export const preAuthorizeBodySchema = z
  .strictObject({
    action: z.literal("pre_authorize"),
    agent_id: agentId,
    max_cost_cad: cadAmount().meta({
      description: "Amount to hold, CAD (0.01 to 1 000 000).",
      examples: [250],
    }),
  })
  .meta({ id: "PreAuthorizeRequest" });

const spendingLevel = z.enum(["ok", "warning", "alert", "blocked"]).meta({
  description:
    "blocked: account not active or nothing available; alert / warning: below the thresholds (README).",
});

export const transactionSchema = z
  .object({
    transaction_id: z.string(),
    kind: z.enum(["deposit", "charge", "refund", "adjustment"]),
    task_id: z.string().nullable(),
    amount_cad: z.number().meta({ description: "Signed: credits positive, debits negative." }),
    service_type: z.string().nullable(),
    description: z.string().nullable(),
    invoice_id: z.string().nullable(),
    created_at: dateTime,
  })
  .meta({ id: "BillingTransaction" });

export const billingResponseSchema = z
  .object({
    agent_id: z.string(),
    account_id: z.string(),
    account_status: z.enum(["pending_deposit", "active", "suspended"]),
    balance_cad: z.number().meta({ description: "Sum of the ledger." }),
    held_cad: z.number().meta({ description: "Held by live pre-authorizations." }),
    available_balance_cad: z.number(),
    spending_level: spendingLevel,
    currency: z.literal("CAD"),
    transactions: z.array(transactionSchema).optional(),
    total: z.number().int().optional(),
    limit: z.number().int().optional(),
    offset: z.number().int().optional(),
  })
  .meta({ id: "BillingResponse" });

export const preAuthorizeResponseSchema = z
  .object({
    authorized: z.literal(true),
    preauthorization_id: z.string(),
    agent_id: z.string(),
    max_cost_cad: z.number(),
    available_balance_cad: z.number().meta({ description: "After the hold." }),
    spending_level: spendingLevel,
    valid_until: dateTime.meta({ description: "5 minutes after issue." }),
  })
  .meta({ id: "PreAuthorization" });

/** Zod schemas of /api/billing (spec "Billing"; docs/accounts.md "Accounts, billing and client login"). */
import { z } from "zod";
import { REFUND_REASONS, SERVICE_TYPES } from "../db/schema/enums.js";
import { roundCad } from "../money.js";
import { queryNumber } from "../validation.js";

/** Default and maximum page size of `transactions`. */
export const TRANSACTIONS_DEFAULT_LIMIT = 50;
export const TRANSACTIONS_MAX_LIMIT = 200;
/**
 * `transactions`: `total` counts at most `offset` + this many entries (then `total_capped`), so a
 * page costs the same whatever the account's history (issue 45; the task list's TASK_LIST_TOTAL_CAP).
 */
export const TRANSACTIONS_TOTAL_CAP = 1_000;

const dateTime = z.string().meta({ format: "date-time" });

/**
 * Whether `v` (`YYYY-MM-DD`) names a day that exists: the UTC midnight of its parts reads back
 * as the same date (no 2025-02-30). Built-in Date, so the schema loads without luxon (cold start).
 */
function isCalendarDate(v: string): boolean {
  const at = new Date(`${v}T00:00:00.000Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === v;
}

/** A calendar date `YYYY-MM-DD` that exists. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date YYYY-MM-DD" })
  .refine(isCalendarDate, { error: "is not a valid calendar date" })
  .meta({ examples: ["2025-01-31"] });

/** Longest `agent_id` (spec "Billing": "agent_id (string, max 254)"). */
export const AGENT_ID_MAX = 254;

/**
 * The spec's 400 for an invalid value (spec "Billing": "400 missing/invalid `action` or
 * `agent_id`"), where the general rule would give 422: an issue carrying
 * `params.code: "INVALID_FORMAT"` is reported by lib/http/validation.ts as 400 INVALID_FORMAT.
 * Listed in docs/spec-precedence.md.
 */
const SPEC_400 = { code: "INVALID_FORMAT" } as const;

/**
 * A string that must be one of `values`: absent or empty → 400 MISSING_FIELD; any other string →
 * 400 INVALID_FORMAT (spec); output: the value, typed as one of `values`.
 */
function billingAction<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .min(1)
    .check((ctx) => {
      if (!(values as readonly string[]).includes(ctx.value)) {
        ctx.issues.push({
          code: "invalid_value",
          values: [...values],
          input: ctx.value,
          message: `must be ${values.map((v) => `"${v}"`).join(" or ")}`,
          params: SPEC_400,
        });
      }
    })
    .meta({ enum: [...values] }) // the check above is invisible to JSON Schema
    .pipe(z.enum(values));
}

const agentId = z
  .string()
  .trim()
  .min(1)
  .check((ctx) => {
    if (ctx.value.length > AGENT_ID_MAX) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: `must be at most ${AGENT_ID_MAX} characters`,
        params: SPEC_400,
      });
    }
  })
  .meta({
    description: `The account's e-mail, or the name of one of its API keys (at most ${AGENT_ID_MAX} characters; longer: 400 INVALID_FORMAT).`,
    examples: ["ops@example.com"],
  });

/** Bounds of `max_cost_cad` (spec "Limits": min 0.01; the service's cap of one amount, 1 000 000 CAD). */
export const MAX_COST_MIN_CAD = 0.01;
export const MAX_COST_MAX_CAD = 1_000_000;

/**
 * `max_cost_cad` of a pre-authorization: a number from 0.01 to 1 000 000 with at most 2 decimals.
 * Any other number is 400 INVALID_FORMAT: the spec lists 400 (and no 422) for a bad
 * pre-authorization request (docs/spec-precedence.md). Not a number: 400 INVALID_FORMAT too.
 */
const maxCostCad = z
  .number()
  .check((ctx) => {
    const v = ctx.value;
    const problem =
      v < MAX_COST_MIN_CAD || v > MAX_COST_MAX_CAD
        ? `must be from ${MAX_COST_MIN_CAD} to ${MAX_COST_MAX_CAD} CAD`
        : roundCad(v) !== v
          ? "must have at most 2 decimals"
          : undefined;
    if (problem) ctx.issues.push({ code: "custom", input: v, message: problem, params: SPEC_400 });
  })
  // the check above is invisible to JSON Schema
  .meta({ minimum: MAX_COST_MIN_CAD, maximum: MAX_COST_MAX_CAD, multipleOf: 0.01 });

export const billingQuerySchema = z.object({
  // string first, so that an absent action is 400 MISSING_FIELD; another value is 400 INVALID_FORMAT.
  action: billingAction(["balance", "transactions"]).meta({
    description: "`balance` or `transactions` (another value: 400 INVALID_FORMAT).",
  }),
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
    action: billingAction(["pre_authorize"]).meta({
      description: "`pre_authorize` (another value: 400 INVALID_FORMAT).",
    }),
    agent_id: agentId,
    max_cost_cad: maxCostCad.meta({
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
    refund_reason: z
      .enum(REFUND_REASONS)
      .nullable()
      .meta({
        description:
          "A refund: why the money went back: `cancellation` (a cancelled task), `dispute` (a dispute resolved " +
          "with a refund) or `sla_credit` (the automatic credit of a late task). Null for other kinds and for " +
          "refunds recorded before reasons were.",
      }),
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
    total: z
      .number()
      .int()
      .optional()
      .meta({ description: "`transactions`: matching entries, counted up to `offset` + 1,000." }),
    total_capped: z
      .boolean()
      .optional()
      .meta({ description: "`transactions`: true when more entries match than `total` counts." }),
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

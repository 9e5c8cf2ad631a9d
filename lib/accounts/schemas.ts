/** Zod schemas of /api/client-account and /api/account-admin (spec "Client accounts"). */
import { z } from "zod";
import { passwordSchema } from "../auth/passwords.js";
import { LANGS } from "../db/schema/enums.js";

const dateTime = z.string().meta({ format: "date-time" });

/** Canadian province and territory codes. */
export const PROVINCES = [
  "AB",
  "BC",
  "MB",
  "NB",
  "NL",
  "NS",
  "NT",
  "NU",
  "ON",
  "PE",
  "QC",
  "SK",
  "YT",
] as const;

const email = z
  .email()
  .max(254)
  .transform((v) => v.toLowerCase())
  .meta({ examples: ["client@example.com"] });

const text = (max: number) => z.string().trim().min(1).max(max);

export const createAccountBodySchema = z
  .strictObject({
    contact_name: z
      .string()
      .trim()
      .min(2)
      .max(100)
      .meta({ description: "Contact person, at least 2 characters." }),
    email: email.optional().meta({
      description: "Required without a key. With a key it must be the key's contact e-mail (the default).",
    }),
    password: passwordSchema
      .optional()
      .meta({ description: "Web registration (required without a key); refused with a key (422)." }),
    company_name: text(200).optional(),
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9 ().-]{7,25}$/, { error: "must be a phone number (digits, spaces, + ( ) . -)" })
      .optional()
      .meta({ description: "Required without a key.", examples: ["+1 450 555-0100"] }),
    address_line1: text(200).optional().meta({ description: "Required without a key." }),
    address_line2: text(200).optional(),
    city: text(100).optional().meta({ description: "Required without a key." }),
    province: z.enum(PROVINCES).default("QC"),
    postal_code: z
      .string()
      .trim()
      .regex(/^[A-Za-z]\d[A-Za-z][ -]?\d[A-Za-z]\d$/, { error: "must be a Canadian postal code (A1A 1A1)" })
      .transform((v) => `${v.slice(0, 3)} ${v.slice(-3)}`.toUpperCase())
      .optional()
      .meta({ description: "Required without a key.", examples: ["J6W 1A1"] }),
    lang: z.enum(LANGS).default("en"),
    tos_accepted: z.boolean().optional().meta({ description: "Must be true without a key." }),
    cf_turnstile_token: z
      .string()
      .trim()
      .min(1)
      .max(2048)
      .optional()
      .meta({ description: "Cloudflare Turnstile token; required without a key (verified server-side)." }),
  })
  .meta({ id: "CreateClientAccountRequest" });
export type CreateAccountBody = z.output<typeof createAccountBodySchema>;

export const getAccountQuerySchema = z.object({
  email: z.email().max(254).optional().meta({ description: "Admin only: the account of this e-mail." }),
  include: z.enum(["dashboard"]).optional().meta({
    description:
      "`dashboard`: adds transactions, tasks (each with `sandbox`, true for a never-charged sandbox task) and invoices (client JWT or admin).",
  }),
  invoice_id: z.string().trim().min(1).max(64).optional().meta({
    description:
      "One invoice as JSON (client JWT: its own; admin key: any; any key: the USDC receipt and credit notes of a task it submitted).",
  }),
  format: z.enum(["json", "pdf"]).optional().meta({
    description:
      "With `invoice_id`: `pdf` answers the invoice as application/pdf in the account's language (fr/en; without account, the task's); default json.",
  }),
  action: z
    .enum(["export"])
    .optional()
    .meta({
      description:
        "`export` (client JWT or admin): everything held about the account as JSON in `export` (Law 25 access and " +
        "portability; sections: account, api_keys, sessions, tasks, task_events, proof_files, task_scores, " +
        "chain_transfers, invoices, ledger_entries, preauthorizations, emails, activity, webhooks, deliveries, " +
        "erasure_requests, privacy_audit).",
    }),
});
export type GetAccountQuery = z.output<typeof getAccountQuerySchema>;

export const accountSchema = z
  .object({
    account_id: z.string(),
    org_id: z.string().meta({ description: "Organization id (login `org_id`); use it in X-Agent-Identity." }),
    name: z.string().meta({ description: "contact_name." }),
    email: z.string(),
    email_verified: z.boolean(),
    company_name: z.string().nullable(),
    phone: z.string().nullable(),
    address: z.object({
      line1: z.string().nullable(),
      line2: z.string().nullable(),
      city: z.string().nullable(),
      province: z.string(),
      postal_code: z.string().nullable(),
    }),
    lang: z.enum(LANGS),
    status: z.enum(["pending_deposit", "active", "suspended"]),
    balance_cad: z.number(),
    held_cad: z.number(),
    available_balance_cad: z.number(),
    spending_level: z.enum(["ok", "warning", "alert", "blocked"]),
    discount_percent: z.number(),
    has_password: z.boolean(),
    tos_accepted_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: "ClientAccount" });

export const accountResponseSchema = z
  .object({
    account: accountSchema.optional().meta({
      description:
        "The account. Absent only when an API key reads, by `invoice_id`, the USDC receipt (or credit note) of a task it submitted that has no account.",
    }),
    message: z.string().optional(),
    email_verification_sent: z
      .boolean()
      .optional()
      .meta({ description: "Creation only: true once the verification code is queued for e-mail." }),
    dashboard: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          "include=dashboard: `transactions` (a refund with `refund_reason`: cancellation, dispute or sla_credit), " +
          "`tasks` and `invoices` (a credit note with `refund_reasons`).",
      }),
    invoice: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          "invoice_id: the invoice as JSON; a credit note (`kind` refund) names the invoice it credits (`refers_to`) " +
          "and why it gives money back (`refund_reasons`: cancellation, dispute, sla_credit).",
      }),
    export: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "action=export: the export document (`format` law25-export/1)." }),
  })
  .meta({ id: "ClientAccountResponse" });

export const accountAdminBodySchema = z
  .strictObject({
    action: z.enum(["deposit", "adjust", "suspend", "activate", "set_discount"]).meta({
      description:
        "deposit: credit a funded deposit (activates a pending account); adjust: signed correction; " +
        "suspend / activate; set_discount: discount_percent for future charges.",
    }),
    email: email.optional().meta({ description: "The account's e-mail (or account_id)." }),
    account_id: z.string().trim().min(1).max(64).optional(),
    amount_cad: z
      .number()
      .min(-1_000_000)
      .max(1_000_000)
      .multipleOf(0.01, { error: "must have at most 2 decimals" })
      .optional()
      .meta({ description: "deposit: 0.01 to 1 000 000 CAD; adjust: non-zero, signed." }),
    discount_percent: z
      .number()
      .min(0)
      .max(100)
      .multipleOf(0.01, { error: "must have at most 2 decimals" })
      .optional()
      .meta({ description: "set_discount: 0 to 100." }),
    description: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: "Reference or reason (bank transfer id, …)." }),
  })
  .meta({ id: "AccountAdminRequest" });
export type AccountAdminBody = z.output<typeof accountAdminBodySchema>;

export const accountAdminResponseSchema = z.object({
  account: accountSchema,
  ledger_entry: z
    .object({
      transaction_id: z.string(),
      kind: z.string(),
      amount_cad: z.number(),
      invoice_id: z.string().nullable(),
      created_at: dateTime,
    })
    .optional(),
});

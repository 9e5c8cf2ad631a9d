/** Zod schemas of /api/privacy and /api/privacy-admin (docs/privacy.md). */
import { z } from "zod";

const dateTime = z.iso.datetime({ offset: true }).meta({ format: "date-time" });
const text = (max: number) => z.string().trim().min(1).max(max);

export const privacyRequestBodySchema = z
  .strictObject({
    action: z.enum(["request_erasure", "withdraw_erasure"]).meta({
      description:
        "request_erasure: ask that the account's personal information be de-identified. Done by a daily job once " +
        "the accounting records are past their legal retention (ACCOUNTING_RETENTION_YEARS after the newest " +
        "invoice or ledger entry), at once when there are none. Until then the account is on hold: its API keys " +
        "are refused (403, reason erasure_pending), nothing is charged or deposited; sign-in still works; a " +
        "positive balance is recorded for the operator to refund. withdraw_erasure: take a pending request back " +
        "(409 when none is pending); the hold ends.",
    }),
  })
  .meta({ id: "PrivacyRequest" });

export const erasureRequestSchema = z
  .object({
    request_id: z.string(),
    account_id: z.string(),
    status: z.enum(["pending", "completed", "withdrawn"]),
    requested_at: dateTime,
    balance_to_refund_cad: z.number().nullable().meta({
      description: "The prepaid balance at the request, CAD, for the operator to refund; null when none.",
    }),
    withdrawn_at: dateTime.nullable(),
    due_at: dateTime.meta({ description: "Earliest de-identification (end of the accounting retention)." }),
    processed_at: dateTime.nullable(),
    processed_by: z.string().nullable().meta({ description: "`job` or `admin:<key id>`." }),
    early_reason: z.string().nullable(),
  })
  .meta({ id: "ErasureRequest" });

export const privacyRequestResponseSchema = z.object({
  erasure_request: erasureRequestSchema,
  created: z.boolean().meta({
    description: "false: a pending request already existed (returned), or the request was withdrawn.",
  }),
});

export const privacyAdminQuerySchema = z.object({
  list: z
    .enum(["incidents", "erasure_requests"])
    .default("incidents")
    .meta({ description: "incidents (the register) or erasure_requests." }),
});
export type PrivacyAdminQuery = z.output<typeof privacyAdminQuerySchema>;

export const incidentSchema = z
  .object({
    incident_id: z.string(),
    occurred_at: dateTime.nullable(),
    discovered_at: dateTime,
    description: z.string(),
    information_concerned: z.string(),
    persons_concerned: z.number().int().nullable(),
    risk_of_serious_injury: z.boolean(),
    measures: z.string().nullable(),
    commission_notified_at: dateTime.nullable(),
    persons_notified_at: dateTime.nullable(),
    recorded_by_key_id: z.string().nullable(),
    created_at: dateTime,
  })
  .meta({ id: "PrivacyIncident" });

export const privacyAdminListResponseSchema = z.object({
  incidents: z.array(incidentSchema).optional(),
  erasure_requests: z.array(erasureRequestSchema).optional(),
});

export const privacyAdminBodySchema = z
  .strictObject({
    action: z.enum(["record_incident", "process_erasure"]).meta({
      description:
        "record_incident: add a confidentiality incident to the register; process_erasure: de-identify an account " +
        "now, before its due date, where the law allows (reason required).",
    }),
    account_id: text(64).optional().meta({ description: "process_erasure: the account." }),
    reason: text(500)
      .optional()
      .meta({ description: "process_erasure: the legal ground for processing early." }),
    occurred_at: dateTime.optional(),
    discovered_at: dateTime.optional().meta({ description: "record_incident: required." }),
    description: text(4000).optional().meta({ description: "record_incident: required; what happened." }),
    information_concerned: text(1000)
      .optional()
      .meta({ description: "record_incident: required; which personal information." }),
    persons_concerned: z.number().int().min(0).max(100_000_000).optional(),
    risk_of_serious_injury: z.boolean().optional().meta({ description: "record_incident: required." }),
    measures: text(4000).optional(),
    commission_notified_at: dateTime.optional(),
    persons_notified_at: dateTime.optional(),
  })
  .superRefine((body, ctx) => {
    const need = (field: keyof typeof body) => {
      if (body[field] === undefined)
        ctx.addIssue({ code: "custom", path: [field], message: `is required for ${body.action}` });
    };
    if (body.action === "process_erasure") {
      need("account_id");
      need("reason");
    } else {
      need("discovered_at");
      need("description");
      need("information_concerned");
      need("risk_of_serious_injury");
    }
  })
  .meta({ id: "PrivacyAdminRequest" });
export type PrivacyAdminBody = z.output<typeof privacyAdminBodySchema>;

export const privacyAdminResponseSchema = z.object({
  incident: incidentSchema.optional(),
  erasure_request: erasureRequestSchema.optional(),
});

/**
 * Request and response schemas of disputes (issue 27): opening one (POST /api/task-dispute, MCP
 * dispute_task), resolving it (POST /api/dispute-resolve) and the staff list (GET /api/disputes).
 */
import { z } from "zod";
import { DISPUTE_REASONS, DISPUTE_RESOLUTIONS, DISPUTE_STATUSES } from "../../db/schema/enums.js";
import { plainText, queryNumber } from "../../validation.js";
import { proofFilesInputSchema } from "./proof-files.js";

/** Longest dispute `details`, characters. */
export const MAX_DISPUTE_DETAILS = 2000;

const taskId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "The task id.", examples: ["TASK-MI9X3K2A-0K5ZQ8W1RT"] });

const disputeId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "The dispute id (dsp_…).", examples: ["dsp_8f3k2m9q1x"] });

/** The body of POST /api/task-dispute (and the arguments of MCP dispute_task, with credentials). */
export const openDisputeShape = {
  task_id: taskId,
  reason: z.enum(DISPUTE_REASONS).meta({ description: `Why: ${DISPUTE_REASONS.join(", ")}.` }),
  details: plainText(z.string().trim().min(1).max(MAX_DISPUTE_DETAILS)).meta({
    description: `What went wrong, plain text (at most ${MAX_DISPUTE_DETAILS} characters).`,
  }),
  evidence_files: proofFilesInputSchema.optional().meta({
    description:
      "Photos or documents supporting the dispute: the same items, types, sizes and checks as proof files (base64 content).",
  }),
};
export const openDisputeBodySchema = z.strictObject(openDisputeShape).meta({ id: "TaskDisputeRequest" });
export type OpenDisputeBody = z.output<typeof openDisputeBodySchema>;

const cad = z.number().positive().max(1_000_000).multipleOf(0.01, { error: "must have at most 2 decimals" });

export const resolveDisputeBodySchema = z
  .strictObject({
    dispute_id: disputeId,
    resolution: z.enum(DISPUTE_RESOLUTIONS).meta({
      description:
        "redo: a linked follow-up task at no charge; partial_refund: amount_cad; full_refund: what is left of what was paid; reject: reason required.",
    }),
    amount_cad: cad.optional().meta({
      description: "partial_refund: CAD (taxes included), at most what is left of what was paid.",
    }),
    reason: plainText(z.string().trim().min(1).max(1000))
      .optional()
      .meta({ description: "To the requester; required for reject." }),
  })
  .superRefine((body, ctx) => {
    if (body.resolution === "partial_refund" && body.amount_cad === undefined) {
      ctx.addIssue({ code: "custom", path: ["amount_cad"], message: "is required for partial_refund" });
    }
    if (body.resolution !== "partial_refund" && body.amount_cad !== undefined) {
      ctx.addIssue({ code: "custom", path: ["amount_cad"], message: "only goes with partial_refund" });
    }
    if (body.resolution === "reject" && !body.reason) {
      ctx.addIssue({ code: "custom", path: ["reason"], message: "is required when the dispute is rejected" });
    }
  })
  .meta({ id: "DisputeResolveRequest" });
export type ResolveDisputeBody = z.output<typeof resolveDisputeBodySchema>;

export const listDisputesQuerySchema = z.object({
  dispute_id: z.string().trim().min(1).max(64).optional().meta({
    description:
      "One dispute (dsp_…), with its evidence files' content (base64) for the reviewer to see; unknown → 404. `status` and `limit` do not apply.",
  }),
  status: z.enum(DISPUTE_STATUSES).optional().meta({ description: "open or resolved; default both." }),
  limit: queryNumber().pipe(z.number().int().min(1).max(200)).optional().default(50),
});
export type ListDisputesQuery = z.output<typeof listDisputesQuerySchema>;

/** A dispute as the task's owner sees it (`dispute` of the status view). */
export const disputeSummarySchema = z.object({
  dispute_id: z.string(),
  status: z.enum(DISPUTE_STATUSES),
  reason: z.enum(DISPUTE_REASONS),
  opened_at: z.string(),
  resolution: z.enum(DISPUTE_RESOLUTIONS).optional(),
  resolution_reason: z.string().nullable().optional(),
  refund_amount_cad: z.number().nullable().optional(),
  follow_up_task_id: z.string().nullable().optional(),
  resolved_at: z.string().optional(),
});

/** A dispute as staff see it (GET /api/disputes, POST /api/dispute-resolve). */
export const disputeSchema = disputeSummarySchema
  .extend({
    task_id: z.string(),
    details: z.string(),
    evidence_files: z.array(
      z.object({
        filename: z.string(),
        type: z.string(),
        size: z.number().int(),
        sha256: z.string(),
        content: z
          .string()
          .optional()
          .meta({ description: "base64; only when the query names `dispute_id`." }),
      }),
    ),
    refund_usdc: z.string().nullable().optional().meta({ description: "USDC refund owed (decimal string)." }),
  })
  .meta({ id: "Dispute" });

export const disputeListSchema = z.object({ disputes: z.array(disputeSchema) });

/**
 * The 202 answer of an export request that runs as a job (docs/privacy.md "Large exports"): the
 * job's progress schema, shared by GET /api/client-account?action=export, GET /api/analytics?action=export
 * and GET /api/export-jobs (lib/exports/jobs.ts `ExportJobView`).
 */
import { z } from "zod";
import type { OperationResponse } from "./operation.js";

/** The progress of an export job (lib/exports/jobs.ts `ExportJobView`). */
export const exportJobSchema = z
  .object({
    job_id: z.string(),
    kind: z.enum(["law25", "analytics"]).meta({
      description:
        "`law25`: GET /api/client-account?action=export; `analytics`: GET /api/analytics?action=export.",
    }),
    format: z.enum(["json", "csv"]),
    status: z.enum(["queued", "running", "succeeded", "failed", "expired"]).meta({
      description:
        "`queued` (nothing written yet), `running` (parts written; `attempts` > 0 after a failed chunk, retried with " +
        "backoff), `succeeded` (the link was e-mailed), `failed` (after the last attempt; the requester was e-mailed), " +
        "`expired` (the link ended and the file was deleted).",
    }),
    sections_total: z.number().int(),
    sections_done: z.number().int(),
    counts: z.record(z.string(), z.number().int()).meta({ description: "Rows written so far, by section." }),
    rows: z.number().int(),
    bytes: z.number().int().meta({ description: "Bytes of the file written so far (UTF-8)." }),
    attempts: z.number().int().meta({ description: "Failed attempts of the current chunk." }),
    error: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    expires_at: z.string().nullable().meta({ description: "End of the download link (succeeded jobs)." }),
  })
  .meta({ id: "ExportJob" });

/** The 202 answer of an export request that runs as a job. */
export const exportAcceptedSchema = z
  .object({
    job: exportJobSchema,
    created: z.boolean().meta({ description: "false: the export already running for the same request." }),
  })
  .meta({ id: "ExportAccepted" });

/** The documented 202 of an export request answered with a job. */
export const EXPORT_ACCEPTED_RESPONSE: OperationResponse = {
  description:
    "Accepted: the export runs as a job (past EXPORT_JOB_THRESHOLD_ROWS rows); the requester is e-mailed a " +
    "download link when it is done. A second request while it runs answers the same job (`created: false`).",
  schema: exportAcceptedSchema,
  headers: { Location: "The job's progress: /api/export-jobs?job_id=…" },
};

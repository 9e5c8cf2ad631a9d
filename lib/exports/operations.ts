/** Operation descriptors of /api/export-jobs (progress) and /api/export-download (the file). */
import { z } from "zod";
import { exportJobSchema } from "../descriptors/export-job.js";
import { defineOperation } from "../http/operation.js";

export const exportJobQuerySchema = z.object({
  job_id: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "The export job (`exj_…`), from the 202 that queued it." }),
});

export const exportDownloadQuerySchema = z.object({
  job_id: z.string().min(1).max(64).meta({ description: "The export job (`exj_…`)." }),
  token: z.string().min(1).max(2048).meta({ description: "The link's signature, from the e-mail." }),
});

export const exportJobResponseSchema = z.object({ job: exportJobSchema });

export const getExportJobOperation = defineOperation({
  id: "getExportJob",
  method: "GET",
  path: "/api/export-jobs",
  summary: "Progress of an export job (Law 25 or compliance export)",
  description:
    "The client JWT of the exported account, an admin key, or the key or staff session that asked for it. Status, " +
    "sections done, rows " +
    "by section, bytes, attempts and the last error. 404 for a job that is not the caller's. The file itself is " +
    "only sent through the e-mailed link (GET /api/export-download).",
  tags: ["Privacy"],
  auth: "key_or_client",
  // The staff member who asked for a compliance export follows its progress with their session.
  staffAccess: true,
  query: exportJobQuerySchema,
  response: exportJobResponseSchema,
  errors: ["VALIDATION_ERROR", "NOT_FOUND"],
});

export const downloadExportOperation = defineOperation({
  id: "downloadExport",
  method: "GET",
  path: "/api/export-download",
  summary: "Download the file of a finished export job (the e-mailed link)",
  description:
    "The link e-mailed when the job succeeded: signed for that job and that account (or requester), valid until " +
    "`expires_at`. Answers the whole file with its Content-Length (a body cut short is visibly short). 404 for a link " +
    "that is forged, expired, for another job, presented with another account's client JWT, or whose file is gone.",
  tags: ["Privacy"],
  auth: "none",
  query: exportDownloadQuerySchema,
  contentType: ["application/json", "text/csv"],
  errors: ["VALIDATION_ERROR", "NOT_FOUND"],
});

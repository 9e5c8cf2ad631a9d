/**
 * The HTTP side of export jobs: when an export request is answered 202 with a job instead of the
 * file (docs/privacy.md "Large exports"; docs/decisions.md 48), and the answer itself.
 */

import { and, eq } from "drizzle-orm";
import type { LargeExport } from "../analytics/exports.js";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { clientAccounts, exportJobs } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/credentials.js";
import { accountExportExceeds } from "../privacy/export.js";
import {
  type ExportJobRequest,
  type ExportJobView,
  exportJobPath,
  exportJobView,
  requestExportJob,
} from "./jobs.js";

/** The body and `Location` of a 202 that answers an export request with its job. */
export interface ExportAccepted {
  body: { job: ExportJobView; created: boolean };
  /** The job's progress: `/api/export-jobs?job_id=…`. */
  location: string;
}

/** Queues `request` (or finds the job running for it) and gives the 202's body and `Location`. */
async function accepted(request: ExportJobRequest): Promise<ExportAccepted> {
  const { job, created } = await requestExportJob(request);
  return { body: { job: exportJobView(job), created }, location: exportJobPath(job.id) };
}

/**
 * The 202 of a Law 25 export that runs as a job — when one already runs for the account (its id
 * again), or when the account is past EXPORT_JOB_THRESHOLD_ROWS — or null: the export is streamed
 * in this answer.
 * @param actor `client` or `admin:<key id>`
 */
export async function law25ExportJobIfLarge(
  accountId: string,
  actor: string,
): Promise<ExportAccepted | null> {
  const db = await getDb();
  const [account] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
  if (!account) throw new DomainError("NOT_FOUND", `No account ${accountId}`, { field: "account_id" });
  const [running] = await db
    .select({ id: exportJobs.id })
    .from(exportJobs)
    .where(and(eq(exportJobs.activeKey, `law25:${accountId}`)));
  if (!running && !(await accountExportExceeds(db, account, getConfig().EXPORT_JOB_THRESHOLD_ROWS)))
    return null;
  return accepted({ kind: "law25", account, requestedBy: actor });
}

/**
 * The 202 of a compliance export past EXPORT_JOB_THRESHOLD_ROWS, its link e-mailed to the caller:
 * an admin key's contact, or a staff member's own address (`staffCaller` sets `contact` to it).
 */
export function analyticsExportJob(large: LargeExport, caller: Caller): Promise<ExportAccepted> {
  return accepted({
    kind: "analytics",
    filter: large.filter,
    format: large.format,
    requestedBy: caller.staff ? `staff:${caller.staff.id}` : `admin:${caller.keyId}`,
    notifyEmail: caller.contact,
  });
}

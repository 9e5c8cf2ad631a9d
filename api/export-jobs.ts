/** GET /api/export-jobs — the progress of an export job (lib/exports/jobs.ts). */
import { readExportJob } from "../lib/exports/jobs.js";
import { getExportJobOperation } from "../lib/exports/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getExportJobOperation, async ({ query, client, caller }) => ({
    job: await readExportJob(query.job_id, {
      accountId: client?.account.id ?? null,
      requestedBy:
        client || !caller ? null : caller.staff ? `staff:${caller.staff.id}` : `admin:${caller.keyId}`,
      isAdmin: !client && (caller?.isAdmin ?? false),
    }),
  })),
});

/** GET /api/export-download — the file of a finished export job, through its e-mailed link (lib/exports/jobs.ts). */
import { presentedJwt, verifyClientJwt } from "../lib/auth/jwt.js";
import { downloadExportJob } from "../lib/exports/jobs.js";
import { downloadExportOperation } from "../lib/exports/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(downloadExportOperation, async ({ query, request }) => {
    // A client session sent with the link must be the exported account's (else 404, as for a foreign link).
    const jwt = presentedJwt(request);
    const session = jwt ? await verifyClientJwt(jwt).catch(() => null) : null;
    const file = await downloadExportJob(query.job_id, query.token, jwt ? (session?.accountId ?? "") : null);
    return new Response(file.body, {
      headers: {
        "content-type": file.contentType,
        "content-length": String(file.length),
        "content-disposition": `attachment; filename="${file.filename}"`,
        "cache-control": "no-store",
      },
    });
  }),
});

/** /api/client-account — open (POST) and read (GET) prepaid client accounts. */
import { getAccount } from "../lib/accounts/get-account.js";
import { createClientAccountOperation, getClientAccountOperation } from "../lib/accounts/operations.js";
import { registerAccount } from "../lib/accounts/register-account.js";
import { renderInvoicePdf } from "../lib/billing/invoice-pdf.js";
import { law25ExportJobIfLarge } from "../lib/exports/requests.js";
import { endpoint, route } from "../lib/http/handler.js";
import { json } from "../lib/http/response.js";
import { accountExportStream } from "../lib/privacy/export.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(createClientAccountOperation, ({ body, caller, ip }) =>
    registerAccount({ body, caller, ip }),
  ),
  GET: endpoint(getClientAccountOperation, async (ctx) => {
    // getAccount authorizes action=export (client JWT or admin key); the export is Law 25's access right.
    const out = await getAccount(ctx, ctx.query);
    if (out.invoice && ctx.query.format === "pdf") {
      const pdf = await renderInvoicePdf(out.invoice, out.invoice.lang);
      return new Response(new Blob([pdf as Uint8Array<ArrayBuffer>]), {
        headers: {
          "content-type": "application/pdf",
          "content-disposition": `inline; filename="${out.invoice.number ?? out.invoice.invoice_id}.pdf"`,
        },
      });
    }
    if (ctx.query.action === "export") {
      const actor = ctx.client ? "client" : `admin:${ctx.caller?.keyId}`;
      // A large account (or one whose export already runs) is exported by a job: 202 with its id.
      const accepted = await law25ExportJobIfLarge(out.account!.account_id, actor);
      if (accepted) return json(accepted.body, 202, { location: accepted.location });
      // Streamed: the account read, then the export document as its sections are read.
      const body = await accountExportStream(out.account!.account_id, actor, { ...out });
      return new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } });
    }
    return out;
  }),
});

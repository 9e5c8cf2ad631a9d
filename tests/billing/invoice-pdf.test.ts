/**
 * PDF invoices: GET /api/client-account?invoice_id=…&format=pdf through the real handler, parsed
 * back with Mozilla's PDF.js, in French with GST/QST (registered) and in English without
 * (small supplier). Needs the packages pdfkit (rendering) and pdfjs-dist (parsing).
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as accountGet } from "../../api/client-account.js";
import { formatCad, renderInvoicePdf } from "../../lib/billing/invoice-pdf.js";
import type { InvoiceView } from "../../lib/billing/invoices.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { ledgerEntries } from "../../lib/db/schema/index.js";
import { accountAdmin, openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { BASE } from "../helpers/request.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";
import { pdfText } from "./pdf-text.js";

useTestDatabase();

useLedgerCheck();

beforeAll(() => {
  process.env.TAX_REGISTERED = "true";
  process.env.GST_NUMBER = "123456789RT0001";
  process.env.QST_NUMBER = "1234567890TQ0001";
  process.env.OPERATOR_ADDRESS = "100 rue Principale, Terrebonne QC J6W 1A1";
  resetConfig();
});
afterAll(() => {
  for (const k of ["TAX_REGISTERED", "GST_NUMBER", "QST_NUMBER", "OPERATOR_ADDRESS"]) delete process.env[k];
  resetConfig();
});

describe("PDF invoices", () => {
  it("formats amounts the Quebec way in each language", () => {
    expect(formatCad(1234.56, "fr")).toBe("1 234,56 $");
    expect(formatCad(1234.56, "en")).toBe("$1,234.56");
  });

  it("serves a task invoice as a French PDF with each tax, its number and the figures", async () => {
    const admin = await makeKey(["admin"]);
    const key = await makeKey(["audit_only", "task_create", "billing_read"], "pdf-client@example.com");
    const opened = await openLinkedAccount(key, { lang: "fr", company_name: "Béton Québec inc." });
    await accountAdmin(admin, { action: "deposit", email: "pdf-client@example.com", amount_cad: 1000 });
    const sub = await submitTask(validTask, { "x-api-key": key });
    await reviewTask(admin, { task_id: sub.body.task_id, action: "approve", price_cad: 329.67 });
    const db = await getDb();
    const charge = (
      await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, opened.body.account.account_id))
    ).find((r) => r.kind === "charge")!;

    const res = await accountGet(
      new Request(`${BASE}/api/client-account?invoice_id=${charge.invoiceId}&format=pdf`, {
        headers: { authorization: `Bearer ${opened.jwt}` },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const json = await readAccount(
      { authorization: `Bearer ${opened.jwt}` },
      `?invoice_id=${charge.invoiceId}`,
    );
    const number = json.body.invoice.number as string;
    expect(res.headers.get("content-disposition")).toContain(`${number}.pdf`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    const text = await pdfText(bytes);
    expect(text).toContain("FACTURE");
    expect(text).toContain(`Numéro: ${number}`);
    expect(text).toContain("Béton Québec inc.");
    expect(text).toContain("100 rue Principale, Terrebonne QC J6W 1A1");
    expect(text).toContain("Sous-total: 329,67 $");
    expect(text).toContain("TPS 5 % (no 123456789RT0001): 16,48 $");
    expect(text).toContain("TVQ 9,975 % (no 1234567890TQ0001): 32,88 $");
    expect(text).toContain("Total: 379,03 $");
  });

  it("renders an English credit note of a small supplier with the reason no tax is charged and why it refunds", async () => {
    const view: InvoiceView = {
      invoice_id: "inv_x",
      number: "2026-000007",
      kind: "refund",
      currency: "CAD",
      lang: "en",
      payment: null,
      refers_to: null,
      refund_reasons: ["cancellation"],
      subtotal_cad: 200,
      taxes: [],
      tax_note:
        "GST and QST not charged: the supplier is a small supplier, not registered for the GST and the QST.",
      total_cad: 200,
      task_id: "TASK-1",
      issued_at: "2026-05-01T15:00:00.000Z",
      lines: [{ description: "Refund: cancelled (task TASK-1)", amount_cad: 200 }],
      issuer: {
        name: "Ops Inc.",
        address: "Terrebonne",
        contact: "ops@example.com",
        website: "https://example.com",
        gst_number: null,
        qst_number: null,
      },
      bill_to: {
        account_id: "acct_1",
        name: "Marie Tremblay",
        company_name: null,
        email: "marie@example.com",
        address: { line1: "1 Rue A", line2: null, city: "Laval", province: "QC", postal_code: "H7A 1A1" },
      },
    };
    const text = await pdfText(await renderInvoicePdf(view, "en"));
    expect(text).toContain("CREDIT NOTE");
    expect(text).toContain("Number: 2026-000007");
    expect(text).toContain("Refund: cancelled (task TASK-1) — $200.00");
    // Why the money goes back, in words (issue 42 item 5).
    expect(text).toContain("Reason: refund of a cancelled task");
    expect(text).toContain("small supplier");
    expect(text).toContain("Total: $200.00");
    expect(text).not.toContain("GST 5");
    const fr = await pdfText(await renderInvoicePdf(view, "fr"));
    expect(fr).toContain("NOTE DE CRÉDIT");
    expect(fr).toContain("Motif: remboursement d'une tâche annulée");
    expect(fr).toContain("petit fournisseur");
  });
});

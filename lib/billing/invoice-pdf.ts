/**
 * An invoice as a PDF (issue #18; docs/taxes.md "PDF invoices"), in the account's language
 * (French or English), rendered with pdfkit (a maintained PDF library) with its built-in
 * Helvetica (WinAnsi: accents print, no font file to ship): issuer with address and tax numbers,
 * bill-to, number and date, lines, subtotal, each tax with its rate and number (or the reason no
 * tax is charged), total; a USDC receipt adds the payment (network, transaction hash, USDC amount,
 * the quote's rate), a credit note the invoice it credits (and the refund's transaction) and why it
 * gives money back (`refund_reasons` in words: a cancellation, a dispute, an SLA credit).
 *
 * pdfkit is loaded on first use; until it is installed (`npm install`) rendering throws.
 */
import type { InvoiceView } from "./invoices.js";

/** Languages of invoices. */
export type InvoiceLang = "fr" | "en";

/** The part of pdfkit's document this module uses. */
interface PdfDoc {
  font(name: string): PdfDoc;
  fontSize(size: number): PdfDoc;
  text(text: string, options?: Record<string, unknown>): PdfDoc;
  moveDown(lines?: number): PdfDoc;
  on(event: "data", fn: (chunk: Uint8Array) => void): PdfDoc;
  on(event: "end", fn: () => void): PdfDoc;
  on(event: "error", fn: (error: unknown) => void): PdfDoc;
  end(): void;
}
type PdfDocConstructor = new (options: Record<string, unknown>) => PdfDoc;

const LABELS = {
  fr: {
    title: {
      deposit: "REÇU DE DÉPÔT",
      task_charge: "FACTURE",
      usdc_receipt: "REÇU DE PAIEMENT USDC",
      refund: "NOTE DE CRÉDIT",
    },
    number: "Numéro",
    date: "Date",
    billTo: "Facturé à",
    task: "Tâche",
    description: "Description",
    amount: "Montant",
    subtotal: "Sous-total",
    total: "Total",
    gst: "TPS",
    qst: "TVQ",
    registration: "no",
    payment: "Paiement",
    network: "Réseau",
    txHash: "Transaction",
    refundTx: "Transaction du remboursement",
    usdcPaid: "Montant payé",
    rate: "Taux de change",
    credits: "Crédite la pièce",
    reason: "Motif",
    reasons: {
      cancellation: "remboursement d'une tâche annulée",
      dispute: "remboursement accordé à la suite d'un litige",
      sla_credit: "crédit de niveau de service (tâche terminée en retard)",
    },
  },
  en: {
    title: {
      deposit: "DEPOSIT RECEIPT",
      task_charge: "INVOICE",
      usdc_receipt: "USDC PAYMENT RECEIPT",
      refund: "CREDIT NOTE",
    },
    number: "Number",
    date: "Date",
    billTo: "Bill to",
    task: "Task",
    description: "Description",
    amount: "Amount",
    subtotal: "Subtotal",
    total: "Total",
    gst: "GST",
    qst: "QST",
    registration: "no.",
    payment: "Payment",
    network: "Network",
    txHash: "Transaction",
    refundTx: "Refund transaction",
    usdcPaid: "Amount paid",
    rate: "Exchange rate",
    credits: "Credits",
    reason: "Reason",
    reasons: {
      cancellation: "refund of a cancelled task",
      dispute: "refund granted on a dispute",
      sla_credit: "SLA credit (task finished late)",
    },
  },
} as const;

/** The small-supplier note in French (the JSON view carries the English one). */
const NO_TAX_FR =
  "TPS et TVQ non perçues : le fournisseur est un petit fournisseur, non inscrit à la TPS et à la TVQ.";

/** `amount` as printed in `lang`: fr `1 234,56 $`, en `$1,234.56` (plain spaces: WinAnsi has no narrow one). */
export function formatCad(amount: number, lang: InvoiceLang): string {
  return new Intl.NumberFormat(lang === "fr" ? "fr-CA" : "en-CA", { style: "currency", currency: "CAD" })
    .format(amount)
    .replace(/[\u00a0\u202f]/g, " ");
}

/**
 * The payment facts of a USDC receipt (network, transaction, USDC paid, rate as "1 CAD = x USDC"
 * with the rate's 8 decimals) or of a credit note of one (network, refund transaction).
 */
function paymentBlock(doc: PdfDoc, invoice: InvoiceView, lang: InvoiceLang): void {
  const L = LABELS[lang];
  const p = invoice.payment!;
  doc.moveDown();
  doc.font("Helvetica-Bold").text(L.payment);
  doc.font("Helvetica");
  if (p.network) doc.text(`${L.network}: ${p.network}`);
  if (p.tx_hash) doc.text(`${invoice.kind === "refund" ? L.refundTx : L.txHash}: ${p.tx_hash}`);
  if (p.amount_usdc)
    doc.text(`${L.usdcPaid}: ${lang === "fr" ? p.amount_usdc.replace(".", ",") : p.amount_usdc} USDC`);
  if (p.exchange_rate_usd_per_cad !== null) {
    const rate = p.exchange_rate_usd_per_cad.toFixed(8);
    doc.text(`${L.rate}: 1 CAD = ${lang === "fr" ? rate.replace(".", ",") : rate} USDC`);
  }
}

let loaded: Promise<PdfDocConstructor> | undefined;

/** pdfkit's constructor (loaded once). */
function pdfkit(): Promise<PdfDocConstructor> {
  // A literal specifier, so Vercel's file tracing bundles pdfkit (and its font files) with the function.
  loaded ??= import("pdfkit").then((m) => m.default as unknown as PdfDocConstructor);
  return loaded;
}

/**
 * Renders `invoice` in `lang`.
 * @returns the PDF bytes
 * @throws Error when pdfkit is not installed
 */
export async function renderInvoicePdf(invoice: InvoiceView, lang: InvoiceLang): Promise<Uint8Array> {
  const PDFDocument = await pdfkit();
  const L = LABELS[lang];
  const doc = new PDFDocument({
    size: "LETTER",
    margin: 54,
    info: {
      Title: `${L.title[invoice.kind]} ${invoice.number ?? invoice.invoice_id}`,
      Author: invoice.issuer.name,
    },
  });
  const chunks: Uint8Array[] = [];
  const done = new Promise<void>((resolve, reject) => {
    doc.on("data", (c) => chunks.push(c));
    doc.on("end", () => resolve());
    doc.on("error", reject);
  });
  const date = invoice.issued_at.slice(0, 10);
  const issuer = invoice.issuer;
  doc.font("Helvetica-Bold").fontSize(16).text(issuer.name);
  doc.font("Helvetica").fontSize(10).text(issuer.address).text(`${issuer.contact} · ${issuer.website}`);
  if (issuer.gst_number) doc.text(`${L.gst} ${L.registration} ${issuer.gst_number}`);
  if (issuer.qst_number) doc.text(`${L.qst} ${L.registration} ${issuer.qst_number}`);
  doc.moveDown();
  doc.font("Helvetica-Bold").fontSize(14).text(L.title[invoice.kind]);
  doc.font("Helvetica").fontSize(10);
  doc.text(`${L.number}: ${invoice.number ?? invoice.invoice_id}`);
  doc.text(`${L.date}: ${date}`);
  if (invoice.task_id) doc.text(`${L.task}: ${invoice.task_id}`);
  doc.moveDown();
  const bill = invoice.bill_to;
  doc.font("Helvetica-Bold").text(L.billTo);
  doc.font("Helvetica");
  if (bill.name) doc.text(bill.company_name ? `${bill.company_name} (${bill.name})` : bill.name);
  const a = bill.address;
  if (a) {
    for (const line of [a.line1, a.line2, [a.city, a.province, a.postal_code].filter(Boolean).join(" ")]) {
      if (line) doc.text(line);
    }
  }
  doc.text(bill.email);
  if (invoice.refers_to)
    doc.text(`${L.credits}: ${invoice.refers_to.number ?? invoice.refers_to.invoice_id}`);
  if (invoice.refund_reasons.length)
    doc.text(`${L.reason}: ${invoice.refund_reasons.map((r) => L.reasons[r]).join("; ")}`);
  if (invoice.payment) paymentBlock(doc, invoice, lang);
  doc.moveDown();
  doc.font("Helvetica-Bold").text(`${L.description} — ${L.amount}`);
  doc.font("Helvetica");
  for (const line of invoice.lines) doc.text(`${line.description} — ${formatCad(line.amount_cad, lang)}`);
  doc.moveDown();
  doc.text(`${L.subtotal}: ${formatCad(invoice.subtotal_cad, lang)}`);
  for (const tax of invoice.taxes) {
    const name = tax.tax === "GST" ? L.gst : L.qst;
    const rate = lang === "fr" ? tax.rate_percent.replace(".", ",") : tax.rate_percent;
    const number = tax.registration_number ? ` (${L.registration} ${tax.registration_number})` : "";
    doc.text(`${name} ${rate} %${number}: ${formatCad(tax.amount_cad, lang)}`);
  }
  if (invoice.tax_note) doc.text(lang === "fr" ? NO_TAX_FR : invoice.tax_note);
  doc.font("Helvetica-Bold").text(`${L.total}: ${formatCad(invoice.total_cad, lang)}`);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

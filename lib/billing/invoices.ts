/**
 * Invoices of prepaid accounts (spec "Client accounts"; README "Accounts, billing and
 * client login"): one per deposit, per charged task and per refund (a credit note), in CAD,
 * immutable, with an id `inv_…` and a number without gaps per year (`YYYY-NNNNNN`).
 * Retrievable as JSON with `GET /api/client-account?invoice_id=`. When registered for the sales
 * taxes, task charges carry GST and QST and credit notes reverse them (docs/taxes.md).
 */
import { and, eq, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import type { InvoiceKind } from "../db/schema/enums.js";
import { type ClientAccount, type InvoiceLine, invoiceSequences, invoices } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { fromCents } from "../money.js";
import { quebecDate, rateAt, type TaxCents } from "../taxes.js";
import { type PostalAddress, postalAddress } from "./postal-address.js";

/**
 * The next invoice number of `at`'s year (Quebec time) in `tx`: `YYYY-NNNNNN`, counting from 1.
 * The sequence row stays locked until `tx` ends, so numbers follow commit order without gaps.
 */
export async function nextInvoiceNumber(tx: Tx, at: Date): Promise<string> {
  const year = Number(quebecDate(at).slice(0, 4));
  const [row] = await tx
    .insert(invoiceSequences)
    .values({ year, lastNumber: 1 })
    .onConflictDoUpdate({
      target: invoiceSequences.year,
      set: { lastNumber: sql`${invoiceSequences.lastNumber} + 1` },
    })
    .returning({ n: invoiceSequences.lastNumber });
  return `${year}-${String(row!.n).padStart(6, "0")}`;
}

/**
 * Writes an invoice in `tx` with the next number of its year; `amountCad` is its positive total
 * (taxes included), `taxes` the taxes it carries (cents) when any. Returns its id.
 */
export async function createInvoice(
  tx: Tx,
  input: {
    accountId: string;
    taskId?: string | null;
    kind: InvoiceKind;
    amountCad: number;
    lines: InvoiceLine[];
    taxes?: TaxCents | null;
  },
  now = new Date(),
): Promise<string> {
  const id = prefixedId("inv");
  const taxes = input.taxes ?? null;
  await tx.insert(invoices).values({
    id,
    accountId: input.accountId,
    taskId: input.taskId ?? null,
    kind: input.kind,
    amountCad: input.amountCad,
    lines: input.lines,
    issuedAt: now,
    number: await nextInvoiceNumber(tx, now),
    subtotalCad: taxes ? fromCents(taxes.subtotal) : null,
    gstCad: taxes ? fromCents(taxes.gst) : null,
    qstCad: taxes ? fromCents(taxes.qst) : null,
  });
  return id;
}

/** One tax line of an invoice view. */
export interface InvoiceTaxLine {
  tax: "GST" | "QST";
  rate_percent: string;
  registration_number: string | null;
  amount_cad: number;
}

/** The JSON form of an invoice. */
export interface InvoiceView {
  invoice_id: string;
  /** `YYYY-NNNNNN`; null on invoices issued before numbering. */
  number: string | null;
  kind: InvoiceKind;
  currency: "CAD";
  /** Before taxes, CAD (equal to `total_cad` when no tax was charged). */
  subtotal_cad: number;
  taxes: InvoiceTaxLine[];
  /** Why no tax is charged (small supplier), or null. */
  tax_note: string | null;
  total_cad: number;
  task_id: string | null;
  issued_at: string;
  lines: InvoiceLine[];
  issuer: {
    name: string;
    address: string;
    contact: string;
    website: string;
    gst_number: string | null;
    qst_number: string | null;
  };
  bill_to: {
    account_id: string;
    name: string;
    company_name: string | null;
    email: string;
    address: PostalAddress;
  };
}

/**
 * Invoice `invoiceId` of `account` as JSON.
 * @throws DomainError NOT_FOUND (unknown, or another account's)
 */
export async function getInvoiceOrThrow(
  account: ClientAccount,
  invoiceId: string,
  db?: Db,
): Promise<InvoiceView> {
  const handle = db ?? (await getDb());
  const [row] = await handle
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, invoiceId), eq(invoices.accountId, account.id)));
  if (!row)
    throw new DomainError("NOT_FOUND", `No invoice ${invoiceId} on this account`, { field: "invoice_id" });
  const config = getConfig();
  const taxed = row.gstCad !== null && row.qstCad !== null;
  const taxes: InvoiceTaxLine[] = taxed
    ? [
        {
          tax: "GST",
          rate_percent: rateAt("gst", row.issuedAt).percent,
          registration_number: config.GST_NUMBER ?? null,
          amount_cad: row.gstCad!,
        },
        {
          tax: "QST",
          rate_percent: rateAt("qst", row.issuedAt).percent,
          registration_number: config.QST_NUMBER ?? null,
          amount_cad: row.qstCad!,
        },
      ]
    : [];
  return {
    invoice_id: row.id,
    number: row.number,
    kind: row.kind,
    currency: "CAD",
    subtotal_cad: row.subtotalCad ?? row.amountCad,
    taxes,
    tax_note:
      taxed || row.kind === "deposit"
        ? null
        : "GST and QST not charged: the supplier is a small supplier, not registered for the GST and the QST.",
    total_cad: row.amountCad,
    task_id: row.taskId,
    issued_at: row.issuedAt.toISOString(),
    lines: row.lines,
    issuer: {
      name: config.OPERATOR_NAME,
      address: config.OPERATOR_ADDRESS,
      contact: config.CONTACT_EMAIL,
      website: config.WEBSITE_URL,
      gst_number: config.GST_NUMBER ?? null,
      qst_number: config.QST_NUMBER ?? null,
    },
    bill_to: {
      account_id: account.id,
      name: account.contactName,
      company_name: account.companyName,
      email: account.email,
      address: postalAddress(account),
    },
  };
}

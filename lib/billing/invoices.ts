/**
 * Invoices of prepaid accounts (spec "Client accounts"; docs/accounts.md "Accounts, billing and
 * client login"): one per deposit, per charged task and per refund (a credit note), in CAD,
 * immutable, with an id `inv_…` and a number without gaps per year (`YYYY-NNNNNN`).
 * Tasks paid in USDC get a receipt (`usdc_receipt`, with the payment's network, transaction,
 * amount and rate), written with the payment (lib/tasks/state/invoice-rows.ts).
 * Retrievable as JSON with `GET /api/client-account?invoice_id=`. When registered for the sales
 * taxes, task charges and receipts carry GST and QST and credit notes reverse them (docs/taxes.md).
 */
import { eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { getConfig } from "../config.js";
import { type Db, getDb } from "../db/client.js";
import type { InvoiceKind, Lang, RefundReason } from "../db/schema/enums.js";
import { type ClientAccount, clientAccounts, type InvoiceLine, invoices, tasks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { formatUsdc } from "../money.js";
import { refundReasonsOf } from "../tasks/state/refund-reasons.js";
import { type TaskPrincipal, taskAccess } from "../tasks/state/task-access.js";
import { rateAt } from "../taxes.js";
import { type PostalAddress, postalAddress } from "./postal-address.js";

// Invoice rows and numbers are written by the task state layer (a USDC receipt commits with its payment).
export { createInvoice, type InvoiceInput, nextInvoiceNumber } from "../tasks/state/invoice-rows.js";

/** One tax line of an invoice view. */
export interface InvoiceTaxLine {
  tax: "GST" | "QST";
  rate_percent: string;
  registration_number: string | null;
  amount_cad: number;
}

/** The payment facts of a USDC receipt or of the credit note of one. */
export interface InvoicePaymentView {
  network: string | null;
  /** The paying transaction (receipt) or the refund's (credit note), 0x hex; null when not given. */
  tx_hash: string | null;
  /** USDC paid, decimal string with 6 decimals (receipt); null on a credit note. */
  amount_usdc: string | null;
  /** The quote's rate, USD (USDC) per CAD; null on a credit note. */
  exchange_rate_usd_per_cad: number | null;
}

/** The JSON form of an invoice. */
export interface InvoiceView {
  invoice_id: string;
  /** `YYYY-NNNNNN`; null on invoices issued before numbering. */
  number: string | null;
  kind: InvoiceKind;
  currency: "CAD";
  /** Language of the PDF: the account's, else the task's. */
  lang: Lang;
  /** Before taxes, CAD (equal to `total_cad` when no tax was charged). */
  subtotal_cad: number;
  taxes: InvoiceTaxLine[];
  /** Why no tax is charged (small supplier), or null. */
  tax_note: string | null;
  total_cad: number;
  task_id: string | null;
  issued_at: string;
  lines: InvoiceLine[];
  /** USDC receipt, or credit note of one: the payment facts; null otherwise. */
  payment: InvoicePaymentView | null;
  /** Credit note: the invoice it credits; null otherwise. */
  refers_to: { invoice_id: string; number: string | null } | null;
  /**
   * Credit note: why it gave money back (`cancellation`, `dispute`, `sla_credit`; several when one
   * settlement closed refunds owed for different reasons; lib/tasks/state/refund-reasons.ts); [] on
   * other invoices and on credit notes issued before reasons were recorded.
   */
  refund_reasons: RefundReason[];
  issuer: {
    name: string;
    address: string;
    contact: string;
    website: string;
    gst_number: string | null;
    qst_number: string | null;
  };
  /** The account billed; a USDC receipt of a task without account names the requester's contact only. */
  bill_to: {
    account_id: string | null;
    name: string | null;
    company_name: string | null;
    email: string;
    address: PostalAddress | null;
  };
}

/**
 * Who reads an invoice: a signed-in account (its own invoices); an API key: an admin key reads
 * any, another key the invoices of the tasks it owns (the task-access rule of
 * lib/tasks/state/task-access.ts: it submitted them, or a key of the same account did) that were
 * paid in USDC (their receipt and credit notes; docs/decisions.md); or whoever follows task
 * `taskId` (its owner or an admin, checked by the caller: the MCP receipt resource), the USDC
 * invoices of that task.
 */
export type InvoiceReader = { account: ClientAccount } | { key: TaskPrincipal } | { followerOfTask: string };

/** The invoice, its task's submitter and language, and its account (when any). */
async function loadInvoice(handle: Db, invoiceId: string) {
  const credited = alias(invoices, "credited");
  const [row] = await handle
    .select({
      invoice: invoices,
      account: clientAccounts,
      // The task's id first: drizzle reads a left-joined object as absent when its first column is
      // null, and a keyless task's apiKeyId is null.
      task: {
        id: tasks.id,
        apiKeyId: tasks.apiKeyId,
        accessTokenHash: tasks.accessTokenHash,
        accountId: tasks.accountId,
        paymentMethod: tasks.paymentMethod,
        requesterContact: tasks.requesterContact,
        lang: tasks.lang,
      },
      creditedNumber: credited.number,
    })
    .from(invoices)
    .leftJoin(clientAccounts, eq(clientAccounts.id, invoices.accountId))
    .leftJoin(tasks, eq(tasks.id, invoices.taskId))
    .leftJoin(credited, eq(credited.id, invoices.refersToInvoiceId))
    .where(eq(invoices.id, invoiceId));
  return row;
}

/** True when `reader` may read `row` (see {@link InvoiceReader}). */
async function mayRead(
  reader: InvoiceReader,
  row: NonNullable<Awaited<ReturnType<typeof loadInvoice>>>,
): Promise<boolean> {
  if ("account" in reader) return row.invoice.accountId === reader.account.id;
  if ("followerOfTask" in reader) {
    return row.invoice.taskId === reader.followerOfTask && row.task?.paymentMethod === "usdc";
  }
  if (reader.key.isAdmin) return true;
  if (row.task?.paymentMethod !== "usdc") return false;
  return (await taskAccess(row.task, { caller: reader.key })) === "owner";
}

/**
 * Invoice `invoiceId` as JSON, for `reader` (an account, or an API key: see {@link InvoiceReader}).
 * Also returns the account billed (null for a receipt without account).
 * @throws DomainError NOT_FOUND (unknown, or not the reader's)
 */
export async function readInvoiceOrThrow(
  reader: InvoiceReader,
  invoiceId: string,
  db?: Db,
): Promise<{ invoice: InvoiceView; account: ClientAccount | null }> {
  const handle = db ?? (await getDb());
  const row = await loadInvoice(handle, invoiceId);
  if (!row || !(await mayRead(reader, row))) {
    throw new DomainError("NOT_FOUND", `No invoice ${invoiceId} for these credentials`, {
      field: "invoice_id",
    });
  }
  const reasons =
    row.invoice.kind === "refund"
      ? ((await refundReasonsOf(handle, [row.invoice.id])).get(row.invoice.id) ?? [])
      : [];
  return { invoice: invoiceView(row, reasons), account: row.account };
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
  return (await readInvoiceOrThrow({ account }, invoiceId, db)).invoice;
}

/** The JSON form of a loaded invoice, a credit note with its `refundReasons`. */
function invoiceView(
  loaded: NonNullable<Awaited<ReturnType<typeof loadInvoice>>>,
  refundReasons: RefundReason[],
): InvoiceView {
  const { invoice: row, account, task } = loaded;
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
  const usdc = row.kind === "usdc_receipt" || row.paymentNetwork !== null || row.paymentTxHash !== null;
  return {
    invoice_id: row.id,
    number: row.number,
    kind: row.kind,
    currency: "CAD",
    lang: account?.lang ?? task?.lang ?? "fr",
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
    payment: usdc
      ? {
          network: row.paymentNetwork,
          tx_hash: row.paymentTxHash,
          amount_usdc: row.usdcMicro === null ? null : formatUsdc(row.usdcMicro),
          exchange_rate_usd_per_cad: row.exchangeRate,
        }
      : null,
    refers_to: row.refersToInvoiceId
      ? { invoice_id: row.refersToInvoiceId, number: loaded.creditedNumber }
      : null,
    refund_reasons: refundReasons,
    issuer: {
      name: config.OPERATOR_NAME,
      address: config.OPERATOR_ADDRESS,
      contact: config.CONTACT_EMAIL,
      website: config.WEBSITE_URL,
      gst_number: config.GST_NUMBER ?? null,
      qst_number: config.QST_NUMBER ?? null,
    },
    bill_to: account
      ? {
          account_id: account.id,
          name: account.contactName,
          company_name: account.companyName,
          email: account.email,
          address: postalAddress(account),
        }
      : {
          account_id: null,
          name: null,
          company_name: null,
          email: task?.requesterContact ?? "",
          address: null,
        },
  };
}

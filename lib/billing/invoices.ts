/**
 * Invoices of prepaid accounts (spec "Client accounts"; README "Accounts, billing and
 * client login"): one per deposit, per charged task and per refund, in CAD, immutable,
 * with an id `inv_…`. Retrievable as JSON with `GET /api/client-account?invoice_id=`.
 */
import { and, eq } from "drizzle-orm";
import { getConfig } from "../config.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import type { InvoiceKind } from "../db/schema/enums.js";
import { type ClientAccount, type InvoiceLine, invoices } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import { prefixedId } from "../ids.js";
import { type PostalAddress, postalAddress } from "./postal-address.js";

/** Writes an invoice in `tx`; `amountCad` is its positive total. Returns its id. */
export async function createInvoice(
  tx: Tx,
  input: {
    accountId: string;
    taskId?: string | null;
    kind: InvoiceKind;
    amountCad: number;
    lines: InvoiceLine[];
  },
  now = new Date(),
): Promise<string> {
  const id = prefixedId("inv");
  await tx.insert(invoices).values({
    id,
    accountId: input.accountId,
    taskId: input.taskId ?? null,
    kind: input.kind,
    amountCad: input.amountCad,
    lines: input.lines,
    issuedAt: now,
  });
  return id;
}

/** The JSON form of an invoice. */
export interface InvoiceView {
  invoice_id: string;
  kind: InvoiceKind;
  currency: "CAD";
  total_cad: number;
  task_id: string | null;
  issued_at: string;
  lines: InvoiceLine[];
  issuer: { name: string; contact: string; website: string };
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
 * @throws ApiError NOT_FOUND (unknown, or another account's)
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
    throw new ApiError("NOT_FOUND", `No invoice ${invoiceId} on this account`, { field: "invoice_id" });
  const config = getConfig();
  return {
    invoice_id: row.id,
    kind: row.kind,
    currency: "CAD",
    total_cad: row.amountCad,
    task_id: row.taskId,
    issued_at: row.issuedAt.toISOString(),
    lines: row.lines,
    issuer: { name: config.OPERATOR_NAME, contact: config.CONTACT_EMAIL, website: config.WEBSITE_URL },
    bill_to: {
      account_id: account.id,
      name: account.contactName,
      company_name: account.companyName,
      email: account.email,
      address: postalAddress(account),
    },
  };
}

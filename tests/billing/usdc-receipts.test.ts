/**
 * Receipts of USDC-paid tasks and their credit notes (issue #18; docs/taxes.md "USDC receipts"),
 * through the real handlers and the state layer's batch path, registered for GST and QST:
 *
 * - an out-of-band USDC payment (POST /api/task-payment with tx_hash) issues a `usdc_receipt` in the
 *   payment's transaction, named in the status (`payment.receipt_invoice_id`); the submitting key
 *   reads it as JSON and PDF (parsed back: network, transaction, rate, taxes); another key cannot;
 * - the checker's batch (`recordPayments`) numbers its receipts per task inside its transaction; a
 *   batch that rolls back gives its numbers back; numbers stay gapless across receipts and invoices;
 * - a USDC refund settled with its transaction issues a credit note of the receipt, taxes reversed
 *   in proportion (half-cent figures).
 */
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as accountGet } from "../../api/client-account.js";
import { POST as refundPost } from "../../api/task-refund.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { invoiceSequences, invoices, tasks } from "../../lib/db/schema/index.js";
import { cadToMicroUsdc } from "../../lib/money.js";
import { recordPayments } from "../../lib/tasks/state/record-payment.js";
import { accountAdmin, openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { BASE, call, expectEnvelope } from "../helpers/request.js";
import { cancelTask, getStatus, recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";
import { pdfText } from "./pdf-text.js";

useTestDatabase();

useLedgerCheck();

const SCOPES = ["audit_only", "task_create", "task_cancel"] as const;
const TX = `0x${"ab".repeat(32)}`;
const REFUND_TX = `0x${"cd".repeat(32)}`;
let admin: string;

beforeAll(async () => {
  process.env.TAX_REGISTERED = "true";
  process.env.GST_NUMBER = "123456789RT0001";
  process.env.QST_NUMBER = "1234567890TQ0001";
  resetConfig();
  admin = await makeKey(["admin"], "ops-receipts@example.com");
});
afterAll(() => {
  for (const k of ["TAX_REGISTERED", "GST_NUMBER", "QST_NUMBER"]) delete process.env[k];
  resetConfig();
});

/** A task submitted with `key` (or keyless) and approved at `price` CAD; returns its id. */
async function approved(key: string | null, price: number, lang = "fr"): Promise<string> {
  const sub = await submitTask({ ...validTask, lang }, key ? keyHeaders(key) : {});
  expect(sub.res.status).toBe(201);
  const review = await reviewTask(admin, { task_id: sub.body.task_id, action: "approve", price_cad: price });
  expect(review.res.status).toBe(200);
  return sub.body.task_id as string;
}

/** Every invoice number of the database, in order. */
async function allNumbers(): Promise<string[]> {
  const db = await getDb();
  return (await db.select({ n: invoices.number }).from(invoices)).map((r) => r.n!).sort();
}

/**
 * Asserts `numbers` (sorted) are `YYYY-000001`… without a gap, per year: a file that runs across
 * New Year's midnight starts the new year's series at 000001.
 */
function expectGapless(numbers: string[]) {
  for (const year of new Set(numbers.map((n) => n.slice(0, 4)))) {
    const ofYear = numbers.filter((n) => n.startsWith(`${year}-`));
    expect(ofYear).toEqual(ofYear.map((_, i) => `${year}-${String(i + 1).padStart(6, "0")}`));
  }
}

describe("USDC receipts", () => {
  it("issues the receipt with the payment: status names it, the key reads it, the PDF prints the figures", async () => {
    const key = await makeKey([...SCOPES], "usdc-payer@example.com");
    const taskId = await approved(key, 329.67);
    const paid = await recordPayment(admin, { task_id: taskId, tx_hash: TX, network: "base" });
    expect(paid.res.status).toBe(200);

    const status = await getStatus(taskId, keyHeaders(key));
    const receiptId = status.body.payment.receipt_invoice_id as string;
    expect(receiptId).toMatch(/^inv_/);
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    const [row] = await db.select().from(invoices).where(eq(invoices.id, receiptId));
    // 329.67 CAD: GST 1648.35 ¢ → 16.48, QST 3288.46 ¢ → 32.88, total 379.03 (docs/taxes.md).
    expect(row).toMatchObject({
      kind: "usdc_receipt",
      taskId,
      accountId: null,
      amountCad: 379.03,
      subtotalCad: 329.67,
      gstCad: 16.48,
      qstCad: 32.88,
      paymentNetwork: "base",
      paymentTxHash: TX,
      usdcMicro: task!.paymentUsdcMicro,
      exchangeRate: task!.exchangeRate,
    });
    // The USDC amount asked converted the total with taxes at the quote's rate (plus the unique bump).
    expect(task!.paymentUsdcMicro! >= cadToMicroUsdc(379.03, task!.exchangeRate!)).toBe(true);

    // The key that submitted the task reads it (no account: no `account` in the answer).
    const json = await readAccount(keyHeaders(key), `?invoice_id=${receiptId}`);
    expect(json.res.status).toBe(200);
    expect(json.body.account).toBeUndefined();
    expect(json.body.invoice).toMatchObject({
      kind: "usdc_receipt",
      lang: "fr",
      total_cad: 379.03,
      payment: { network: "base", tx_hash: TX, exchange_rate_usd_per_cad: task!.exchangeRate },
      bill_to: { account_id: null, email: validTask.requester_contact },
    });
    const pdf = await accountGet(
      new Request(`${BASE}/api/client-account?invoice_id=${receiptId}&format=pdf`, {
        headers: keyHeaders(key),
      }),
    );
    expect(pdf.status).toBe(200);
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    const rate = task!.exchangeRate!.toFixed(8).replace(".", ",");
    expect(text).toContain("REÇU DE PAIEMENT USDC");
    expect(text).toContain(`Numéro: ${row!.number}`);
    expect(text).toContain("Réseau: base");
    expect(text).toContain(`Transaction: ${TX}`);
    expect(text).toContain(`Taux de change: 1 CAD = ${rate} USDC`);
    expect(text).toContain("Sous-total: 329,67 $");
    expect(text).toContain("TPS 5 % (no 123456789RT0001): 16,48 $");
    expect(text).toContain("TVQ 9,975 % (no 1234567890TQ0001): 32,88 $");
    expect(text).toContain("Total: 379,03 $");

    // Another (non-admin) key may not read it; an admin key may.
    const other = await makeKey([...SCOPES], "someone-else@example.com");
    const refused = await readAccount(keyHeaders(other), `?invoice_id=${receiptId}`);
    expectEnvelope(refused.body, refused.res, 404, "NOT_FOUND");
    const asAdmin = await readAccount(keyHeaders(admin), `?invoice_id=${receiptId}`);
    expect(asAdmin.body.invoice.invoice_id).toBe(receiptId);
  });

  it("bills the receipt to the account the submitting key is linked to, readable with its client token", async () => {
    const key = await makeKey([...SCOPES], "linked-usdc@example.com");
    const opened = await openLinkedAccount(key, { lang: "en" });
    // Unfunded account: the approval leaves the task to be paid in USDC.
    const taskId = await approved(key, 100);
    await recordPayment(admin, { task_id: taskId, tx_hash: `0x${"12".repeat(32)}`, network: "ethereum" });
    const receiptId = (await getStatus(taskId, keyHeaders(key))).body.payment.receipt_invoice_id;
    const read = await readAccount({ authorization: `Bearer ${opened.jwt}` }, `?invoice_id=${receiptId}`);
    expect(read.res.status).toBe(200);
    expect(read.body.invoice).toMatchObject({
      lang: "en",
      subtotal_cad: 100,
      taxes: [{ amount_cad: 5 }, { amount_cad: 9.98 }],
      total_cad: 114.98,
      bill_to: { account_id: opened.body.account.account_id },
    });
  });

  it("states the taxes the USDC amount included, even when the registration changed before payment", async () => {
    const taxed = await approved(null, 100); // quoted registered: 114.98 CAD in USDC
    process.env.TAX_REGISTERED = "false";
    resetConfig();
    const untaxed = await approved(null, 100); // quoted as a small supplier: 100.00 CAD in USDC
    process.env.TAX_REGISTERED = "true";
    resetConfig();
    // Paid after the setting flipped back: each receipt follows its own quote.
    await recordPayment(admin, { task_id: untaxed, tx_hash: `0x${"56".repeat(32)}`, network: "base" });
    process.env.TAX_REGISTERED = "false";
    resetConfig();
    await recordPayment(admin, { task_id: taxed, tx_hash: `0x${"78".repeat(32)}`, network: "base" });
    process.env.TAX_REGISTERED = "true";
    resetConfig();
    const db = await getDb();
    const [a] = await db.select().from(invoices).where(eq(invoices.taskId, taxed));
    const [b] = await db.select().from(invoices).where(eq(invoices.taskId, untaxed));
    expect(a).toMatchObject({ amountCad: 114.98, subtotalCad: 100, gstCad: 5, qstCad: 9.98 });
    expect(b).toMatchObject({ amountCad: 100, subtotalCad: null, gstCad: null, qstCad: null });
  });

  it("bills a keyless task's receipt to its requester, in the task's language", async () => {
    const taskId = await approved(null, 80, "en");
    expect(
      (await recordPayment(admin, { task_id: taskId, tx_hash: TX, network: "ethereum" })).res.status,
    ).toBe(200);
    const receiptId = (await getStatus(taskId, keyHeaders(admin))).body.payment.receipt_invoice_id as string;
    const read = await readAccount(keyHeaders(admin), `?invoice_id=${receiptId}`);
    expect(read.res.status).toBe(200);
    expect(read.body.invoice).toMatchObject({
      kind: "usdc_receipt",
      lang: "en",
      bill_to: { account_id: null, email: validTask.requester_contact },
    });
  });

  it("gives no receipt to a payment that is not USDC", async () => {
    const taskId = await approved(null, 50);
    await recordPayment(admin, { task_id: taskId, note: "e-transfer" });
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    expect(task!.receiptInvoiceId).toBeNull();
    expect(await db.select().from(invoices).where(eq(invoices.taskId, taskId))).toEqual([]);
  });

  it("numbers a batch's receipts per task in its transaction; a rolled-back batch gives them back", async () => {
    const ids = [await approved(null, 10), await approved(null, 20), await approved(null, 30)];
    const db = await getDb();
    const before = await allNumbers();
    const entries = ids.map((taskId, i) => ({
      taskId,
      payment: { method: "usdc" as const, network: "base", txHash: `0x${String(i + 1).repeat(64)}` },
    }));
    // A receipt already present for the third task (unnumbered) makes the batch fail after numbering.
    await db.insert(invoices).values({
      id: "inv_blocker",
      accountId: null,
      taskId: ids[2]!,
      kind: "usdc_receipt",
      amountCad: 1,
      lines: [],
    });
    await expect(recordPayments(entries)).rejects.toThrow();
    const [seq] = await db.select().from(invoiceSequences);
    expect(seq!.lastNumber).toBe(before.length);
    const states = await db.select({ status: tasks.status }).from(tasks).where(inArray(tasks.id, ids));
    expect(states.map((s) => s.status)).toEqual(Array(3).fill("accepted_pending_payment"));

    await db.delete(invoices).where(eq(invoices.id, "inv_blocker"));
    const result = await recordPayments(entries);
    expect(result.applied).toHaveLength(3);
    const receipts = await db.select().from(invoices).where(inArray(invoices.taskId, ids));
    const sorted = [...ids].sort();
    const byTask = new Map(receipts.map((r) => [r.taskId, r]));
    // One number per task, in task id order, right after the numbers already given.
    expect(sorted.map((id) => byTask.get(id)!.number)).toEqual(
      [1, 2, 3].map((n) => `${before[0]!.slice(0, 4)}-${String(before.length + n).padStart(6, "0")}`),
    );
    expect(byTask.get(ids[1]!)).toMatchObject({ subtotalCad: 20, gstCad: 1, qstCad: 2, amountCad: 23 });
    const paid = await db.select().from(tasks).where(inArray(tasks.id, ids));
    for (const t of paid) expect(t.receiptInvoiceId).toBe(byTask.get(t.id)!.id);
  });

  it("keeps numbers gapless across receipts, deposits and charges of one year", async () => {
    const key = await makeKey([...SCOPES, "billing_read"], "mixed-numbers@example.com");
    await openLinkedAccount(key);
    await accountAdmin(admin, { action: "deposit", email: "mixed-numbers@example.com", amount_cad: 500 });
    await approved(key, 40); // charged to the account: a task_charge invoice
    const usdc = await approved(null, 60);
    await recordPayment(admin, { task_id: usdc, tx_hash: `0x${"34".repeat(32)}`, network: "base" });
    const numbers = await allNumbers();
    expect(numbers.length).toBeGreaterThanOrEqual(3);
    expectGapless(numbers);
    const db = await getDb();
    const kinds = new Set((await db.select({ kind: invoices.kind }).from(invoices)).map((r) => r.kind));
    expect(kinds).toEqual(new Set(["deposit", "task_charge", "usdc_receipt"]));
  });
});

describe("credit notes of USDC receipts", () => {
  it("credits half of a receipt with the refund's transaction, reversing each tax at the half-cent", async () => {
    const key = await makeKey([...SCOPES], "refund-usdc@example.com");
    // 10.10 CAD: GST 50.5 ¢ → 0.51, QST 100.7475 ¢ → 1.01, total 11.62.
    const taskId = await approved(key, 10.1, "en");
    await recordPayment(admin, { task_id: taskId, tx_hash: TX, network: "base" });
    const cancelled = await cancelTask(taskId, keyHeaders(key));
    expect(cancelled.body.refund).toMatchObject({ status: "pending", amount_cad: 11.62 });

    // Refunding 5.81 of 11.62: GST 51 × 581 / 1162 = 25.5 ¢ → 0.26; QST 101 × 581 / 1162 = 50.5 ¢ → 0.51.
    const settled = await call(refundPost, "/api/task-refund", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { task_id: taskId, outcome: "refunded", amount_cad: 5.81, tx_hash: REFUND_TX },
    });
    expect(settled.res.status).toBe(200);
    const db = await getDb();
    const [receipt] = await db
      .select()
      .from(invoices)
      .where(and(eq(invoices.kind, "usdc_receipt"), eq(invoices.taskId, taskId)));
    expect(receipt).toMatchObject({ amountCad: 11.62, subtotalCad: 10.1, gstCad: 0.51, qstCad: 1.01 });
    const [credit] = await db.select().from(invoices).where(eq(invoices.refersToInvoiceId, receipt!.id));
    expect(credit).toMatchObject({
      kind: "refund",
      accountId: null,
      amountCad: 5.81,
      subtotalCad: 5.04,
      gstCad: 0.26,
      qstCad: 0.51,
      paymentNetwork: "base",
      paymentTxHash: REFUND_TX,
    });
    // The submitting key reads the credit note; its PDF names the receipt and the refund transaction.
    const pdf = await accountGet(
      new Request(`${BASE}/api/client-account?invoice_id=${credit!.id}&format=pdf`, {
        headers: keyHeaders(key),
      }),
    );
    expect(pdf.status).toBe(200);
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain("CREDIT NOTE");
    expect(text).toContain(`Credits: ${receipt!.number}`);
    expect(text).toContain(`Refund transaction: ${REFUND_TX}`);
    expect(text).toContain("GST 5 % (no. 123456789RT0001): $0.26");
    expect(text).toContain("QST 9.975 % (no. 1234567890TQ0001): $0.51");
    expect(text).toContain("Total: $5.81");
  });

  it("refuses a USDC refund above the receipt's total", async () => {
    const key = await makeKey([...SCOPES], "refund-over@example.com");
    const taskId = await approved(key, 10.1);
    await recordPayment(admin, { task_id: taskId, tx_hash: TX, network: "base" });
    await cancelTask(taskId, keyHeaders(key));
    const over = await call(refundPost, "/api/task-refund", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { task_id: taskId, outcome: "refunded", amount_cad: 11.63, tx_hash: REFUND_TX },
    });
    expectEnvelope(over.body, over.res, 422, "VALIDATION_ERROR");
    const full = await call(refundPost, "/api/task-refund", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { task_id: taskId, outcome: "refunded", tx_hash: REFUND_TX },
    });
    expect(full.res.status).toBe(200);
    const db = await getDb();
    const notes = await db.select().from(invoices).where(eq(invoices.taskId, taskId));
    // The full refund reverses the taxes exactly.
    expect(notes.find((n) => n.kind === "refund")).toMatchObject({
      amountCad: 11.62,
      gstCad: 0.51,
      qstCad: 1.01,
    });
  });
});

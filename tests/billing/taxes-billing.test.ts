/**
 * GST/QST through the real handlers when the operator is registered (TAX_REGISTERED=true): the
 * estimate and the status add `taxes` and `total_with_taxes_cad`; a prepaid charge debits the
 * total with taxes and its invoice lists each tax with its number; a refund's credit note reverses
 * the taxes (in full, or in proportion); the USDC amount pays the total with taxes; invoice numbers
 * follow each other without gaps. Not registered (the default), no tax anywhere and the invoice
 * says why.
 */

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as estimateGet } from "../../api/estimate.js";
import { POST as refundPost } from "../../api/task-refund.js";
import { refundTaskToAccount } from "../../lib/billing/charge-task.js";
import { createInvoice } from "../../lib/billing/invoices.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { invoices, ledgerEntries, tasks } from "../../lib/db/schema/index.js";
import { accountAdmin, openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { call } from "../helpers/request.js";
import { cancelTask, completeTask, getStatus, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

useLedgerCheck();

const SCOPES = ["audit_only", "task_create", "task_cancel", "billing_read"] as const;
let admin: string;

function register(on: boolean) {
  if (on) {
    process.env.TAX_REGISTERED = "true";
    process.env.GST_NUMBER = "123456789RT0001";
    process.env.QST_NUMBER = "1234567890TQ0001";
  } else {
    delete process.env.TAX_REGISTERED;
    delete process.env.GST_NUMBER;
    delete process.env.QST_NUMBER;
  }
  resetConfig();
}

beforeAll(async () => {
  admin = await makeKey(["admin"], "ops-tax@example.com");
});
afterAll(() => register(false));

async function fundedClient(contact: string, deposit: number) {
  const key = await makeKey([...SCOPES], contact);
  const opened = await openLinkedAccount(key);
  await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: deposit });
  return { key, accountId: opened.body.account.account_id as string, jwt: opened.jwt };
}

/** The refund ledger entry of account `accountId` and the credit note it refers to. */
async function refundOf(accountId: string) {
  const db = await getDb();
  const refund = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))).find(
    (r) => r.kind === "refund",
  )!;
  const [credit] = await db.select().from(invoices).where(eq(invoices.id, refund.invoiceId!));
  return { refund, credit };
}

async function newTask(key: string | null) {
  const { res, body } = await submitTask(validTask, key ? keyHeaders(key) : {});
  expect(res.status).toBe(201);
  return body.task_id as string;
}

describe("sales taxes when registered", () => {
  beforeAll(() => register(true));

  it("adds taxes and total_with_taxes_cad to the estimate (GST 5 %, QST 9.975 % of the price before taxes)", async () => {
    const { res, body } = await call(estimateGet, "/api/estimate?hours=2&location=Laval");
    expect(res.status).toBe(200);
    const cents = Math.round(body.total_cad * 100);
    const gst = Math.round((cents * 5) / 100);
    const qst = Math.round((cents * 9.975) / 100);
    expect(body.taxes).toEqual({ gst_cad: gst / 100, qst_cad: qst / 100 });
    expect(body.total_with_taxes_cad).toBe((cents + gst + qst) / 100);
  });

  it("charges the total with taxes, lists each tax with its number, and a cancellation's credit note reverses them", async () => {
    const { key, accountId, jwt } = await fundedClient("taxed@example.com", 1000);
    const taskId = await newTask(key);
    const { body } = await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 329.67 });
    expect(body.status).toBe("paid");
    const db = await getDb();
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
    const charge = rows.find((r) => r.kind === "charge")!;
    expect(charge.amountCad).toBe(-379.03); // 329.67 + 16.48 GST + 32.88 QST
    const status = await getStatus(taskId, keyHeaders(key));
    expect(status.body.taxes).toEqual({ gst_cad: 16.48, qst_cad: 32.88 });
    expect(status.body.total_with_taxes_cad).toBe(379.03);

    const inv = await readAccount({ authorization: `Bearer ${jwt}` }, `?invoice_id=${charge.invoiceId}`);
    expect(inv.res.status).toBe(200);
    expect(inv.body.invoice).toMatchObject({
      subtotal_cad: 329.67,
      total_cad: 379.03,
      tax_note: null,
      taxes: [
        { tax: "GST", rate_percent: "5", registration_number: "123456789RT0001", amount_cad: 16.48 },
        { tax: "QST", rate_percent: "9.975", registration_number: "1234567890TQ0001", amount_cad: 32.88 },
      ],
      issuer: { gst_number: "123456789RT0001", qst_number: "1234567890TQ0001" },
    });
    expect(inv.body.invoice.number).toMatch(/^\d{4}-\d{6}$/);

    const cancelled = await cancelTask(taskId, keyHeaders(key));
    expect(cancelled.res.status).toBe(200);
    const { refund, credit } = await refundOf(accountId);
    expect(refund.amountCad).toBe(379.03);
    expect(credit).toMatchObject({ kind: "refund", subtotalCad: 329.67, gstCad: 16.48, qstCad: 32.88 });
  });

  it("reverses the taxes in proportion on a partial credit note (100.00 of 379.03)", async () => {
    const { key } = await fundedClient("partial@example.com", 1000);
    const taskId = await newTask(key);
    await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 329.67 });
    const db = await getDb();
    const refunded = await db.transaction((tx) =>
      refundTaskToAccount(tx, { id: taskId }, "partial", new Date(), 100),
    );
    expect(refunded?.amountCad).toBe(100);
    const credit = (await db.select().from(invoices).where(eq(invoices.taskId, taskId))).find(
      (i) => i.kind === "refund",
    )!;
    expect(refunded?.invoiceId).toBe(credit.id);
    // GST 1648 × 10000 / 37903 = 434.79 → 4.35; QST 3288 × 10000 / 37903 = 867.48 → 8.67; rest 86.98.
    expect(credit).toMatchObject({ amountCad: 100, gstCad: 4.35, qstCad: 8.67, subtotalCad: 86.98 });
  });

  it("settles a prepaid refund after dispatch up to the charge with taxes, not the price before them", async () => {
    const { key, accountId } = await fundedClient("settle-taxed@example.com", 1000);
    const taskId = await newTask(key);
    await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 329.67 });
    await completeTask(admin, { task_id: taskId, action: "dispatch" });
    expect((await cancelTask(taskId, keyHeaders(key))).body.refund_status).toBe("pending");
    const settle = (json: Record<string, unknown>) =>
      call(refundPost, "/api/task-refund", { method: "POST", headers: keyHeaders(admin), json });
    const over = await settle({ task_id: taskId, outcome: "refunded", amount_cad: 379.04 });
    expect(over.res.status).toBe(422);
    expect(over.body.error.message).toContain("379.03");
    // No amount: the whole charge, 379.03 (before the fix, the 329.67 price: the taxes stayed kept).
    const { res, body } = await settle({ task_id: taskId, outcome: "refunded" });
    expect(res.status).toBe(200);
    expect(body.refund).toMatchObject({ status: "refunded", amount_cad: 379.03 });
    const { refund, credit } = await refundOf(accountId);
    expect(refund.amountCad).toBe(379.03);
    expect(credit).toMatchObject({ kind: "refund", subtotalCad: 329.67, gstCad: 16.48, qstCad: 32.88 });
  });

  it("asks for the total with taxes in USDC", async () => {
    const taskId = await newTask(null);
    const { body } = await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 100 });
    expect(body.status).toBe("accepted_pending_payment");
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    // 114.98 CAD at the task's fixed rate; the amount may be nudged up by a few micro-units to be unique.
    const expected = BigInt(Math.round(11498 * 10_000 * task!.exchangeRate!));
    expect(task!.paymentUsdcMicro! - expected).toBeGreaterThanOrEqual(0n);
    expect(task!.paymentUsdcMicro! - expected).toBeLessThan(1000n);
  });

  it("gives a rolled-back invoice's number back, and concurrent invoices distinct consecutive numbers", async () => {
    const db = await getDb();
    const [acct] = await db.select({ id: ledgerEntries.accountId }).from(ledgerEntries).limit(1);
    const input = { accountId: acct!.id, kind: "deposit" as const, amountCad: 1, lines: [] };
    const rolledBack = await db
      .transaction(async (tx) => {
        await createInvoice(tx, input);
        throw new Error("roll back");
      })
      .catch((e: Error) => e.message);
    expect(rolledBack).toBe("roll back");
    const ids = await Promise.all(
      Array.from({ length: 5 }, () => db.transaction((tx) => createInvoice(tx, input))),
    );
    const rows = await db.select({ id: invoices.id, n: invoices.number }).from(invoices);
    const mine = rows.filter((r) => ids.includes(r.id)).map((r) => Number(r.n!.slice(5)));
    expect(new Set(mine).size).toBe(5);
    expect(Math.max(...mine) - Math.min(...mine)).toBe(4);
  });

  it("numbers invoices without gaps", async () => {
    const db = await getDb();
    const numbers = (await db.select({ n: invoices.number }).from(invoices))
      .map((r) => r.n!)
      .filter(Boolean)
      .sort();
    // Per year: a file that runs across New Year's midnight starts the new series at 000001.
    for (const year of new Set(numbers.map((n) => n.slice(0, 4)))) {
      const ofYear = numbers.filter((n) => n.startsWith(`${year}-`));
      expect(ofYear).toEqual(ofYear.map((_, i) => `${year}-${String(i + 1).padStart(6, "0")}`));
    }
  });
});

describe("sales taxes when not registered (small supplier)", () => {
  beforeAll(() => register(false));

  it("adds no tax, charges the price and says why on the invoice", async () => {
    const est = await call(estimateGet, "/api/estimate?hours=2&location=Laval");
    expect(est.body.taxes).toBeUndefined();
    expect(est.body.total_with_taxes_cad).toBeUndefined();
    const { key, accountId, jwt } = await fundedClient("small@example.com", 1000);
    const taskId = await newTask(key);
    await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 329.67 });
    const db = await getDb();
    const charge = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))).find(
      (r) => r.kind === "charge",
    )!;
    expect(charge.amountCad).toBe(-329.67);
    const inv = await readAccount({ authorization: `Bearer ${jwt}` }, `?invoice_id=${charge.invoiceId}`);
    expect(inv.body.invoice.taxes).toEqual([]);
    expect(inv.body.invoice.tax_note).toMatch(/small supplier/);
  });
});

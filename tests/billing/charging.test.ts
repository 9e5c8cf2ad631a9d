/**
 * Charging prepaid accounts at approval: discount, invoice, straight to `paid`; USDC
 * fallback when funds are short; two approvals racing for the last dollars (only one
 * charge); refund to the account on cancellation before dispatch; sandbox and anonymous
 * tasks never billed; billing events.
 */
import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { invoices, ledgerEntries, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { cancelTask, completeTask, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

useLedgerCheck();

const SCOPES = ["audit_only", "task_create", "task_cancel", "billing_read"] as const;
let admin: string;
beforeAll(async () => {
  admin = await makeKey(["admin"], "ops@example.com");
});

async function fundedClient(contact: string, deposit: number, discount = 0) {
  const key = await makeKey([...SCOPES], contact);
  const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
  if (deposit > 0) await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: deposit });
  if (discount)
    await accountAdmin(admin, { action: "set_discount", email: contact, discount_percent: discount });
  return { key, accountId };
}

async function newTask(key: string, headers: Record<string, string> = {}) {
  const { res, body } = await submitTask(validTask, keyHeaders(key, headers));
  expect(res.status).toBe(201);
  return body.task_id as string;
}

async function ledger(accountId: string) {
  const db = await getDb();
  const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
  return { rows, sum: Math.round(rows.reduce((s, e) => s + e.amountCad * 100, 0)) / 100 };
}

async function billingEvents(accountId: string) {
  const db = await getDb();
  return db
    .select()
    .from(taskEvents)
    .where(and(eq(taskEvents.accountId, accountId), isNull(taskEvents.taskId)));
}

describe("charging at approval", () => {
  it("charges the discounted price, issues an invoice and moves the task to paid", async () => {
    const { key, accountId } = await fundedClient("charged@example.com", 1000, 10);
    const taskId = await newTask(key);
    const { res, body } = await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 329.67 });
    expect(res.status).toBe(200);
    expect(body.status).toBe("paid");
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    expect(task).toMatchObject({ status: "paid", paymentMethod: "account", accountId, priceCad: 329.67 });
    expect(task!.paidAt).not.toBeNull();
    const { rows, sum } = await ledger(accountId);
    const charge = rows.find((r) => r.kind === "charge")!;
    expect(charge.amountCad).toBe(-296.7); // 329.67 less 10 %, to the cent
    expect(sum).toBe(703.3);
    const [invoice] = await db.select().from(invoices).where(eq(invoices.id, charge.invoiceId!));
    expect(invoice).toMatchObject({ kind: "task_charge", amountCad: 296.7, taskId });
    expect(invoice!.lines.map((l) => l.amount_cad)).toEqual([329.67, -32.97]);
    const types = (await db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId))).map(
      (e) => e.type,
    );
    expect(types).toEqual(["task.created", "task.accepted", "task.paid"]);
  });

  it("leaves the task awaiting USDC when the balance is short, with billing.payment_required", async () => {
    const { key, accountId } = await fundedClient("short@example.com", 100);
    const taskId = await newTask(key);
    const { body } = await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 250 });
    expect(body.status).toBe("accepted_pending_payment");
    expect(body.payment_usdc).toBeDefined();
    expect((await ledger(accountId)).sum).toBe(100);
    const events = await billingEvents(accountId);
    expect(events.map((e) => e.type)).toEqual(["billing.payment_required"]);
    expect(events[0]!.payload).toMatchObject({
      reason: "insufficient_funds",
      task_id: taskId,
      required_cad: 250,
      available_balance_cad: 100,
    });
  });

  it("never charges a suspended or pending account, an anonymous task or a sandbox task", async () => {
    const { key } = await fundedClient("suspended@example.com", 1000);
    await accountAdmin(admin, { action: "suspend", email: "suspended@example.com" });
    const t1 = await newTask(key);
    expect((await reviewTask(admin, { task_id: t1, action: "approve" })).body.status).toBe(
      "accepted_pending_payment",
    );

    const pending = await fundedClient("pending@example.com", 0);
    const t2 = await newTask(pending.key);
    expect((await reviewTask(admin, { task_id: t2, action: "approve" })).body.status).toBe(
      "accepted_pending_payment",
    );

    const rich = await fundedClient("rich@example.com", 5000);
    const anon = await submitTask({ ...validTask, requester_contact: "rich@example.com" });
    expect((await reviewTask(admin, { task_id: anon.body.task_id, action: "approve" })).body.status).toBe(
      "accepted_pending_payment",
    );
    const sandbox = await newTask(rich.key, { "x-service-mode": "sandbox" });
    const reviewed = await reviewTask(admin, { task_id: sandbox, action: "approve" });
    expect(reviewed.body.status).toBe("accepted_pending_payment");
    expect((await ledger(rich.accountId)).sum).toBe(5000);
  });

  it("counter-offers are not charged (the requester accepts by paying USDC)", async () => {
    const { key, accountId } = await fundedClient("counter@example.com", 1000);
    const taskId = await newTask(key);
    const { body } = await reviewTask(admin, {
      task_id: taskId,
      action: "counter_offer",
      counter_offer_amount: 400,
    });
    expect(body.status).toBe("counter_offered");
    expect((await ledger(accountId)).sum).toBe(1000);
  });

  it("two approvals racing for the last dollars: exactly one charge succeeds", async () => {
    const { key, accountId } = await fundedClient("race@example.com", 400);
    const a = await newTask(key);
    const b = await newTask(key);
    const results = await Promise.all([
      reviewTask(admin, { task_id: a, action: "approve", price_cad: 300 }),
      reviewTask(admin, { task_id: b, action: "approve", price_cad: 300 }),
    ]);
    expect(results.map((r) => r.res.status)).toEqual([200, 200]);
    expect(results.map((r) => r.body.status).sort()).toEqual(["accepted_pending_payment", "paid"]);
    const { rows, sum } = await ledger(accountId);
    expect(rows.filter((r) => r.kind === "charge")).toHaveLength(1);
    expect(sum).toBe(100);
    const types = (await billingEvents(accountId)).map((e) => e.type).sort();
    expect(types).toEqual(["billing.low_balance", "billing.payment_required"]);
  });

  it("refunds the charge to the account when cancelled before dispatch, not after", async () => {
    const { key, accountId } = await fundedClient("refund@example.com", 1000);
    const before = await newTask(key);
    await reviewTask(admin, { task_id: before, action: "approve", price_cad: 200 });
    const cancelled = await cancelTask(before, keyHeaders(key));
    expect(cancelled.body.status).toBe("cancelled");
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, before));
    expect(row).toMatchObject({ refundStatus: "refunded", refundAmountCad: 200 });
    let l = await ledger(accountId);
    expect(l.sum).toBe(1000);
    const refund = l.rows.find((r) => r.kind === "refund")!;
    expect(refund).toMatchObject({ amountCad: 200, taskId: before });
    const [credit] = await db.select().from(invoices).where(eq(invoices.id, refund.invoiceId!));
    expect(credit!.kind).toBe("refund");

    const after = await newTask(key);
    await reviewTask(admin, { task_id: after, action: "approve", price_cad: 150 });
    await completeTask(admin, { task_id: after, action: "dispatch" });
    await cancelTask(after, keyHeaders(key));
    const [row2] = await db.select().from(tasks).where(eq(tasks.id, after));
    expect(row2!.refundStatus).toBe("pending");
    l = await ledger(accountId);
    expect(l.sum).toBe(850);
  });
});

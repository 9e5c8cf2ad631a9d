/**
 * One running total of what a task gave back (issue 42 items 1-2; lib/billing/task-refunds.ts):
 * disputes, SLA credits and settlements (POST /api/task-refund) all cap by what is left after
 * every refund given or owed, and a task's refunds are settled any number of times, each once.
 *
 * A task is now disputed once, and again only after a `redo` (docs/decisions.md 37): the API
 * refuses the second dispute of these sequences with 409. The cap must hold whatever the rows
 * say, so the later disputes are written as rows (open, as a dispute opened before the rule could
 * be) and resolved through the API.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import {
  invoices,
  slaCreditChecks,
  slaCredits,
  taskDisputes,
  taskRefunds,
  tasks,
} from "../../lib/db/schema/index.js";
import { prefixedId } from "../../lib/ids.js";
import { creditLateTasks } from "../../lib/tasks/sla-credits.js";
import { completedTask, openDispute, resolve } from "../disputes/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { expectEnvelope } from "../helpers/request.js";
import {
  completeTask,
  pngProof,
  recordPayment,
  refundSettledEmails,
  reviewTask,
  settleRefund,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { verifyAddresses } from "../helpers/verified.js";

useTestDatabase();

useLedgerCheck();

let admin: string;
let owner: string;
const TX = (byte: string) => `0x${byte.repeat(32)}`;
const HOUR = 3600_000;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create", "task_cancel"], "refund-total@example.com");
  // Full-text e-mails go to verified addresses only (lib/mail/unverified-recipients.ts).
  await verifyAddresses(validTask.requester_contact);
});

/** POST /api/task-refund as the admin key. */
const settle = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  settleRefund(admin, body, headers);

/** A task approved at `price`, paid out of band (`method: manual`, no transaction), dispatched, completed. */
async function manualTask(price: number) {
  const { body: created } = await submitTask(validTask, keyHeaders(owner));
  const id = created.task_id as string;
  await reviewTask(admin, { task_id: id, action: "approve", price_cad: price });
  const paid = await recordPayment(admin, { task_id: id, note: "Interac e-transfer" });
  expect(paid.body.payment).toMatchObject({ method: "manual" });
  await completeTask(admin, { task_id: id, action: "dispatch" });
  const done = await completeTask(admin, {
    task_id: id,
    action: "complete",
    no_visit_reason: "Test: completed without a site visit",
    proof_files: [pngProof()],
  });
  expect(done.body.status).toBe("completed");
  return id;
}

/**
 * Opens a dispute of `taskId` and resolves it with `resolution`; returns the answer. The first
 * dispute of a task is opened through the API; a later one (which the API refuses after a refund:
 * docs/decisions.md 37) is written as an open row, as a dispute opened before that rule could be.
 */
async function disputeAndResolve(taskId: string, resolution: Record<string, unknown>) {
  const db = await getDb();
  const earlier = await db.select().from(taskDisputes).where(eq(taskDisputes.taskId, taskId));
  let disputeId: string;
  if (earlier.length === 0) {
    const opened = await openDispute(
      { task_id: taskId, reason: "incomplete", details: "Only part of it." },
      keyHeaders(owner),
    );
    expect(opened.res.status).toBe(201);
    disputeId = opened.body.dispute.dispute_id;
  } else {
    disputeId = prefixedId("dsp");
    await db
      .insert(taskDisputes)
      .values({ id: disputeId, taskId, reason: "incomplete", details: "Still not done." });
  }
  return resolve(admin, { dispute_id: disputeId, ...resolution });
}

async function entries(taskId: string, kind: "credit" | "owed" | "settlement") {
  return (await getDb())
    .select()
    .from(taskRefunds)
    .where(and(eq(taskRefunds.taskId, taskId), eq(taskRefunds.kind, kind)));
}

describe("refunds across paths add up", () => {
  it("regression: a manual task of 379.67 disputed three times is refunded 379.67 at most, not 479.67", async () => {
    const id = await manualTask(379.67);
    const first = await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 100 });
    expect(first.body.refund_amount_cad).toBe(100);
    expect((await settle({ task_id: id, outcome: "refunded" })).res.status).toBe(200);
    // The API no longer lets this sequence start: a refund settles the dispute (decision 37).
    const again = await openDispute(
      { task_id: id, reason: "incomplete", details: "Only part of it." },
      keyHeaders(owner),
    );
    expect(expectEnvelope(again.body, again.res, 409, "CONFLICT")).toMatchObject({
      dispute_id: first.body.dispute_id,
      resolution: "partial_refund",
    });
    const second = await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 50 });
    expect(second.body.refund_amount_cad).toBe(50);
    const third = await disputeAndResolve(id, { resolution: "full_refund" });
    expect(third.res.status).toBe(200);
    // What is left: 379.67 − 100 settled − 50 owed.
    expect(third.body.refund_amount_cad).toBe(229.67);

    // The second settlement (of both refunds owed) succeeds and e-mails the requester again.
    const settled = await settle({ task_id: id, outcome: "refunded" });
    expect(settled.res.status).toBe(200);
    expect(settled.body.refund).toMatchObject({ status: "refunded", amount_cad: 379.67 });
    const settlements = await entries(id, "settlement");
    expect(settlements.map((s) => s.amountCad).sort((a, b) => a! - b!)).toEqual([100, 279.67]);
    expect(await refundSettledEmails(id)).toHaveLength(2);

    // Nothing is left.
    const more = await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 0.01 });
    expect(expectEnvelope(more.body, more.res, 422, "VALIDATION_ERROR").max_amount_cad).toBe(0);
  });

  it("a resolution above what is left → 422 naming the cumulative max_amount_cad; a settlement too", async () => {
    const id = await manualTask(379.67);
    await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 100 });
    await settle({ task_id: id, outcome: "refunded" });
    await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 50 });
    const over = await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 229.68 });
    const error = expectEnvelope(over.body, over.res, 422, "VALIDATION_ERROR");
    expect(error).toMatchObject({ field: "amount_cad", max_amount_cad: 229.67 });
    expect(error.message).toContain("229.67");
    // Settling the 50 owed: at most what was paid less the 100 already given back.
    const tooMuch = await settle({ task_id: id, outcome: "refunded", amount_cad: 279.68 });
    const settleError = expectEnvelope(tooMuch.body, tooMuch.res, 422, "VALIDATION_ERROR");
    expect(settleError).toMatchObject({ field: "amount_cad", max_amount_cad: 279.67 });
    expect(await entries(id, "settlement")).toHaveLength(1);
  });

  it("a USDC task's second and third settlements succeed, each with its credit note and e-mail; a retry is the same settlement", async () => {
    const id = await completedTask(admin, owner, 200);
    const keys: string[] = [];
    for (const [amount, byte] of [
      [30, "a1"],
      [20, "a2"],
      [10, "a3"],
    ] as const) {
      const resolved = await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: amount });
      expect(resolved.res.status).toBe(200);
      const headers = { "idempotency-key": `refund-total-${byte}` };
      const body = { task_id: id, outcome: "refunded", tx_hash: TX(byte) };
      const settled = await settle(body, headers);
      expect(settled.res.status).toBe(200);
      expect(settled.body.refund).toMatchObject({ status: "refunded", tx_hash: TX(byte) });
      // Retried with the same Idempotency-Key: the same answer, no second settlement.
      const retried = await settle(body, headers);
      expect(retried.res.status).toBe(200);
      expect(retried.body).toEqual(settled.body);
      keys.push(byte);
    }
    expect(keys).toHaveLength(3);
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
    expect(task).toMatchObject({ refundStatus: "refunded", refundAmountCad: 60 });
    const settlements = await entries(id, "settlement");
    expect(settlements.map((s) => s.amountCad).sort((a, b) => a! - b!)).toEqual([10, 20, 30]);
    const mails = await refundSettledEmails(id);
    expect(mails).toHaveLength(3);
    expect(new Set(mails.map((m) => m.dedupeKey))).toEqual(
      new Set(settlements.map((s) => `refund-settled:${s.id}`)),
    );
    const notes = await (await getDb())
      .select()
      .from(invoices)
      .where(and(eq(invoices.taskId, id), eq(invoices.kind, "refund")));
    expect(notes.map((n) => n.amountCad).sort((a, b) => a - b)).toEqual([10, 20, 30]);
    expect(new Set(notes.map((n) => n.paymentTxHash))).toEqual(new Set(keys.map((b) => TX(b))));
  });

  it("two finance people settling the same refund at once: one settlement, the other 409", async () => {
    const id = await manualTask(120);
    await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 40 });
    const results = await Promise.all([
      settle({ task_id: id, outcome: "refunded", note: "Sent by Interac." }),
      settle({ task_id: id, outcome: "refunded", note: "Sent by cheque." }),
    ]);
    expect(results.map((r) => r.res.status).sort()).toEqual([200, 409]);
    const conflict = results.find((r) => r.res.status === 409)!;
    expect(expectEnvelope(conflict.body, conflict.res, 409, "CONFLICT").current_refund_status).toBe(
      "refunded",
    );
    expect(await entries(id, "settlement")).toHaveLength(1);
    expect(await refundSettledEmails(id)).toHaveLength(1);
    const owed = await entries(id, "owed");
    expect(owed).toHaveLength(1);
    expect(owed[0]!.settlementId).toBe((await entries(id, "settlement"))[0]!.id);
  });

  it("an SLA credit after a dispute refund is capped by what is left, then settled as a second settlement", async () => {
    const id = await completedTask(admin, owner, 200);
    await disputeAndResolve(id, { resolution: "partial_refund", amount_cad: 150 });
    expect((await settle({ task_id: id, outcome: "refunded", tx_hash: TX("b1") })).res.status).toBe(200);
    // 200 h late: the cap (50 % of 200 = 100) is above the 50 left.
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, id));
    const completedAt = task!.completedAt!.getTime();
    await db
      .update(tasks)
      .set({ executionDeadline: new Date(completedAt - 200 * HOUR) })
      .where(eq(tasks.id, id));
    const run = await creditLateTasks(new Date(completedAt + HOUR));
    expect(run).toMatchObject({ credited: 1, credited_cad: 50 });
    const [credit] = await db.select().from(slaCredits).where(eq(slaCredits.taskId, id));
    expect(credit).toMatchObject({ percent: 50, amountCad: 50 });
    const settled = await settle({ task_id: id, outcome: "refunded", tx_hash: TX("b2") });
    expect(settled.res.status).toBe(200);
    expect(settled.body.refund).toMatchObject({ status: "refunded", amount_cad: 200 });
    expect(await refundSettledEmails(id)).toHaveLength(2);
    const notes = await db
      .select()
      .from(invoices)
      .where(and(eq(invoices.taskId, id), eq(invoices.kind, "refund")));
    expect(notes.reduce((sum, n) => sum + n.amountCad, 0)).toBeCloseTo(200, 2);
  });

  it("a late task with nothing left is examined once, so newer late tasks behind it are credited; a denied settlement lets the job look again", async () => {
    const db = await getDb();
    const lateBy = async (id: string, hours: number) => {
      const [task] = await db.select().from(tasks).where(eq(tasks.id, id));
      await db
        .update(tasks)
        .set({ executionDeadline: new Date(task!.completedAt!.getTime() - hours * HOUR) })
        .where(eq(tasks.id, id));
      return task!.completedAt!.getTime();
    };
    // A: fully refunded by its dispute (owed, nothing left), the oldest deadline of the two.
    const a = await completedTask(admin, owner, 100);
    expect((await disputeAndResolve(a, { resolution: "full_refund" })).res.status).toBe(200);
    const b = await completedTask(admin, owner, 100);
    await lateBy(a, 300);
    const now = new Date((await lateBy(b, 50)) + HOUR);
    // One task per run, oldest deadline first: A alone would fill every batch if it were scanned
    // again and again; each candidate is examined once, so B's turn comes.
    let bCredited = false;
    for (let run = 0; run < 20 && !bCredited; run++) {
      await creditLateTasks(now, 1);
      bCredited = (await db.select().from(slaCredits).where(eq(slaCredits.taskId, b))).length === 1;
    }
    expect(bCredited).toBe(true);
    expect(await db.select().from(slaCredits).where(eq(slaCredits.taskId, a))).toEqual([]);
    const [check] = await db.select().from(slaCreditChecks).where(eq(slaCreditChecks.taskId, a));
    expect(check).toMatchObject({ outcome: "nothing_left" });
    expect(await creditLateTasks(now)).toMatchObject({ credited: 0 });

    // Finance denies A's refund: the 100 is no longer owed, and the next run credits A (50 %, capped).
    expect((await settle({ task_id: a, outcome: "denied", note: "Work was done." })).res.status).toBe(200);
    expect(await db.select().from(slaCreditChecks).where(eq(slaCreditChecks.taskId, a))).toEqual([]);
    await creditLateTasks(now);
    const [credit] = await db.select().from(slaCredits).where(eq(slaCredits.taskId, a));
    expect(credit).toMatchObject({ percent: 50, amountCad: 50 });
  });
});

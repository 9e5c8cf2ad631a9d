/**
 * Review SLA missed (lib/tasks/cancel-task.ts; issue 27): a task reviewed after its review
 * deadline may be cancelled by its owner with a full refund even after dispatch, reported as the
 * event `task.sla_missed`; an on-time review keeps the usual after-dispatch rule.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { ledgerEntries, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import {
  cancelTask,
  completeTask,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

useTestDatabase();

useLedgerCheck();

let admin: string;
let owner: string;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create", "task_cancel"], "missed-owner@example.com");
});

/** A dispatched task of `key` at `price`, reviewed late when `late`. */
async function dispatchedTask(key: string, price: number, late: boolean) {
  const { body: created } = await submitTask(validTask, keyHeaders(key));
  const id = created.task_id as string;
  const reviewed = await reviewTask(admin, { task_id: id, action: "approve", price_cad: price });
  if (reviewed.body.status !== "paid") {
    await recordPayment(admin, { task_id: id, tx_hash: `0x${"78".repeat(32)}`, network: "base" });
  }
  await completeTask(admin, { task_id: id, action: "dispatch" });
  if (late) {
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, id));
    await db
      .update(tasks)
      .set({ reviewDeadline: new Date(task!.reviewedAt!.getTime() - 3600_000) })
      .where(eq(tasks.id, id));
  }
  return id;
}

async function slaMissedEvents(id: string) {
  return (await getDb())
    .select()
    .from(taskEvents)
    .where(and(eq(taskEvents.taskId, id), eq(taskEvents.type, "task.sla_missed")));
}

describe("cancellation after a late review", () => {
  it("USDC: the full amount is owed even after dispatch, with task.sla_missed", async () => {
    const id = await dispatchedTask(owner, 180, true);
    const { body } = await cancelTask(id, keyHeaders(owner));
    expect(body).toMatchObject({ status: "cancelled", refund_status: "pending" });
    expect(body.refund.amount_cad).toBe(180);
    const [event] = await slaMissedEvents(id);
    expect(event!.payload).toMatchObject({ sla: "review", refund_status: "pending", refund_amount_cad: 180 });
  });

  it("prepaid: refunded to the account at once even after dispatch", async () => {
    const contact = "missed-prepaid@example.com";
    const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
    const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
    await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 500 });
    const id = await dispatchedTask(key, 120, true);
    const { body } = await cancelTask(id, keyHeaders(key));
    expect(body).toMatchObject({ status: "cancelled", refund_status: "refunded" });
    const rows = await (await getDb())
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.accountId, accountId));
    expect(rows.reduce((sum, r) => sum + r.amountCad, 0)).toBeCloseTo(500, 2);
    expect(await slaMissedEvents(id)).toHaveLength(1);
  });

  it("an on-time review keeps the after-dispatch rule (amount fixed by the operator), no event", async () => {
    const id = await dispatchedTask(owner, 90, false);
    const { body } = await cancelTask(id, keyHeaders(owner));
    expect(body).toMatchObject({ status: "cancelled", refund_status: "pending" });
    expect(body.refund.amount_cad).toBeNull();
    expect(await slaMissedEvents(id)).toHaveLength(0);
  });
});

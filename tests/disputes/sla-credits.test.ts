/**
 * SLA credits (api/cron/sla-credits, lib/tasks/sla-credits.ts; issue 27): SLA_CREDIT_PERCENT of
 * what was paid per full 24 h past the execution deadline, capped at SLA_CREDIT_CAP_PERCENT;
 * prepaid → credit note and ledger refund at once, USDC → a refund owed; exactly once across
 * reruns and concurrent runs.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as cronGet } from "../../api/cron/sla-credits.js";
import { getDb } from "../../lib/db/client.js";
import {
  auditLog,
  invoices,
  ledgerEntries,
  slaCredits,
  taskEvents,
  tasks,
} from "../../lib/db/schema/index.js";
import { TASK_TOOLS } from "../../lib/mcp/task-tools.js";
import { cadToMicroUsdc } from "../../lib/money.js";
import { creditLateTasks } from "../../lib/tasks/sla-credits.js";
import { slaCreditPercent, slaMissedByHours } from "../../lib/tasks/state/recourse.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { call } from "../helpers/request.js";
import {
  completeTask,
  getStatus,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { completedTask } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

let admin: string;
let owner: string;
const HOUR = 3600_000;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create", "task_cancel"], "sla-owner@example.com");
});

/** Moves task `id`'s execution deadline to `hours` before its completion. */
async function makeLate(id: string, hours: number) {
  const db = await getDb();
  const [task] = await db.select().from(tasks).where(eq(tasks.id, id));
  await db
    .update(tasks)
    .set({ executionDeadline: new Date(task!.completedAt!.getTime() - hours * HOUR) })
    .where(eq(tasks.id, id));
}

function runCron() {
  return call(cronGet, "/api/cron/sla-credits", {
    headers: { authorization: `Bearer ${process.env.CRON_SECRET}` },
  });
}

describe("slaCreditPercent", () => {
  it("counts full 24 h periods and caps", () => {
    const deadline = new Date("2026-01-01T00:00:00Z");
    const at = (h: number) => new Date(deadline.getTime() + h * HOUR);
    expect(slaCreditPercent(deadline, at(0), 10, 50)).toEqual({ daysLate: 0, percent: 0 });
    expect(slaCreditPercent(deadline, at(1), 10, 50)).toEqual({ daysLate: 0, percent: 0 });
    expect(slaCreditPercent(deadline, at(23.99), 10, 50)).toEqual({ daysLate: 0, percent: 0 });
    expect(slaCreditPercent(deadline, at(24), 10, 50)).toEqual({ daysLate: 1, percent: 10 });
    expect(slaCreditPercent(deadline, at(50), 10, 50)).toEqual({ daysLate: 2, percent: 20 });
    expect(slaCreditPercent(deadline, at(72), 10, 50)).toEqual({ daysLate: 3, percent: 30 });
    expect(slaCreditPercent(deadline, at(200), 10, 50)).toEqual({ daysLate: 8, percent: 50 });
  });
});

describe("slaMissedByHours", () => {
  it("counts any lateness in tenths of an hour, rounded up; null in time", () => {
    const deadline = new Date("2026-01-01T00:00:00Z");
    const at = (ms: number) => new Date(deadline.getTime() + ms);
    expect(slaMissedByHours(deadline, at(-1))).toBeNull();
    expect(slaMissedByHours(deadline, at(0))).toBeNull();
    expect(slaMissedByHours(deadline, at(60_000))).toBe(0.1);
    expect(slaMissedByHours(deadline, at(23 * HOUR))).toBe(23);
    expect(slaMissedByHours(deadline, at(23 * HOUR + 1))).toBe(23.1);
    expect(slaMissedByHours(deadline, at(50 * HOUR))).toBe(50);
  });
});

/** check_task_status's structuredContent of task `id` for key `key` (the MCP tool, in process). */
async function mcpStatus(id: string, key: string) {
  const result = await TASK_TOOLS.check_task_status!.run(
    { task_id: id, api_key: key },
    { headerCaller: null, headerKeyInvalid: false, ip: "127.0.0.1", requestId: "req_sla_missed" },
  );
  return result.structuredContent as { sla?: Record<string, unknown> };
}

describe("api/cron/sla-credits", () => {
  it("credits a USDC task 50 h late (2 full days, 20 %) as a refund owed, and a prepaid task 200 h late (cap 50 %) to its account; once", async () => {
    const usdc = await completedTask(admin, owner, 200);
    await makeLate(usdc, 50);
    const contact = "sla-prepaid@example.com";
    const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
    const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
    await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 1000 });
    const prepaid = await completedTask(admin, key, 150);
    await makeLate(prepaid, 200);
    const onTime = await completedTask(admin, owner, 100);
    const underADay = await completedTask(admin, owner, 100);
    await makeLate(underADay, 23);

    const { res, body } = await runCron();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ ok: true, details: { credited: 2, credited_cad: 40 + 75 } });

    const db = await getDb();
    const credits = await db.select().from(slaCredits);
    const byTask = new Map(credits.map((c) => [c.taskId, c]));
    const [usdcTask] = await db.select().from(tasks).where(eq(tasks.id, usdc));
    expect(byTask.get(usdc)).toMatchObject({ daysLate: 2, percent: 20, amountCad: 40, invoiceId: null });
    expect(byTask.get(usdc)!.usdcMicro).toBe(cadToMicroUsdc(40, usdcTask!.exchangeRate!));
    expect(usdcTask).toMatchObject({ status: "completed", refundStatus: "pending", refundAmountCad: 40 });
    expect(byTask.get(prepaid)).toMatchObject({ daysLate: 8, percent: 50, amountCad: 75, usdcMicro: null });
    expect(byTask.has(onTime)).toBe(false);
    expect(byTask.has(underADay)).toBe(false);

    const ledger = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
    expect(ledger.filter((r) => r.kind === "refund").map((r) => r.amountCad)).toEqual([75]);
    expect(ledger.reduce((sum, r) => sum + r.amountCad, 0)).toBeCloseTo(925, 2);
    const [note] = await db
      .select()
      .from(invoices)
      .where(eq(invoices.id, byTask.get(prepaid)!.invoiceId!));
    expect(note).toMatchObject({ kind: "refund", amountCad: 75, taskId: prepaid });

    const events = await db
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.taskId, usdc), eq(taskEvents.type, "task.sla_credited")));
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({ days_late: 2, percent: 20, credited_cad: 40, paid_as: "refund_owed" }),
    ]);
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, "sla.credit"));
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ actorKind: "system", actorId: "sla-credits" });

    // The owner sees it in the status.
    const status = await getStatus(usdc, keyHeaders(owner));
    expect(status.body.sla).toMatchObject({
      credit_percent_per_day: 10,
      cap_percent: 50,
      missed_by_hours: 50,
      credited_cad: 40,
    });
    expect(status.body.refund).toMatchObject({ status: "pending", amount_cad: 40 });
    // Missed by less than a full day: no credit, but the status says by how much (HTTP and MCP).
    const missed = await getStatus(underADay, keyHeaders(owner));
    expect(missed.body.sla.missed_by_hours).toBe(23);
    expect(missed.body.sla).not.toHaveProperty("credited_cad");
    expect((await mcpStatus(underADay, owner)).sla).toMatchObject({ missed_by_hours: 23 });
    expect((await mcpStatus(underADay, owner)).sla).not.toHaveProperty("credited_cad");
    // In time: nothing missed.
    expect((await getStatus(onTime, keyHeaders(owner))).body.sla).not.toHaveProperty("missed_by_hours");
    expect((await mcpStatus(onTime, owner)).sla).not.toHaveProperty("missed_by_hours");

    // Rerun: nothing more.
    const again = await runCron();
    expect(again.body.details).toMatchObject({ credited: 0 });
    expect(await db.select().from(slaCredits)).toHaveLength(2);
  }, 120_000); // two paid tasks end to end and three cron runs: over 30 s on a loaded 2-core machine

  it("credits a failed task by the time of its failure", async () => {
    const { body: created } = await submitTask(validTask, keyHeaders(owner));
    const id = created.task_id as string;
    await reviewTask(admin, { task_id: id, action: "approve", price_cad: 300 });
    await recordPayment(admin, { task_id: id, tx_hash: `0x${"56".repeat(32)}`, network: "base" });
    const failed = await completeTask(admin, { task_id: id, action: "fail", reason: "Site closed." });
    expect(failed.body.status).toBe("failed");
    const db = await getDb();
    await db
      .update(tasks)
      .set({ executionDeadline: new Date(Date.now() - 30 * HOUR) })
      .where(eq(tasks.id, id));
    expect(await creditLateTasks()).toMatchObject({ credited: 1 });
    const [credit] = await db.select().from(slaCredits).where(eq(slaCredits.taskId, id));
    expect(credit).toMatchObject({ daysLate: 1, percent: 10, amountCad: 30 });
    // Missed by the time of the failure (30 h before now, rounded up to the tenth).
    const missed = (await getStatus(id, keyHeaders(owner))).body.sla.missed_by_hours as number;
    expect(missed).toBeGreaterThanOrEqual(29.9);
    expect(missed).toBeLessThanOrEqual(30.1);
  });

  it("two concurrent runs credit a late task once", async () => {
    const contact = "sla-race@example.com";
    const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
    const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
    await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: 500 });
    const id = await completedTask(admin, key, 100);
    await makeLate(id, 50);
    const results = await Promise.all([creditLateTasks(), creditLateTasks(), creditLateTasks()]);
    expect(results.reduce((sum, r) => sum + r.credited, 0)).toBe(1);
    const db = await getDb();
    const refunds = await db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.accountId, accountId), eq(ledgerEntries.kind, "refund")));
    expect(refunds.map((r) => r.amountCad)).toEqual([20]);
  });
});

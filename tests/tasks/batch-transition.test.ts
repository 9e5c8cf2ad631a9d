/**
 * Batch transitions (lib/tasks/state/apply-transition.ts `applyTransitionBatch`, used by the
 * payment checker through `recordPayments`) and the set-based writes under them
 * (lib/db/bulk.ts), on every backend available here (PGlite; PostgreSQL and Neon in CI).
 */
import { asc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bulkInsert } from "../../lib/db/bulk.js";
import { type DatabaseHandle, setDatabase } from "../../lib/db/client.js";
import { chainTransfers, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { applyTransitionBatch } from "../../lib/tasks/state/apply-transition.js";
import { type PaymentEntry, recordPayments } from "../../lib/tasks/state/record-payment.js";
import { availableBackends, createTestDatabase } from "../helpers/db.js";

const HOUR = 3_600_000;
let serial = 0;

function openTask(
  status: "accepted_pending_payment" | "counter_offered" | "received" | "paid" = "accepted_pending_payment",
) {
  serial++;
  return {
    id: `TASK-BATCH-${serial}-${Math.random().toString(36).slice(2, 8)}`,
    serviceType: "SVC-01" as const,
    status,
    locationAddress: "Laval",
    taskDescription: "Batch test task",
    requesterContact: "agent@example.com",
    urgency: (serial % 2 ? "urgent" : "standard") as "urgent" | "standard",
    reviewDeadline: new Date(Date.now() + 24 * HOUR),
    executionDeadline: new Date(Date.now() + 72 * HOUR),
    priceCad: 100,
    counterOfferAmount: status === "counter_offered" ? 80 : null,
    paymentUsdcMicro: 70_000_000n + BigInt(serial),
    paymentExpiresAt: new Date(Date.now() + 48 * HOUR),
  };
}

const entry = (taskId: string, tx = `0x${taskId.length.toString(16)}`): PaymentEntry => ({
  taskId,
  payment: { method: "usdc", network: "base", txHash: tx, note: `paid ${taskId}` },
});

describe.each(availableBackends())("batch transitions on %s", (backend) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    setDatabase(handle);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await handle.close();
  });
  beforeEach(() => {
    setDatabase(handle);
  });

  async function insertTasks(rows: ReturnType<typeof openTask>[]) {
    await handle.db.insert(tasks).values(rows);
    return rows;
  }

  async function eventsOf(ids: string[]) {
    return handle.db
      .select()
      .from(taskEvents)
      .where(inArray(taskEvents.taskId, ids))
      .orderBy(asc(taskEvents.seq));
  }

  it("pays every task of the batch with the same columns and event as a single payment", async () => {
    const rows = await insertTasks([openTask(), openTask("counter_offered"), openTask()]);
    const ids = rows.map((r) => r.id);
    const paidAt = new Date("2026-11-23T15:00:00Z");
    const result = await recordPayments(
      ids.map((id, i) => entry(id, `0xabc${i}`)),
      paidAt,
    );
    expect(result.refused).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.applied.map((a) => a.taskId)).toEqual(ids);
    const stored = await handle.db.select().from(tasks).where(inArray(tasks.id, ids)).orderBy(asc(tasks.id));
    for (const task of stored) {
      const i = ids.indexOf(task.id);
      expect(task.status).toBe("paid");
      expect(task.version).toBe(2);
      expect(task.paidAt?.toISOString()).toBe(paidAt.toISOString());
      expect(task.paymentMethod).toBe("usdc");
      expect(task.paymentNetwork).toBe("base");
      expect(task.paymentTxHash).toBe(`0xabc${i}`);
      // A counter-offer paid becomes the price; the others keep theirs.
      expect(task.priceCad).toBe(rows[i]!.status === "counter_offered" ? 80 : 100);
      // Execution SLA restarts from the payment: 24 h urgent, 72 h standard (both in business hours here).
      expect(task.executionDeadline.getTime()).toBeGreaterThan(paidAt.getTime());
    }
    const events = await eventsOf(ids);
    expect(events).toHaveLength(3);
    for (const event of events) {
      const task = stored.find((t) => t.id === event.taskId)!;
      expect(event.type).toBe("task.paid");
      expect(event.taskStatus).toBe("paid");
      expect(event.dispatchedAt).toBeNull();
      expect(event.createdAt).toBeInstanceOf(Date);
      expect(event.payload).toEqual({
        task_id: task.id,
        status: "paid",
        previous_status: rows.find((r) => r.id === task.id)!.status,
        service_type: "SVC-01",
        sandbox: false,
        method: "usdc",
        // The USDC receipt issued in the batch's transaction (docs/taxes.md "USDC receipts").
        receipt_invoice_id: task.receiptInvoiceId,
        network: "base",
        tx_hash: task.paymentTxHash,
        note: `paid ${task.id}`,
        execution_deadline: task.executionDeadline.toISOString(),
      });
      expect(task.receiptInvoiceId).toMatch(/^inv_/);
      expect(result.applied.find((a) => a.taskId === task.id)!.eventId).toBe(event.id);
    }
  });

  it("refuses, without throwing, unknown tasks, tasks not awaiting payment and a second entry for one task", async () => {
    const [open, received, paid] = await insertTasks([openTask(), openTask("received"), openTask("paid")]);
    const result = await recordPayments([
      entry(open!.id),
      entry("TASK-NOPE-0"),
      entry(received!.id),
      entry(paid!.id),
      entry(open!.id, "0xsecond"),
    ]);
    expect(result.applied.map((a) => a.taskId)).toEqual([open!.id]);
    expect(result.refused.map((r) => [r.entry.taskId, r.currentStatus])).toEqual([
      ["TASK-NOPE-0", null],
      [received!.id, "received"],
      [paid!.id, "paid"],
      [open!.id, "paid"],
    ]);
    const [after] = await handle.db.select().from(tasks).where(eq(tasks.id, open!.id));
    expect(after!.paymentTxHash).toBe(entry(open!.id).payment.txHash);
    expect(await eventsOf([open!.id, received!.id, paid!.id])).toHaveLength(1);
  });

  it("lets claim drop entries in the same transaction, and rolls everything back when claim throws", async () => {
    const rows = await insertTasks([openTask(), openTask(), openTask()]);
    const ids = rows.map((r) => r.id);
    const dropped = await recordPayments(
      ids.map((id) => entry(id)),
      new Date(),
      async (ready) => ready.filter((r) => r.entry.taskId !== ids[1]).map((r) => r.entry),
    );
    expect(dropped.applied.map((a) => a.taskId)).toEqual([ids[0], ids[2]]);
    expect(dropped.skipped.map((e) => e.taskId)).toEqual([ids[1]]);
    const [skipped] = await handle.db.select().from(tasks).where(eq(tasks.id, ids[1]!));
    expect(skipped!.status).toBe("accepted_pending_payment");

    const more = await insertTasks([openTask(), openTask()]);
    await expect(
      recordPayments(
        more.map((r) => entry(r.id)),
        new Date(),
        async () => {
          throw new Error("claim failed");
        },
      ),
    ).rejects.toThrow("claim failed");
    const untouched = await handle.db
      .select()
      .from(tasks)
      .where(
        inArray(
          tasks.id,
          more.map((r) => r.id),
        ),
      );
    expect(untouched.map((t) => [t.status, t.version])).toEqual([
      ["accepted_pending_payment", 1],
      ["accepted_pending_payment", 1],
    ]);
    expect(await eventsOf(more.map((r) => r.id))).toHaveLength(0);
  });

  it("never applies one task's change twice when overlapping batches run concurrently", async () => {
    const rows = await insertTasks(Array.from({ length: 40 }, () => openTask()));
    const ids = rows.map((r) => r.id);
    // Three batches over overlapping slices, in different orders (locks are taken in id order).
    const slices = [ids.slice(0, 30), ids.slice(10, 40).reverse(), ids.filter((_, i) => i % 2 === 0)];
    const results = await Promise.all(
      slices.map((s) =>
        applyTransitionBatch(
          s.map((taskId) => ({ taskId })),
          "pay",
          // What a task.paid event must carry (lib/db/schema/event-registry.ts).
          { payload: () => ({ method: "usdc", execution_deadline: new Date().toISOString() }) },
        ),
      ),
    );
    const applied = results.flatMap((r) => r.applied.map((a) => a.taskId));
    expect(applied.sort()).toEqual([...ids].sort());
    const refused = results.flatMap((r) => r.refused);
    expect(refused).toHaveLength(slices.flat().length - ids.length);
    expect(new Set(refused.map((r) => r.currentStatus))).toEqual(new Set(["paid"]));
    const events = await eventsOf(ids);
    expect(events).toHaveLength(ids.length);
    const stored = await handle.db.select().from(tasks).where(inArray(tasks.id, ids));
    expect(stored.every((t) => t.status === "paid" && t.version === 2)).toBe(true);
  });

  it("applies only what the transition table allows for the action", async () => {
    const [received, open] = await insertTasks([openTask("received"), openTask()]);
    const result = await applyTransitionBatch([{ taskId: received!.id }, { taskId: open!.id }], "approve", {
      payload: () => ({ amount_cad: 200 }),
    });
    expect(result.applied.map((a) => [a.taskId, a.from, a.to])).toEqual([
      [received!.id, "received", "accepted_pending_payment"],
    ]);
    expect(result.refused.map((r) => [r.entry.taskId, r.currentStatus])).toEqual([
      [open!.id, "accepted_pending_payment"],
    ]);
    const [event] = await eventsOf([received!.id]);
    expect(event!.type).toBe("task.accepted");
  });

  it("returns at once for an empty batch", async () => {
    expect(await applyTransitionBatch([], "pay")).toEqual({ applied: [], refused: [], skipped: [] });
  });

  describe("bulkInsert", () => {
    const transfer = (i: number, extra: Partial<typeof chainTransfers.$inferInsert> = {}) => ({
      id: `ctr_bulk_${backend}_${i}`,
      network: "base",
      chainId: 8453,
      txHash: `0x${backend}${i.toString(16).padStart(4, "0")}`,
      logIndex: i,
      blockNumber: 2n ** 53n + BigInt(i),
      blockHash: "0xblock",
      blockTime: new Date("2026-11-22T12:00:00.123Z"),
      fromAddress: "0xfrom",
      toAddress: "0xto",
      tokenAddress: "0xtoken",
      amountMicro: 9_007_199_254_740_993n + BigInt(i),
      status: "unmatched" as const,
      taskId: null,
      reason: 'Ünïcödé "quoted" reason\nwith a newline, a tab\tand an emoji 💸',
      ...extra,
    });

    it("writes every value exactly (bigint beyond 2^53, timestamps to the ms, unicode, null) and returns inserted rows", async () => {
      const rows = [transfer(1), transfer(2, { blockTime: null, reason: null })];
      const inserted = await bulkInsert(handle.db, chainTransfers, rows, { returning: ["id", "logIndex"] });
      expect(inserted.map((r) => [r.id, Number(r.log_index)])).toEqual([
        [rows[0]!.id, 1],
        [rows[1]!.id, 2],
      ]);
      const stored = await handle.db
        .select()
        .from(chainTransfers)
        .where(
          inArray(
            chainTransfers.id,
            rows.map((r) => r.id),
          ),
        )
        .orderBy(asc(chainTransfers.logIndex));
      expect(
        stored.map((s) => [s.blockNumber, s.amountMicro, s.blockTime?.toISOString() ?? null, s.reason]),
      ).toEqual(
        rows.map((r) => [r.blockNumber, r.amountMicro, r.blockTime?.toISOString() ?? null, r.reason]),
      );
      expect(stored[0]!.createdAt).toBeInstanceOf(Date);
    });

    it("skips rows that hit a unique key with onConflictDoNothing, and returns only the new ones", async () => {
      const again = [transfer(1, { id: `ctr_bulk_${backend}_dup` }), transfer(3)];
      const inserted = await bulkInsert(handle.db, chainTransfers, again, {
        onConflictDoNothing: true,
        returning: ["txHash"],
      });
      expect(inserted.map((r) => r.tx_hash)).toEqual([again[1]!.txHash]);
      await expect(
        bulkInsert(handle.db, chainTransfers, [transfer(4, { id: `ctr_bulk_${backend}_3` })]),
      ).rejects.toThrow();
    });

    it("refuses rows that set different columns", async () => {
      await expect(
        bulkInsert(handle.db, chainTransfers, [transfer(5), { ...transfer(6), reason: undefined }]),
      ).rejects.toThrow(/same columns/);
    });
  });
});

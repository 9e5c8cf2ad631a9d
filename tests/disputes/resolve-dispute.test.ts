/**
 * Resolving disputes (POST /api/dispute-resolve, lib/tasks/resolve-dispute.ts; GET /api/disputes;
 * issue 27): redo as a linked follow-up task at no charge, refunds through the existing paths
 * (prepaid: credit note and balance back at once; USDC: a refund owed that finance settles),
 * partial refunds bounded by what is left, reject with a reason, exactly once under concurrency.
 * A task is disputed once unless redone (docs/decisions.md 37): a later dispute that checks the cap
 * is written as an open row ({@link disputeRow}), as one opened before that rule could be.
 */
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as refundPost } from "../../api/task-refund.js";
import { getDb } from "../../lib/db/client.js";
import {
  auditLog,
  invoices,
  ledgerEntries,
  taskDisputes,
  taskEvents,
  tasks,
} from "../../lib/db/schema/index.js";
import { prefixedId } from "../../lib/ids.js";
import { cadToMicroUsdc, formatUsdc } from "../../lib/money.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { getStatus, pngProof } from "../helpers/tasks.js";
import { completedTask, listDisputes, openDispute, resolve } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

let admin: string;
let owner: string;
const TX = `0x${"CD".repeat(32)}`;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create", "task_cancel"], "resolve-owner@example.com");
});

/** Opens a dispute of `taskId` as `key`; returns its id. */
async function disputeOf(taskId: string, key = owner, reason = "incomplete") {
  const { res, body } = await openDispute(
    { task_id: taskId, reason, details: "Only half of it.", evidence_files: [pngProof("half.png")] },
    keyHeaders(key),
  );
  expect(res.status).toBe(201);
  return body.dispute.dispute_id as string;
}

/**
 * An open dispute of `taskId` written as a row, past the API's once-per-task rule (a task that
 * already had a dispute refunded or rejected): the resolution must still hold every refund to what
 * is left. Returns its id.
 */
async function disputeRow(taskId: string, reason: "other" | "damaged" = "other") {
  const id = prefixedId("dsp");
  await (await getDb()).insert(taskDisputes).values({ id, taskId, reason, details: "Again." });
  return id;
}

/** A key billing a prepaid account funded with `deposit` CAD; returns the key and account id. */
async function prepaidOwner(contact: string, deposit = 1000) {
  const key = await makeKey(["audit_only", "task_create", "task_cancel", "billing_read"], contact);
  const accountId = (await openLinkedAccount(key)).body.account.account_id as string;
  await accountAdmin(admin, { action: "deposit", email: contact, amount_cad: deposit });
  return { key, accountId };
}

async function ledgerOf(accountId: string) {
  return (await getDb()).select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
}

describe("POST /api/dispute-resolve", () => {
  it("full_refund of a USDC task: a refund owed at the task's rate, settled by finance with its tx hash; once", async () => {
    const id = await completedTask(admin, owner, 200);
    const disputeId = await disputeOf(id);
    const { res, body } = await resolve(admin, { dispute_id: disputeId, resolution: "full_refund" });
    expect(res.status).toBe(200);
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
    const micro = cadToMicroUsdc(200, task!.exchangeRate!);
    expect(body).toMatchObject({
      dispute_id: disputeId,
      status: "resolved",
      resolution: "full_refund",
      refund_amount_cad: 200,
      refund_usdc: formatUsdc(micro),
      task_id: id,
    });
    expect(body.evidence_files).toHaveLength(1);
    expect(task).toMatchObject({ status: "completed", refundStatus: "pending", refundAmountCad: 200 });
    expect(task!.refundUsdcMicro).toBe(micro);

    const status = await getStatus(id, keyHeaders(owner));
    expect(status.body.dispute).toMatchObject({
      status: "resolved",
      resolution: "full_refund",
      refund_amount_cad: 200,
    });
    expect(status.body.refund).toMatchObject({
      status: "pending",
      amount_cad: 200,
      amount_usdc: formatUsdc(micro),
    });

    // Resolved once: another resolution is a conflict.
    const again = await resolve(admin, { dispute_id: disputeId, resolution: "reject", reason: "No." });
    expect(expectEnvelope(again.body, again.res, 409, "CONFLICT").current_resolution).toBe("full_refund");

    // Finance sends it and records it: the credit note of the receipt, no more than was paid.
    const settled = await call(refundPost, "/api/task-refund", {
      method: "POST",
      headers: { "x-api-key": admin },
      json: { task_id: id, outcome: "refunded", tx_hash: TX },
    });
    expect(settled.body).toMatchObject({ status: "completed", refund_status: "refunded" });
    const notes = await (await getDb())
      .select()
      .from(invoices)
      .where(and(eq(invoices.taskId, id), eq(invoices.kind, "refund")));
    expect(notes.map((n) => n.amountCad)).toEqual([200]);

    // A second dispute is refused (decision 37); and were one open, nothing is left to refund.
    const refused = await openDispute({ task_id: id, reason: "other", details: "More." }, keyHeaders(owner));
    expect(expectEnvelope(refused.body, refused.res, 409, "CONFLICT").resolution).toBe("full_refund");
    const second = await disputeRow(id);
    const nothing = await resolve(admin, { dispute_id: second, resolution: "partial_refund", amount_cad: 1 });
    expect(expectEnvelope(nothing.body, nothing.res, 422, "VALIDATION_ERROR").max_amount_cad).toBe(0);
    const events = await (await getDb())
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.taskId, id), eq(taskEvents.type, "task.dispute_resolved")));
    expect(events).toHaveLength(1);
    // Closed, so that the queue's first open dispute below is one opened through the API.
    await resolve(admin, { dispute_id: second, resolution: "reject", reason: "Nothing is left." });
  });

  it("partial refunds of a prepaid task: credit note and balance back at once, bounded by what is left", async () => {
    const { key, accountId } = await prepaidOwner("resolve-prepaid@example.com");
    const id = await completedTask(admin, key, 150);
    const first = await disputeOf(id, key);
    const { body } = await resolve(admin, {
      dispute_id: first,
      resolution: "partial_refund",
      amount_cad: 60,
    });
    expect(body).toMatchObject({ resolution: "partial_refund", refund_amount_cad: 60, refund_usdc: null });
    let rows = await ledgerOf(accountId);
    expect(rows.filter((r) => r.kind === "refund").map((r) => r.amountCad)).toEqual([60]);
    expect(rows.reduce((sum, r) => sum + r.amountCad, 0)).toBeCloseTo(910, 2);
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
    expect(task!.refundStatus).toBe("none"); // credited, nothing owed

    const second = await disputeRow(id, "damaged");
    const over = await resolve(admin, { dispute_id: second, resolution: "partial_refund", amount_cad: 100 });
    const error = expectEnvelope(over.body, over.res, 422, "VALIDATION_ERROR");
    expect(error).toMatchObject({ field: "amount_cad", max_amount_cad: 90 });
    expect(error.message).toContain("90");
    const full = await resolve(admin, { dispute_id: second, resolution: "full_refund" });
    expect(full.body.refund_amount_cad).toBe(90);
    rows = await ledgerOf(accountId);
    expect(rows.reduce((sum, r) => sum + r.amountCad, 0)).toBeCloseTo(1000, 2);
    const notes = await (await getDb())
      .select()
      .from(invoices)
      .where(and(eq(invoices.taskId, id), eq(invoices.kind, "refund")));
    expect(notes.reduce((sum, n) => sum + n.amountCad, 0)).toBeCloseTo(150, 2);
    const audit = await (await getDb())
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, id), eq(auditLog.action, "ledger.refund")));
    expect(audit).toHaveLength(2);
  });

  it("redo creates a linked follow-up task at no charge, read by the same owner", async () => {
    const id = await completedTask(admin, owner, 120);
    const disputeId = await disputeOf(id, owner, "not_done");
    const { body } = await resolve(admin, { dispute_id: disputeId, resolution: "redo" });
    const followUp = body.follow_up_task_id as string;
    expect(followUp).toBeTruthy();
    const view = await getStatus(followUp, keyHeaders(owner));
    expect(view.body).toMatchObject({ status: "paid", redo_of_task_id: id, refund_status: "none" });
    expect(view.body.payment).toMatchObject({ method: "manual", amount_cad: 0 });
    expect(view.body.history.map((h: { status: string }) => h.status)).toEqual(["received", "paid"]);
    const original = await getStatus(id, keyHeaders(owner));
    expect(original.body.dispute).toMatchObject({ resolution: "redo", follow_up_task_id: followUp });
  });

  it("reject needs a reason; bad input names its field; unknown dispute → 404", async () => {
    const id = await completedTask(admin, owner, 100);
    const disputeId = await disputeOf(id);
    const bare = await resolve(admin, { dispute_id: disputeId, resolution: "reject" });
    expect(expectEnvelope(bare.body, bare.res, 422, "VALIDATION_ERROR").field).toBe("reason");
    const noAmount = await resolve(admin, { dispute_id: disputeId, resolution: "partial_refund" });
    expect(expectEnvelope(noAmount.body, noAmount.res, 422, "VALIDATION_ERROR").field).toBe("amount_cad");
    const kind = await resolve(admin, { dispute_id: disputeId, resolution: "shrug" });
    expect(expectEnvelope(kind.body, kind.res, 422, "VALIDATION_ERROR").field).toBe("resolution");
    const unknown = await resolve(admin, { dispute_id: "dsp_nope", resolution: "redo" });
    expect(expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND").field).toBe("dispute_id");
    const forbidden = await resolve(owner, { dispute_id: disputeId, resolution: "redo" });
    expectEnvelope(forbidden.body, forbidden.res, 403, "FORBIDDEN");
    const { body } = await resolve(admin, {
      dispute_id: disputeId,
      resolution: "reject",
      reason: "The photos match the address given.",
    });
    expect(body).toMatchObject({
      resolution: "reject",
      resolution_reason: "The photos match the address given.",
    });
  });

  it("10 concurrent resolutions of one dispute: one resolution, one refund", async () => {
    const { key, accountId } = await prepaidOwner("resolve-race@example.com", 500);
    const id = await completedTask(admin, key, 100);
    const disputeId = await disputeOf(id, key);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        resolve(
          admin,
          i % 2
            ? { dispute_id: disputeId, resolution: "full_refund" }
            : { dispute_id: disputeId, resolution: "partial_refund", amount_cad: 40 },
        ),
      ),
    );
    const statuses = results.map((r) => r.res.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const rows = await ledgerOf(accountId);
    expect(rows.filter((r) => r.kind === "refund")).toHaveLength(1);
    const winner = results.find((r) => r.res.status === 200)!.body;
    expect(rows.reduce((sum, r) => sum + r.amountCad, 0)).toBeCloseTo(400 + winner.refund_amount_cad, 2);
    // Retried with the same Idempotency-Key: the same answer, no second effect.
    const third = await disputeRow(id);
    const headers = { "idempotency-key": "resolve-retry-1" };
    const a = await resolve(admin, { dispute_id: third, resolution: "reject", reason: "Seen." }, headers);
    const b = await resolve(admin, { dispute_id: third, resolution: "reject", reason: "Seen." }, headers);
    expect([a.res.status, b.res.status]).toEqual([200, 200]);
    expect(b.body).toEqual(a.body);
  });
});

describe("GET /api/disputes", () => {
  it("lists open disputes first, oldest first, with evidence metadata; filters by status", async () => {
    const { body } = await listDisputes(admin);
    const disputes = body.disputes as { status: string; opened_at: string; evidence_files: unknown[] }[];
    expect(disputes.length).toBeGreaterThan(0);
    const firstResolved = disputes.findIndex((d) => d.status === "resolved");
    const open = disputes.filter((d) => d.status === "open");
    expect(disputes.slice(0, open.length).every((d) => d.status === "open")).toBe(true);
    expect(firstResolved === -1 || firstResolved === open.length).toBe(true);
    const times = open.map((d) => Date.parse(d.opened_at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(disputes[0]).toMatchObject({ task_id: expect.any(String), details: expect.any(String) });
    expect(disputes[0]!.evidence_files[0]).toMatchObject({ filename: "half.png", type: "image/png" });
    expect(disputes[0]!.evidence_files[0]).not.toHaveProperty("content");

    // One dispute by id: its evidence with the content, whose SHA-256 is the one listed.
    const id = (disputes[0] as unknown as { dispute_id: string }).dispute_id;
    const one = await listDisputes(admin, `?dispute_id=${id}`);
    expect(one.res.status).toBe(200);
    const file = one.body.disputes[0].evidence_files[0];
    expect(createHash("sha256").update(Buffer.from(file.content, "base64")).digest("hex")).toBe(file.sha256);
    const unknown = await listDisputes(admin, "?dispute_id=dsp_nope");
    expect(expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND").field).toBe("dispute_id");
    const strangerOne = await listDisputes(owner, `?dispute_id=${id}`);
    expectEnvelope(strangerOne.body, strangerOne.res, 403, "FORBIDDEN");

    const resolved = await listDisputes(admin, "?status=resolved");
    expect(resolved.body.disputes.every((d: { status: string }) => d.status === "resolved")).toBe(true);
    const bad = await listDisputes(admin, "?status=closed");
    expect(expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR").field).toBe("status");
    const forbidden = await listDisputes(owner);
    expectEnvelope(forbidden.body, forbidden.res, 403, "FORBIDDEN");
  });
});

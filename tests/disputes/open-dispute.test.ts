/**
 * Opening a dispute (POST /api/task-dispute, lib/tasks/open-dispute.ts; issue 27): by the task's
 * owner within the window, one open at a time, once per task unless redone (docs/decisions.md 37),
 * evidence files checked as proof files, the event and the operator's e-mail committed with it, the
 * status view's `dispute` and `sla`.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { auditLog, disputeFiles, emails, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { expectEnvelope } from "../helpers/request.js";
import { getStatus, pngProof, submitTask, validTask } from "../helpers/tasks.js";
import { completedTask, openDispute, resolve } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

let admin: string;
let owner: string;
let stranger: string;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create", "task_cancel"], "dispute-owner@example.com");
  stranger = await makeKey(["audit_only", "task_create"], "stranger@example.com");
});

describe("POST /api/task-dispute", () => {
  it("opens a dispute with evidence: 201, the status view's dispute, event, audit row and operator e-mail", async () => {
    const id = await completedTask(admin, owner);
    const { res, body } = await openDispute(
      {
        task_id: id,
        reason: "wrong_location",
        details: "The photos show the building next door.",
        evidence_files: [pngProof("street.png")],
      },
      keyHeaders(owner),
    );
    expect(res.status).toBe(201);
    expect(body.status).toBe("completed");
    expect(body.dispute).toMatchObject({ status: "open", reason: "wrong_location" });
    expect(body.dispute.dispute_id).toMatch(/^dsp_/);
    expect(Date.parse(body.dispute.opened_at)).not.toBeNaN();
    expect(body.sla).toMatchObject({ credit_percent_per_day: 10, cap_percent: 50 });
    expect(body.sla.execution_deadline).toBe(body.execution_deadline);
    // The status history lists the transitions only.
    expect(body.history.every((h: { status: string | null }) => h.status !== null)).toBe(true);

    const db = await getDb();
    const disputeId = body.dispute.dispute_id as string;
    const files = await db.select().from(disputeFiles).where(eq(disputeFiles.disputeId, disputeId));
    expect(files.map((f) => [f.filename, f.mimeType])).toEqual([["street.png", "image/png"]]);
    const events = await db
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.taskId, id), eq(taskEvents.type, "task.disputed")));
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      dispute_id: disputeId,
      reason: "wrong_location",
      evidence_file_count: 1,
    });
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, id), eq(auditLog.action, "dispute.open")));
    expect(audit).toHaveLength(1);
    const mail = await db
      .select()
      .from(emails)
      .where(eq(emails.dedupeKey, `dispute-operator:${disputeId}:open`));
    expect(mail[0]).toMatchObject({ toAddress: "operator@example.com" });

    // The owner reads it in the status too.
    const status = await getStatus(id, keyHeaders(owner));
    expect(status.body.dispute).toMatchObject({ dispute_id: disputeId, status: "open" });

    // One open dispute per task.
    const again = await openDispute({ task_id: id, reason: "other", details: "Again." }, keyHeaders(owner));
    expect(expectEnvelope(again.body, again.res, 409, "CONFLICT").dispute_id).toBe(disputeId);
  });

  it("answers 404 to a stranger, as for an unknown task", async () => {
    const id = await completedTask(admin, owner);
    const { res, body } = await openDispute(
      { task_id: id, reason: "not_done", details: "Nothing was done." },
      keyHeaders(stranger),
    );
    expect(expectEnvelope(body, res, 404, "NOT_FOUND").field).toBe("task_id");
    const anonymous = await openDispute({ task_id: id, reason: "not_done", details: "x" });
    expectEnvelope(anonymous.body, anonymous.res, 404, "NOT_FOUND");
    const unknown = await openDispute(
      { task_id: "TASK-NOPE", reason: "not_done", details: "x" },
      keyHeaders(owner),
    );
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
  });

  it("refuses a dispute after the window with 422 naming its end, and of a task not completed with 409", async () => {
    const id = await completedTask(admin, owner);
    const db = await getDb();
    const completedAt = new Date(Date.now() - 73 * 3600_000);
    await db.update(tasks).set({ completedAt }).where(eq(tasks.id, id));
    const late = await openDispute({ task_id: id, reason: "late", details: "Too late." }, keyHeaders(owner));
    const error = expectEnvelope(late.body, late.res, 422, "VALIDATION_ERROR");
    expect(error.dispute_window_ends_at).toBe(new Date(completedAt.getTime() + 72 * 3600_000).toISOString());
    expect(error.message).toContain(error.dispute_window_ends_at);

    const { body: created } = await submitTask(validTask, keyHeaders(owner));
    const open = await openDispute(
      { task_id: created.task_id, reason: "not_done", details: "Not done yet." },
      keyHeaders(owner),
    );
    expect(expectEnvelope(open.body, open.res, 409, "CONFLICT").current_status).toBe("received");
  });

  it("a task is disputed once: after a refund or a rejection, 409 naming the earlier dispute and its resolution", async () => {
    for (const resolution of [
      { resolution: "reject", reason: "The photos show the right building." },
      { resolution: "partial_refund", amount_cad: 20 },
      { resolution: "full_refund" },
    ]) {
      const id = await completedTask(admin, owner);
      const first = await openDispute(
        { task_id: id, reason: "incomplete", details: "Half done." },
        keyHeaders(owner),
      );
      expect(first.res.status).toBe(201);
      const disputeId = first.body.dispute.dispute_id as string;
      expect((await resolve(admin, { dispute_id: disputeId, ...resolution })).res.status).toBe(200);
      const again = await openDispute(
        { task_id: id, reason: "not_done", details: "Still wrong." },
        keyHeaders(owner),
      );
      const error = expectEnvelope(again.body, again.res, 409, "CONFLICT");
      expect(error).toMatchObject({ dispute_id: disputeId, resolution: resolution.resolution });
      // The resolution in words, and what would have allowed another dispute.
      expect(error.message).toContain(`already disputed (${disputeId}, resolved: `);
      expect(error.message).not.toContain(resolution.resolution === "reject" ? "reject)" : "_refund");
      expect(error.message).toContain("again only after a dispute resolved by redoing the task");
      // Nothing was written: one dispute, one task.disputed event.
      const db = await getDb();
      const events = await db
        .select()
        .from(taskEvents)
        .where(and(eq(taskEvents.taskId, id), eq(taskEvents.type, "task.disputed")));
      expect(events).toHaveLength(1);
    }
  });

  it("after a redo the task may be disputed again (in its window), and that second one is final unless redone", async () => {
    const id = await completedTask(admin, owner);
    const first = await openDispute(
      { task_id: id, reason: "not_done", details: "Nobody came." },
      keyHeaders(owner),
    );
    const redo = await resolve(admin, { dispute_id: first.body.dispute.dispute_id, resolution: "redo" });
    expect(redo.body.follow_up_task_id).toBeTruthy();
    const second = await openDispute(
      { task_id: id, reason: "late", details: "The redo came too late to help." },
      keyHeaders(owner),
    );
    expect(second.res.status).toBe(201);
    expect(second.body.dispute).toMatchObject({ status: "open", reason: "late" });
    const secondId = second.body.dispute.dispute_id as string;
    expect(secondId).not.toBe(first.body.dispute.dispute_id);
    await resolve(admin, { dispute_id: secondId, resolution: "reject", reason: "The redo was on time." });
    const third = await openDispute({ task_id: id, reason: "other", details: "Again." }, keyHeaders(owner));
    expect(expectEnvelope(third.body, third.res, 409, "CONFLICT")).toMatchObject({
      dispute_id: secondId,
      resolution: "reject",
    });
  });

  it("lets a keyless owner dispute with its access token", async () => {
    const { body: created } = await submitTask(validTask);
    expect(created.access_token).toBeDefined();
    // Sandbox: the keyless task is simulated; complete it directly for the test.
    const db = await getDb();
    await db
      .update(tasks)
      .set({ status: "completed", completedAt: new Date() })
      .where(eq(tasks.id, created.task_id));
    const { res, body } = await openDispute(
      { task_id: created.task_id, reason: "incomplete", details: "Half the photos." },
      { "x-task-access-token": created.access_token },
    );
    expect(res.status).toBe(201);
    expect(body.dispute).toMatchObject({ status: "open", reason: "incomplete" });
  });

  it("names the field of bad input: unknown reason, details too long, bad evidence files", async () => {
    const id = await completedTask(admin, owner);
    const reason = await openDispute({ task_id: id, reason: "bored", details: "x" }, keyHeaders(owner));
    expect(expectEnvelope(reason.body, reason.res, 422, "VALIDATION_ERROR").field).toBe("reason");
    const long = await openDispute(
      { task_id: id, reason: "other", details: "x".repeat(2001) },
      keyHeaders(owner),
    );
    expect(long.res.status).toBe(422);
    expect(long.body.error.field).toBe("details");
    const base64 = await openDispute(
      {
        task_id: id,
        reason: "damaged",
        details: "Broken.",
        evidence_files: [{ filename: "a.png", type: "image/png", content: "not base64!" }],
      },
      keyHeaders(owner),
    );
    expect(expectEnvelope(base64.body, base64.res, 400, "INVALID_FORMAT").field).toBe(
      "evidence_files.0.content",
    );
    const lie = await openDispute(
      {
        task_id: id,
        reason: "damaged",
        details: "Broken.",
        evidence_files: [{ ...pngProof(), type: "application/pdf" }],
      },
      keyHeaders(owner),
    );
    expect(expectEnvelope(lie.body, lie.res, 422, "VALIDATION_ERROR").field).toBe("evidence_files.0.content");
  });
});

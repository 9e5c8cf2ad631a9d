import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as expireCron } from "../../api/cron/expire-payments.js";
import { GET as taskList } from "../../api/task-list.js";
import { getDb } from "../../lib/db/client.js";
import { emails, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import {
  cancelTask,
  completeTask,
  getStatus,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

useTestDatabase();

let admin: string;
let agent: string;
beforeAll(async () => {
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"], "owner@example.com");
});

async function countRows() {
  const db = await getDb();
  return {
    tasks: (await db.select({ id: tasks.id }).from(tasks)).length,
    events: (await db.select({ id: taskEvents.id }).from(taskEvents)).length,
  };
}

async function eventsOf(taskId: string) {
  const db = await getDb();
  return (await db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId))).map((e) => e.type);
}

describe("submission", () => {
  it("creates a received task with deadlines, an estimate and its task.created event", async () => {
    const { res, body } = await submitTask(validTask, keyHeaders(agent));
    expect(res.status).toBe(201);
    expect(body.task_id).toMatch(/^TASK-[0-9A-Z]+-[0-9A-Z]+$/);
    expect(body).toMatchObject({ status: "received", sandbox: false });
    expect(body.access_token).toBeUndefined();
    expect(Date.parse(body.review_deadline)).toBeGreaterThan(Date.parse(body.created_at));
    expect(Date.parse(body.execution_deadline)).toBeGreaterThan(Date.parse(body.review_deadline));
    // SVC-01 midpoint 1.5 h, Montreal 35 km: 50 + 150 + 63 + 116.67
    expect(body.estimate_cad).toBe(379.67);
    expect(body._links.self).toContain(body.task_id);
    expect(await eventsOf(body.task_id)).toEqual(["task.created"]);

    const status = await getStatus(body.task_id, keyHeaders(agent));
    expect(status.res.status).toBe(200);
    expect(status.res.headers.get("retry-after")).toBe("300");
    expect(status.body).toMatchObject({
      task_id: body.task_id,
      status: "received",
      requester_contact: "agent@example.com",
      urgency: "standard",
      lang: "fr",
      refund_status: "none",
      _polling: { next_poll_seconds: 300, is_terminal: false },
    });
    expect(status.body.payment).toBeUndefined();
    expect(status.body.history).toEqual([
      { status: "received", event: "task.created", at: expect.any(String) },
    ]);
    expect(status.body.location).toMatchObject({ matched: "Montreal", in_service_zone: true });
  });

  it("gives anonymous submitters an access token and hides the contact from other readers", async () => {
    const { body } = await submitTask();
    expect(body.access_token).toMatch(/^tok_[A-Za-z0-9]{40}$/);
    const anonymousView = await getStatus(body.task_id);
    expect(anonymousView.body.requester_contact).toBeUndefined();
    const adminView = await getStatus(body.task_id, keyHeaders(admin));
    expect(adminView.body.requester_contact).toBe("agent@example.com");
    const ownerView = await getStatus(body.task_id, { "x-task-access-token": body.access_token });
    expect(ownerView.body.requester_contact).toBe("agent@example.com");
    // The operator's queue marks it as submitted without a key (issue 25 item 8).
    const listed = await call(taskList, `/api/task-list?q=${body.task_id}`, { headers: keyHeaders(admin) });
    expect(listed.body.tasks).toEqual([expect.objectContaining({ task_id: body.task_id, anonymous: true })]);
  });

  it("keeps tabs and line breaks in free text", async () => {
    const text = "Photograph the storefront.\n\tThen the posted hours.\r\nThanks.";
    const { res, body } = await submitTask({ ...validTask, task_description: text }, keyHeaders(agent));
    expect(res.status).toBe(201);
    expect((await getStatus(body.task_id, keyHeaders(agent))).body.task_description).toBe(text);
  });

  it("rejects at once when the estimate exceeds max_cost_cad", async () => {
    const { res, body } = await submitTask({ ...validTask, max_cost_cad: 100 });
    expect(res.status).toBe(201);
    expect(body.status).toBe("rejected");
    expect(body.message).toMatch(/exceeds max_cost_cad 100.00 CAD/);
    expect(await eventsOf(body.task_id)).toEqual(["task.created", "task.rejected"]);
    const status = await getStatus(body.task_id);
    expect(status.body._polling.is_terminal).toBe(true);
    expect(status.res.headers.get("retry-after")).toBeNull();
  });

  it.each([
    [{ ...validTask, task_description: "x".repeat(2001) }, 422, "FIELD_TOO_LONG", "task_description"],
    [{ ...validTask, special_instructions: "y".repeat(501) }, 422, "FIELD_TOO_LONG", "special_instructions"],
    [{ ...validTask, location_address: "z".repeat(301) }, 422, "FIELD_TOO_LONG", "location_address"],
    [{ ...validTask, service_type: "SVC-09" }, 422, "VALIDATION_ERROR", "service_type"],
    [{ ...validTask, urgency: "asap" }, 422, "VALIDATION_ERROR", "urgency"],
    [{ ...validTask, requester_contact: "nobody" }, 422, "VALIDATION_ERROR", "requester_contact"],
    [{ ...validTask, budget_limit: -1 }, 422, "VALIDATION_ERROR", "budget_limit"],
    [{ ...validTask, budget_limit: "100" }, 400, "INVALID_FORMAT", "budget_limit"],
    [{ ...validTask, budjet_limit: 100 }, 422, "VALIDATION_ERROR", "budjet_limit"],
    [{ ...validTask, task_description: undefined }, 400, "MISSING_FIELD", "task_description"],
    // Hidden controls (issue 25 item 9): a bidi override, an isolate, an ANSI escape, a backspace.
    [
      { ...validTask, task_description: "Photo of \u202Egnp.exe" },
      422,
      "VALIDATION_ERROR",
      "task_description",
    ],
    [
      { ...validTask, special_instructions: "Gate \u2066code\u2069" },
      422,
      "VALIDATION_ERROR",
      "special_instructions",
    ],
    [{ ...validTask, preferred_output: "\u001b[2Jcleared" }, 422, "VALIDATION_ERROR", "preferred_output"],
    [{ ...validTask, location_address: "Montreal\u0008" }, 422, "VALIDATION_ERROR", "location_address"],
    [
      { ...validTask, location_address: "12 King St, Sherbrooke, QC" },
      422,
      "OUT_OF_SERVICE_ZONE",
      "location_address",
    ],
    [
      { ...validTask, location_address: "42 Nowhere Lane, Atlantis" },
      422,
      "LOCATION_NOT_FOUND",
      "location_address",
    ],
    [{ ...validTask, callback_url: "http://example.com/hook" }, 422, "VALIDATION_ERROR", "callback_url"],
    [{ ...validTask, callback_url: "https://127.0.0.1/hook" }, 422, "VALIDATION_ERROR", "callback_url"],
    [
      { ...validTask, callback_url: "https://[::ffff:10.0.0.1]/hook" },
      422,
      "VALIDATION_ERROR",
      "callback_url",
    ],
  ])("refuses bad input %# with %i %s and writes nothing", async (body, status, code, field) => {
    const before = await countRows();
    const { res, body: out } = await submitTask(body as Record<string, unknown>);
    expect(expectEnvelope(out, res, status, code).field).toBe(field);
    expect(await countRows()).toEqual(before);
  });

  it("counts characters, not bytes: 2000 emoji are a valid description", async () => {
    const { res } = await submitTask({ ...validTask, task_description: "📸".repeat(2000) });
    expect(res.status).toBe(201);
  });

  it("refuses X-Service-Mode values other than sandbox", async () => {
    const { res, body } = await submitTask(validTask, { "x-service-mode": "production" });
    expect(expectEnvelope(body, res, 422, "VALIDATION_ERROR").field).toBe("X-Service-Mode");
  });

  it("answers 400 MISSING_FIELD for a status read without task_id and 404 for an unknown task", async () => {
    const missing = await getStatus("");
    expectEnvelope(missing.body, missing.res, 400, "MISSING_FIELD");
    const unknown = await getStatus("TASK-NOPE-NOPE");
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
  });
});

describe("review, payment and execution", () => {
  it("runs the main path to completion with a proof photo", async () => {
    const { body: created } = await submitTask(validTask, keyHeaders(agent));
    const id = created.task_id;
    const approved = await reviewTask(admin, { task_id: id, action: "approve" });
    expect(approved.res.status).toBe(200);
    expect(approved.body.status).toBe("accepted_pending_payment");
    expect(approved.body.payment.amount_cad).toBe(379.67);
    expect(approved.body.payment.payment_usdc).toMatch(/^\d+\.\d{6}$/);
    expect(approved.body.payment_usdc).toBe(approved.body.payment.payment_usdc);
    const window = Date.parse(approved.body.payment.expires_at) - Date.now();
    expect(window).toBeGreaterThan(47.9 * 3600_000);
    expect(window).toBeLessThanOrEqual(48 * 3600_000);

    const paid = await recordPayment(admin, { task_id: id, note: "e-transfer" });
    expect(paid.body.status).toBe("paid");
    expect(paid.body.payment.method).toBe("manual");
    const dispatched = await completeTask(admin, { task_id: id, action: "dispatch" });
    expect(dispatched.body.status).toBe("dispatched");
    const onSite = await completeTask(admin, { task_id: id, action: "on_site" });
    expect(onSite.body.status).toBe("on_site");
    const proof = pngProof();
    const done = await completeTask(admin, {
      task_id: id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "Storefront photographed; hours posted 9-17.",
      proof_files: [proof],
    });
    expect(done.body.status).toBe("completed");

    const final = await getStatus(id, keyHeaders(agent));
    expect(final.body.proof_files_data).toEqual([proof]);
    expect(final.body.operator_notes).toBe("Storefront photographed; hours posted 9-17.");
    expect(final.body._polling).toMatchObject({ is_terminal: true, next_poll_seconds: 0 });
    expect(final.res.headers.get("retry-after")).toBeNull();
    expect(final.body.history.map((h: any) => h.status)).toEqual([
      "received",
      "accepted_pending_payment",
      "paid",
      "dispatched",
      "on_site",
      "completed",
    ]);
  });

  it("answers 409 CONFLICT naming the current status for a transition the table forbids", async () => {
    const { body: created } = await submitTask();
    const early = await completeTask(admin, {
      task_id: created.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
    });
    const error = expectEnvelope(early.body, early.res, 409, "CONFLICT");
    expect(error.current_status).toBe("received");
    expect(error.message).toMatch(/status is received/);
    await reviewTask(admin, { task_id: created.task_id, action: "reject", reason: "Outside our scope" });
    const again = await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    expect(expectEnvelope(again.body, again.res, 409, "CONFLICT").current_status).toBe("rejected");
    const rejected = await getStatus(created.task_id, { "x-task-access-token": created.access_token });
    expect(rejected.body).toMatchObject({ status: "rejected", review_reason: "Outside our scope" });
  });

  it("lets exactly one of five concurrent approvals win", async () => {
    const { body: created } = await submitTask();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => reviewTask(admin, { task_id: created.task_id, action: "approve" })),
    );
    expect(results.filter((r) => r.res.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.res.status === 409)).toHaveLength(4);
    expect((await eventsOf(created.task_id)).filter((e) => e === "task.accepted")).toHaveLength(1);
  });

  it("counter-offers, and payment of the counter-offer accepts it", async () => {
    const { body: created } = await submitTask();
    const missing = await reviewTask(admin, { task_id: created.task_id, action: "counter_offer" });
    expect(expectEnvelope(missing.body, missing.res, 400, "MISSING_FIELD").field).toBe(
      "counter_offer_amount",
    );
    const offer = await reviewTask(admin, {
      task_id: created.task_id,
      action: "counter_offer",
      counter_offer_amount: 450.5,
      reason: "Two sites, not one",
    });
    expect(offer.body).toMatchObject({
      status: "counter_offered",
      counter_offer_amount: 450.5,
      review_reason: "Two sites, not one",
    });
    expect(offer.body.payment_usdc).toMatch(/^\d+\.\d{6}$/);
    const paid = await recordPayment(admin, { task_id: created.task_id });
    expect(paid.body.status).toBe("paid");
    expect(paid.body.payment.amount_cad).toBe(450.5);
  });

  it("turns an approval over budget_limit into a counter-offer", async () => {
    const { body: created } = await submitTask({ ...validTask, budget_limit: 300 });
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, created.task_id));
    expect(row!.needsCounterOffer).toBe(true);
    const approved = await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    expect(approved.body.status).toBe("counter_offered");
    expect(approved.body.counter_offer_amount).toBe(379.67);
    expect(approved.body.review_reason).toMatch(/exceeds your budget_limit of 300.00 CAD/);
  });

  it("gives two open tasks at the same price different USDC amounts", async () => {
    const a = (await submitTask()).body.task_id;
    const b = (await submitTask()).body.task_id;
    const pa = (await reviewTask(admin, { task_id: a, action: "approve", price_cad: 222.22 })).body
      .payment_usdc;
    const pb = (await reviewTask(admin, { task_id: b, action: "approve", price_cad: 222.22 })).body
      .payment_usdc;
    expect(pa).not.toBe(pb);
    expect(Math.round(Math.abs(Number(pa) - Number(pb)) * 1e6)).toBe(1);
  });

  it("refuses a proof file whose content lies about its type and leaves the task as it was", async () => {
    const { body: created } = await submitTask();
    await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    await recordPayment(admin, { task_id: created.task_id });
    const lying = { ...pngProof(), type: "image/jpeg" };
    const res = await completeTask(admin, {
      task_id: created.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [lying],
    });
    expectEnvelope(res.body, res.res, 422, "VALIDATION_ERROR");
    const notBase64 = await completeTask(admin, {
      task_id: created.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [{ filename: "a.png", type: "image/png", content: "@@not base64@@" }],
    });
    expectEnvelope(notBase64.body, notBase64.res, 400, "INVALID_FORMAT");
    expect((await getStatus(created.task_id)).body.status).toBe("paid");
    expect(await eventsOf(created.task_id)).toEqual(["task.created", "task.accepted", "task.paid"]);
  });

  it("fails a task with a reason", async () => {
    const { body: created } = await submitTask();
    await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    await recordPayment(admin, { task_id: created.task_id });
    const failed = await completeTask(admin, {
      task_id: created.task_id,
      action: "fail",
      reason: "Site closed permanently",
    });
    expect(failed.body).toMatchObject({ status: "failed", failure_reason: "Site closed permanently" });
  });
});

describe("payment expiry", () => {
  it("expires overdue tasks once, with their event, however often the job runs", async () => {
    const { body: created } = await submitTask();
    await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    const db = await getDb();
    await db
      .update(tasks)
      .set({ paymentExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(tasks.id, created.task_id));
    const runs = await Promise.all([
      call(expireCron, "/api/cron/expire-payments"),
      call(expireCron, "/api/cron/expire-payments"),
    ]);
    const expired = runs.map((r) => r.body.details?.expired ?? 0).reduce((a, b) => a + b, 0);
    expect(expired).toBe(1);
    const again = await call(expireCron, "/api/cron/expire-payments");
    expect(again.body.details.expired).toBe(0);
    expect((await getStatus(created.task_id)).body.status).toBe("payment_expired");
    expect((await eventsOf(created.task_id)).filter((e) => e === "task.payment_expired")).toHaveLength(1);
    const late = await recordPayment(admin, { task_id: created.task_id });
    expect(expectEnvelope(late.body, late.res, 409, "CONFLICT").current_status).toBe("payment_expired");
  });
});

describe("cancellation", () => {
  it("lets an anonymous submitter cancel with the access token, free before payment", async () => {
    const { body: created } = await submitTask();
    const wrong = await cancelTask(created.task_id, {}, "&access_token=tok_wrong");
    expectEnvelope(wrong.body, wrong.res, 403, "FORBIDDEN");
    const ok = await cancelTask(created.task_id, {}, `&access_token=${created.access_token}`);
    expect(ok.res.status).toBe(200);
    expect(ok.body).toMatchObject({ status: "cancelled", refund_status: "none" });
    const again = await cancelTask(created.task_id, {}, `&access_token=${created.access_token}`);
    expect(expectEnvelope(again.body, again.res, 409, "CONFLICT").current_status).toBe("cancelled");
  });

  it("needs the owning key with task_cancel", async () => {
    const { body: created } = await submitTask(validTask, keyHeaders(agent));
    const noScope = await makeKey(["audit_only", "task_create"]);
    const r1 = await cancelTask(created.task_id, keyHeaders(noScope));
    expectEnvelope(r1.body, r1.res, 403, "FORBIDDEN");
    const stranger = await makeKey(["task_cancel"]);
    const r2 = await cancelTask(created.task_id, keyHeaders(stranger));
    expectEnvelope(r2.body, r2.res, 403, "FORBIDDEN");
    const r3 = await cancelTask(created.task_id, keyHeaders(agent));
    expect(r3.body.status).toBe("cancelled");
  });

  it("records a refund request when cancelled after payment", async () => {
    const { body: created } = await submitTask(validTask, keyHeaders(agent));
    await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    await recordPayment(admin, { task_id: created.task_id });
    const res = await cancelTask(created.task_id, keyHeaders(agent));
    expect(res.body).toMatchObject({ status: "cancelled", refund_status: "pending" });
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, created.task_id));
    expect(row!.refundAmountCad).toBe(379.67);
  });
});

describe("sandbox", () => {
  it("advances one step per poll to completion with a generated proof, and sends nothing", async () => {
    const { res, body: created } = await submitTask(validTask, { "x-service-mode": "sandbox" });
    expect(res.status).toBe(201);
    expect(created.task_id).toMatch(/^SANDBOX-/);
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await getStatus(created.task_id, { authorization: `Bearer ${created.access_token}` });
      seen.push(s.body.status);
      if (s.body._polling.is_terminal) {
        expect(s.body.proof_files_data).toHaveLength(1);
        expect(s.body.proof_files_data[0].type).toBe("image/png");
      } else {
        expect(s.res.headers.get("retry-after")).toBe("1");
      }
    }
    expect(seen).toEqual(["accepted_pending_payment", "paid", "dispatched", "completed", "completed"]);
    const db = await getDb();
    expect(await db.select().from(emails).where(eq(emails.taskId, created.task_id))).toHaveLength(0);
  });
});

describe("GET /api/task-list", () => {
  it("filters, searches, sorts and paginates with a total", async () => {
    const marker = `needle-${Date.now()}`;
    for (let i = 0; i < 3; i++) await submitTask({ ...validTask, task_description: `${marker} ${i}` });
    const page = await call(taskList, `/api/task-list?q=${marker}&limit=2&sort=created_at`, {
      headers: keyHeaders(admin),
    });
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.tasks.map((t: any) => t.task_description)).toEqual([`${marker} 0`, `${marker} 1`]);
    const next = await call(taskList, `/api/task-list?q=${marker}&limit=2&offset=2&sort=created_at`, {
      headers: keyHeaders(admin),
    });
    expect(next.body.tasks).toHaveLength(1);
    const received = await call(
      taskList,
      "/api/task-list?status=received,counter_offered&service_type=SVC-01",
      {
        headers: keyHeaders(admin),
      },
    );
    expect(received.body.tasks.every((t: any) => ["received", "counter_offered"].includes(t.status))).toBe(
      true,
    );
    const sandbox = await call(taskList, "/api/task-list?include_sandbox=false", {
      headers: keyHeaders(admin),
    });
    expect(sandbox.body.tasks.some((t: any) => t.sandbox)).toBe(false);
    const bad = await call(taskList, "/api/task-list?status=nonsense", { headers: keyHeaders(admin) });
    expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR");
    const tooMany = await call(taskList, "/api/task-list?limit=201", { headers: keyHeaders(admin) });
    expectEnvelope(tooMany.body, tooMany.res, 422, "VALIDATION_ERROR");
  });
});

/**
 * End to end over real HTTP through the local host: an agent submits a task, the
 * operator reviews it, records the payment, dispatches and completes it with a photo,
 * and the agent reads the proof; then the counter-offer, rejection, expiry and
 * cancellation paths.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { tasks } from "../../lib/db/schema/index.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { pngProof, validTask } from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let admin: string;
let agent: string;

beforeAll(async () => {
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
});
afterAll(() => host.close());

async function api(method: string, pathname: string, key?: string, body?: unknown) {
  const res = await fetch(`${host.url}${pathname}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe("task lifecycle over HTTP", () => {
  it("submit → review → payment → dispatch → complete → proof", async () => {
    const created = await api("POST", "/api/submit-task", agent, {
      ...validTask,
      urgency: "urgent",
      lang: "en",
    });
    expect(created.status).toBe(201);
    const id = created.body.task_id as string;
    const q = `?task_id=${encodeURIComponent(id)}`;
    expect(
      (await api("POST", "/api/task-review", admin, { task_id: id, action: "approve", price_cad: 480 })).body
        .status,
    ).toBe("accepted_pending_payment");
    const awaiting = await api("GET", `/api/submit-task${q}`, agent);
    expect(awaiting.headers.get("retry-after")).toBe("60");
    expect(awaiting.body.payment).toMatchObject({ amount_cad: 480, method: "usdc" });
    expect((await api("POST", "/api/task-payment", admin, { task_id: id, note: "wire" })).body.status).toBe(
      "paid",
    );
    expect(
      (await api("POST", "/api/task-complete", admin, { task_id: id, action: "dispatch" })).body.status,
    ).toBe("dispatched");
    const proof = pngProof("front.png");
    const done = await api("POST", "/api/task-complete", admin, {
      task_id: id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [proof],
      operator_notes: "ok",
    });
    expect(done.status).toBe(200);
    const final = await api("GET", `/api/submit-task${q}`, agent);
    expect(final.body).toMatchObject({
      status: "completed",
      operator_notes: "ok",
      proof_files_data: [proof],
    });
    expect(final.headers.get("retry-after")).toBeNull();
  });

  it("counter-offer, rejection, expiry and cancellation", async () => {
    const submit = async () =>
      (await api("POST", "/api/submit-task", agent, validTask)).body.task_id as string;

    const offered = await submit();
    const offer = await api("POST", "/api/task-review", admin, {
      task_id: offered,
      action: "counter_offer",
      counter_offer_amount: 520,
      reason: "Longer visit",
    });
    expect(offer.body).toMatchObject({ status: "counter_offered", counter_offer_amount: 520 });

    const rejected = await submit();
    const reject = await api("POST", "/api/task-review", admin, {
      task_id: rejected,
      action: "reject",
      reason: "Private property",
    });
    expect(reject.body).toMatchObject({ status: "rejected", review_reason: "Private property" });

    const expiring = await submit();
    await api("POST", "/api/task-review", admin, { task_id: expiring, action: "approve" });
    const db = await getDb();
    await db
      .update(tasks)
      .set({ paymentExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(tasks.id, expiring));
    const cron = await host.invoke("/api/cron/expire-payments");
    expect(((await cron.json()) as any).details.expired).toBeGreaterThanOrEqual(1);
    expect((await api("GET", `/api/submit-task?task_id=${expiring}`)).body.status).toBe("payment_expired");

    const cancelled = await submit();
    const cancel = await api("DELETE", `/api/submit-task?task_id=${cancelled}`, agent, {
      reason: "No longer needed",
    });
    expect(cancel.body).toMatchObject({ status: "cancelled", refund_status: "none" });

    const list = await api(
      "GET",
      "/api/task-list?status=cancelled,rejected,payment_expired,counter_offered",
      admin,
    );
    const ids = list.body.tasks.map((t: any) => t.task_id);
    expect(ids).toEqual(expect.arrayContaining([offered, rejected, expiring, cancelled]));
  });
});

/**
 * Who did each step (issue 26 item 3): the admin view of a task's status carries `actors` from the
 * audit trail — a staff member with role and display name, an admin key by its id, a job by its
 * name, the requester without any id — for an admin key and for staff; the owner's and the
 * public status never carry it.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as refundPost } from "../../api/task-refund.js";
import { POST as reviewPost } from "../../api/task-review.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys, tasks } from "../../lib/db/schema/index.js";
import { expirePayments } from "../../lib/jobs/expire-payments.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { cancelTask, getStatus, recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let admin: string;
let adminKeyId: string;
let agent: string;
let reviewer: TestStaff;
let finance: TestStaff;

beforeAll(async () => {
  admin = await makeKey(["admin"], "actors-admin@example.com");
  const [row] = await (await getDb())
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.contact, "actors-admin@example.com"));
  adminKeyId = row!.id;
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  reviewer = await createStaff("reviewer", "Rita Reviewer");
  finance = await createStaff("finance", "Fanny Finance");
});

describe("actors of a task", () => {
  it("are in the admin view (key and staff), never in the owner's or the public view", async () => {
    const { body: created } = await submitTask({ ...validTask, lang: "en" }, keyHeaders(agent));
    const id = created.task_id as string;
    const approved = await call(reviewPost, "/api/task-review", {
      method: "POST",
      headers: staffHeaders(reviewer),
      json: { task_id: id, action: "approve" },
    });
    expect(approved.res.status).toBe(200);
    expect((await recordPayment(admin, { task_id: id, note: "cash" })).res.status).toBe(200);
    expect((await cancelTask(id, keyHeaders(agent))).body.refund_status).toBe("pending");
    const settled = await call(refundPost, "/api/task-refund", {
      method: "POST",
      headers: staffHeaders(finance),
      json: { task_id: id, outcome: "denied", note: "Work already done." },
    });
    expect(settled.res.status).toBe(200);

    const expected = [
      {
        action: "task.approve",
        actor_kind: "staff",
        actor_role: "reviewer",
        actor_display_name: "Rita Reviewer",
      },
      { action: "task.pay", actor_kind: "admin_key", actor_role: "owner" },
      { action: "task.cancel", actor_kind: "requester", actor_role: null, actor_display_name: null },
      {
        action: "refund.settle",
        actor_kind: "staff",
        actor_role: "finance",
        actor_display_name: "Fanny Finance",
      },
    ];
    const asAdmin = (await getStatus(id, keyHeaders(admin))).body;
    expect(asAdmin.actors).toMatchObject(expected);
    expect(asAdmin.actors[1].actor_display_name).toBe(adminKeyId);
    for (const a of asAdmin.actors) expect(Date.parse(a.at)).not.toBeNaN();
    // The answer of an admin action carries it too; a staff member reads it through the task view.
    expect(settled.body.actors).toMatchObject(expected);
    expect((await getStatus(id, staffHeaders(reviewer))).body.actors).toMatchObject(expected);

    const asOwner = (await getStatus(id, keyHeaders(agent))).body;
    expect(asOwner.task_description).toBeDefined();
    expect(asOwner).not.toHaveProperty("actors");
    const asPublic = (await getStatus(id)).body;
    expect(asPublic).not.toHaveProperty("actors");
    expect(JSON.stringify(asOwner)).not.toContain("Rita Reviewer");
  });

  it("names a job as system with its name", async () => {
    const { body: created } = await submitTask({ ...validTask, lang: "en" }, keyHeaders(agent));
    const id = created.task_id as string;
    expect((await reviewTask(admin, { task_id: id, action: "approve" })).res.status).toBe(200);
    await (await getDb())
      .update(tasks)
      .set({ paymentExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(tasks.id, id));
    expect((await expirePayments()).ok).toBe(true);
    const { actors } = (await getStatus(id, keyHeaders(admin))).body;
    expect(actors.map((a: { action: string }) => a.action)).toEqual(["task.approve", "task.expire"]);
    expect(actors[1]).toMatchObject({
      actor_kind: "system",
      actor_role: null,
      actor_display_name: "expire-payments",
    });
  });
});

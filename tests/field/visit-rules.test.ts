/**
 * Site-visit rules per service (issue 44 item 1; docs/staff-and-audit.md "Visit rules"): the
 * catalog, its contracts and the capabilities publish each service's rule; a field person cannot
 * complete a `required` task without a check-in (409 naming what is missing), may with a check-in
 * outside the fence and a reason (flagged OUTSIDE_GEOFENCE); an owner or admin key completing
 * without a visit gives `no_visit_reason` (422 without; flagged NO_SITE_VISIT); an `optional`
 * service completes without a visit, unflagged. The status, the event and the signed receipt say
 * which rule applied.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as capabilities } from "../../api/capabilities.js";
import { GET as jwks } from "../../api/jwks.js";
import { GET as services } from "../../api/services.js";
import { POST as complete } from "../../api/task-complete.js";
import { getDb } from "../../lib/db/client.js";
import { taskEvents } from "../../lib/db/schema/index.js";
import { verifyReceipt } from "../../lib/receipts/receipt.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { completeTask, getStatus } from "../helpers/tasks.js";
import { assign, myTasks, near, paidTask, visit } from "./helpers.js";

useTestDatabase();

let admin: string;
let agent: string;
let dispatcher: TestStaff;
let field: TestStaff;
let owner: TestStaff;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  dispatcher = await createStaff("dispatcher");
  field = await createStaff("field", "Sam");
  owner = await createStaff("owner", "Olive");
});

const fieldComplete = (body: Record<string, unknown>, who: TestStaff = field) =>
  call(complete, "/api/task-complete", { method: "POST", headers: staffHeaders(who), json: body });

async function assignedTask(extra: Record<string, unknown> = {}) {
  const task = await paidTask(admin, agent, extra);
  const r = await assign(staffHeaders(dispatcher), { task_id: task.taskId, staff_id: field.staffId });
  if (r.res.status !== 200) throw new Error(JSON.stringify(r.body));
  return task;
}

async function receiptClaims(receipt: string) {
  const keys = await (await jwks(new Request("http://localhost:3000/.well-known/jwks.json"))).json();
  return (await verifyReceipt(receipt, keys)).claims;
}

describe("the rules are published", () => {
  it("each catalog entry and contract, and the capabilities, carry the rule", async () => {
    const { body } = await call(services, "/api/services");
    const byId = Object.fromEntries(body.services.map((s: { id: string }) => [s.id, s]));
    expect(byId["SVC-01"].site_visit).toBe("required");
    expect(byId["SVC-03"].site_visit).toBe("optional");
    expect(byId["SVC-01"].contract.site_visit).toMatchObject({ rule: "required" });
    expect(byId["SVC-03"].contract.site_visit.why).toMatch(/auction/i);
    const caps = await call(capabilities, "/api/capabilities");
    expect(caps.body.operations.site_visit_rules.by_service).toEqual({
      "SVC-01": "required",
      "SVC-02": "required",
      "SVC-03": "optional",
      "SVC-04": "required",
      "SVC-05": "required",
    });
    expect(caps.body.operations.site_visit_rules.meanings.required).toMatch(/no_visit_reason/);
  });
});

describe("a service that requires a visit", () => {
  it("a field person without a check-in is refused 409 naming what is missing; nothing changes", async () => {
    const { taskId } = await assignedTask();
    const listed = (await myTasks(staffHeaders(field))).body.tasks.find(
      (t: { task_id: string }) => t.task_id === taskId,
    );
    expect(listed.visit_rule).toEqual({ rule: "required", outcome: "no_visit", flags: [] });
    const refused = await fieldComplete({ task_id: taskId, action: "complete", operator_notes: "done" });
    const error = expectEnvelope(refused.body, refused.res, 409, "CONFLICT");
    expect(error).toMatchObject({ site_visit_rule: "required", missing: "check_in", service_type: "SVC-01" });
    expect(error.message).toMatch(/check in/);
    // A reason does not stand in for the field person's own visit.
    const withReason = await fieldComplete({ task_id: taskId, action: "complete", no_visit_reason: "busy" });
    expectEnvelope(withReason.body, withReason.res, 409, "CONFLICT");
    expect((await getStatus(taskId, { "x-api-key": admin })).body.status).toBe("paid");
  });

  it("a check-in inside the fence: completed, not flagged; the receipt names the rule", async () => {
    const { taskId, place } = await assignedTask();
    expect(
      (await visit(staffHeaders(field), { task_id: taskId, action: "check_in", ...near(place, 20) })).res
        .status,
    ).toBe(200);
    const done = await fieldComplete({ task_id: taskId, action: "complete" });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.visit_rule).toEqual({ rule: "required", outcome: "inside_geofence", flags: [] });
    expect((await receiptClaims(done.body.receipt)).visit_rule).toEqual(done.body.visit_rule);
  });

  it("a far check-in with a reason: completed and flagged OUTSIDE_GEOFENCE in the status, the event and the receipt", async () => {
    const { taskId, place } = await assignedTask();
    const far = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 40_000),
      reason: "The building was evacuated; photographed from the road block",
    });
    expect(far.res.status, JSON.stringify(far.body)).toBe(200);
    const done = await fieldComplete({ task_id: taskId, action: "complete" });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.visit_rule).toEqual({
      rule: "required",
      outcome: "outside_geofence",
      flags: ["OUTSIDE_GEOFENCE"],
    });
    expect(done.body.site_visit).toMatchObject({
      within_geofence: false,
      reason: expect.stringMatching(/evacuated/),
    });
    const claims = await receiptClaims(done.body.receipt);
    expect(claims.visit_rule?.flags).toEqual(["OUTSIDE_GEOFENCE"]);
    const db = await getDb();
    const [event] = await db
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.taskId, taskId), eq(taskEvents.type, "task.completed")));
    expect(event!.payload).toMatchObject({ visit_rule: { flags: ["OUTSIDE_GEOFENCE"] } });
  });

  it("an admin key or owner without a visit must give no_visit_reason (422), then it is recorded and flagged NO_SITE_VISIT", async () => {
    const { taskId } = await assignedTask();
    const refused = await completeTask(admin, { task_id: taskId, action: "complete" });
    const error = expectEnvelope(refused.body, refused.res, 422, "VALIDATION_ERROR");
    expect(error).toMatchObject({
      field: "no_visit_reason",
      site_visit_rule: "required",
      missing: "check_in",
    });

    const blank = await completeTask(admin, { task_id: taskId, action: "complete", no_visit_reason: "   " });
    expect(expectEnvelope(blank.body, blank.res, 400, "MISSING_FIELD").field).toBe("no_visit_reason");

    const done = await completeTask(admin, {
      task_id: taskId,
      action: "complete",
      no_visit_reason: "The client sent the photos; the site was closed to visitors",
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.visit_rule).toEqual({
      rule: "required",
      outcome: "no_visit",
      flags: ["NO_SITE_VISIT"],
      no_visit_reason: "The client sent the photos; the site was closed to visitors",
    });
    expect(done.body.site_visit).toBeNull();
    expect((await receiptClaims(done.body.receipt)).visit_rule?.flags).toEqual(["NO_SITE_VISIT"]);
    // The requester (the task's owner) sees the flag too.
    const mine = await getStatus(taskId, { "x-api-key": agent });
    expect(mine.body.visit_rule.flags).toEqual(["NO_SITE_VISIT"]);

    const second = await assignedTask();
    const byOwner = await fieldComplete({ task_id: second.taskId, action: "complete" }, owner);
    expect(expectEnvelope(byOwner.body, byOwner.res, 422, "VALIDATION_ERROR").field).toBe("no_visit_reason");
  });

  it("no_visit_reason with a visit contradicts it: 422", async () => {
    const { taskId, place } = await assignedTask();
    await visit(staffHeaders(field), { task_id: taskId, action: "check_in", ...near(place, 10) });
    const refused = await completeTask(admin, { task_id: taskId, action: "complete", no_visit_reason: "x" });
    expect(expectEnvelope(refused.body, refused.res, 422, "VALIDATION_ERROR").field).toBe("no_visit_reason");
  });
});

describe("a service whose visit is optional", () => {
  it("an auction proxy completes without a visit, unflagged, with the rule in the receipt", async () => {
    const { taskId } = await assignedTask({ service_type: "SVC-03" });
    const done = await fieldComplete({ task_id: taskId, action: "complete" });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.visit_rule).toEqual({ rule: "optional", outcome: "no_visit", flags: [] });
    expect((await receiptClaims(done.body.receipt)).visit_rule?.rule).toBe("optional");
  });
});

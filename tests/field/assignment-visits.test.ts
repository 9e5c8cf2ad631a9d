/**
 * Assignment and site visits (issue 26 items 4-5; docs/staff-and-audit.md): a dispatcher assigns,
 * reassigns and unassigns (task.assigned in the outbox, audit rows), a reviewer may not, a field
 * person completes only its own tasks; check-in inside, outside, outside with a reason, twice,
 * check-out before check-in, coordinates out of range, someone else's task; the field list.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as assignGet } from "../../api/task-assign.js";
import { POST as complete } from "../../api/task-complete.js";
import { GET as stream } from "../../api/tasks/stream.js";
import { getDb } from "../../lib/db/client.js";
import { auditLog, deliveries, taskEvents, tasks, webhooks } from "../../lib/db/schema/index.js";
import { dispatchEvents } from "../../lib/events/dispatch-events.js";
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
let reviewer: TestStaff;
let field: TestStaff;
let other: TestStaff;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  dispatcher = await createStaff("dispatcher");
  reviewer = await createStaff("reviewer");
  field = await createStaff("field", "Sam from the field");
  other = await createStaff("field", "Alex");
});

async function eventsOf(taskId: string, type: string) {
  const db = await getDb();
  return db
    .select()
    .from(taskEvents)
    .where(and(eq(taskEvents.taskId, taskId), eq(taskEvents.type, type as never)));
}

async function auditOf(taskId: string) {
  const db = await getDb();
  return db.select().from(auditLog).where(eq(auditLog.taskId, taskId)).orderBy(auditLog.id);
}

describe("assignment", () => {
  it("GET /api/task-assign lists who a task can go to (active field staff and owners, no e-mail), for dispatchers", async () => {
    const res = await call(assignGet, "/api/task-assign", { headers: staffHeaders(dispatcher) });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    const names = res.body.staff.map((s: { display_name: string }) => s.display_name);
    expect(names).toContain("Sam from the field");
    expect(names).toContain("Alex");
    expect(res.body.staff.every((s: { role: string }) => s.role === "field" || s.role === "owner")).toBe(
      true,
    );
    expect(res.body.staff.map((s: { staff_id: string }) => s.staff_id)).not.toContain(reviewer.staffId);
    expect(JSON.stringify(res.body)).not.toContain("@");
    const denied = await call(assignGet, "/api/task-assign", { headers: staffHeaders(reviewer) });
    expect(expectEnvelope(denied.body, denied.res, 403, "FORBIDDEN").permission).toBe("tasks.assign");
  });

  it("a dispatcher assigns (event, audit, status view), again is a no-op, reassigns and unassigns", async () => {
    const { taskId } = await paidTask(admin, agent);
    const first = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.assignment).toMatchObject({
      operator_display_name: "Sam from the field",
      staff_id: field.staffId,
    });
    const events = await eventsOf(taskId, "task.assigned");
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      task_id: taskId,
      status: "paid",
      previous_status: "paid",
      assignment: { operator_display_name: "Sam from the field" },
    });
    expect(JSON.stringify(events[0]!.payload)).not.toContain(field.staffId);
    expect(JSON.stringify(events[0]!.payload)).not.toContain(field.email);

    // The requester sees the display name only.
    const mine = await getStatus(taskId, { "x-api-key": agent });
    expect(mine.body.assignment).toEqual({
      operator_display_name: "Sam from the field",
      assigned_at: first.body.assignment.assigned_at,
    });

    // The same person again: nothing written.
    const again = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(again.res.status).toBe(200);
    expect(await eventsOf(taskId, "task.assigned")).toHaveLength(1);

    const moved = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: other.staffId });
    expect(moved.body.assignment.operator_display_name).toBe("Alex");
    const none = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: null });
    expect(none.body.assignment).toBeNull();
    expect(await eventsOf(taskId, "task.assigned")).toHaveLength(3);
    const rows = (await auditOf(taskId)).filter(
      (r) => r.action.startsWith("task.") && r.action.includes("assign"),
    );
    expect(rows.map((r) => [r.action, r.actorKind, r.actorId, r.actorRole])).toEqual([
      ["task.assign", "staff", dispatcher.staffId, "dispatcher"],
      ["task.assign", "staff", dispatcher.staffId, "dispatcher"],
      ["task.unassign", "staff", dispatcher.staffId, "dispatcher"],
    ]);
    expect(rows[1]!.details).toMatchObject({ from_staff_id: field.staffId, to_staff_id: other.staffId });
  });

  it("task.assigned goes to the requester's webhooks through the outbox (display name only)", async () => {
    const { taskId } = await paidTask(admin, agent);
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    await db.insert(webhooks).values({
      id: `wh_field${Date.now()}`,
      apiKeyId: task!.apiKeyId!,
      url: "https://hooks.example.com/field",
      events: ["task.assigned"],
      secretCiphertext: "unused",
    });
    await dispatchEvents({ limit: 1000 });
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    await dispatchEvents({ limit: 1000 });
    const sent = await db.select().from(deliveries).where(eq(deliveries.taskId, taskId));
    expect(sent.map((d) => [d.kind, d.event])).toEqual([["webhook", "task.assigned"]]);
    expect(sent[0]!.payload).toMatchObject({
      event: "task.assigned",
      data: { task_id: taskId, status: "paid", assignment: { operator_display_name: "Sam from the field" } },
    });
  });

  it("the requester's event stream carries task.assigned (its data.event tells it from a dispatch)", async () => {
    const { taskId } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    const { res, body } = await call(stream, `/api/tasks/stream?task_id=${taskId}`, {
      headers: { "x-api-key": agent, "x-stream-timeout": "1", "last-event-id": "0" },
    });
    expect(res.status).toBe(200);
    const frames = String(body)
      .split("\n\n")
      .filter((f) => f.includes("event: task.assigned"));
    expect(frames).toHaveLength(1);
    const data = JSON.parse(/^data: (.*)$/m.exec(frames[0]!)![1]!);
    expect(data).toMatchObject({
      event: "task.assigned",
      data: { status: "paid", assignment: { operator_display_name: "Sam from the field" } },
    });
  });

  it("a reviewer may not assign (403 naming tasks.assign); bad staff → 422; wrong status → 409", async () => {
    const { taskId } = await paidTask(admin, agent);
    const refused = await assign(staffHeaders(reviewer), { task_id: taskId, staff_id: field.staffId });
    expect(expectEnvelope(refused.body, refused.res, 403, "FORBIDDEN").permission).toBe("tasks.assign");

    const notField = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: reviewer.staffId });
    expect(expectEnvelope(notField.body, notField.res, 422, "VALIDATION_ERROR").field).toBe("staff_id");
    const unknown = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: "stf_nobody" });
    expect(expectEnvelope(unknown.body, unknown.res, 422, "VALIDATION_ERROR").field).toBe("staff_id");

    const { body } = await completeTask(admin, { task_id: taskId, action: "fail", reason: "closed" });
    expect(body.status).toBe("failed");
    const late = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(expectEnvelope(late.body, late.res, 409, "CONFLICT").current_status).toBe("failed");
  });

  it("a field person completes only a task assigned to it; an admin key any", async () => {
    // SVC-03 (auction proxy): a visit is optional, so completion here is about the assignee only.
    const { taskId } = await paidTask(admin, agent, { service_type: "SVC-03" });
    const asField = (id: string) =>
      call(complete, "/api/task-complete", {
        method: "POST",
        headers: staffHeaders(field),
        json: { task_id: id, action: "complete", operator_notes: "done" },
      });
    const refused = await asField(taskId);
    expectEnvelope(refused.body, refused.res, 403, "FORBIDDEN");
    expect((await getStatus(taskId, { "x-api-key": admin })).body.status).toBe("paid");

    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    const done = await asField(taskId);
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe("completed");

    const second = await paidTask(admin, agent, { service_type: "SVC-03" });
    await assign(staffHeaders(dispatcher), { task_id: second.taskId, staff_id: other.staffId });
    const byKey = await completeTask(admin, { task_id: second.taskId, action: "complete" });
    expect(byKey.body.status).toBe("completed");
  });
});

describe("check-in and check-out", () => {
  it("inside the geofence: paid → dispatched → on_site, visit written, audited; a second check-in answers the same", async () => {
    const { taskId, place } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    const first = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 60),
    });
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.status).toBe("on_site");
    expect(first.body.site_visit).toMatchObject({
      checked_out_at: null,
      accuracy_m: 10,
      within_geofence: true,
    });
    expect(first.body.site_visit.check_in_distance_m).toBeGreaterThan(58);
    expect(first.body.site_visit.check_in_distance_m).toBeLessThan(62);
    expect(first.body.site_visit.reason).toBeUndefined();
    const history = (await getStatus(taskId, { "x-api-key": admin })).body.history.map(
      (h: { event: string }) => h.event,
    );
    expect(history.slice(-3)).toEqual(["task.assigned", "task.dispatched", "task.on_site"]);

    const second = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 900),
    });
    expect(second.res.status).toBe(200);
    expect(second.body.site_visit).toEqual(first.body.site_visit);

    const out = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_out",
      ...near(place, 20),
    });
    expect(out.body.site_visit.checked_out_at).toMatch(/^\d{4}-/);
    const actions = (await auditOf(taskId)).map((r) => [r.action, r.actorKind, r.actorRole]);
    expect(actions.slice(-4)).toEqual([
      ["task.dispatch", "staff", "field"],
      ["task.arrive", "staff", "field"],
      ["visit.check_in", "staff", "field"],
      ["visit.check_out", "staff", "field"],
    ]);
  });

  it("outside without a reason → 422 with the distance and the fence; with a reason → accepted and flagged", async () => {
    const { taskId, place } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    // 250 m + the reported 500 m capped at 100 m = 350 m: 400 m away is outside.
    const far = near(place, 400, 500);
    const refused = await visit(staffHeaders(field), { task_id: taskId, action: "check_in", ...far });
    const error = expectEnvelope(refused.body, refused.res, 422, "VALIDATION_ERROR");
    expect(error.field).toBe("reason");
    expect(error.geofence_m).toBe(350);
    expect(error.distance_m).toBeGreaterThan(395);
    expect(error.distance_m).toBeLessThan(405);
    const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, taskId));
    expect(row!.status).toBe("paid");

    const accepted = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...far,
      reason: "The entrance is on the next street.",
    });
    expect(accepted.res.status).toBe(200);
    expect(accepted.body.site_visit).toMatchObject({
      within_geofence: false,
      reason: "The entrance is on the next street.",
    });
    expect((await getStatus(taskId, { "x-api-key": admin })).body.site_visit).toEqual(
      accepted.body.site_visit,
    );
  });

  it("check_out before check_in → 409; out-of-range coordinates → 422 naming the field; not yours → 403", async () => {
    const { taskId, place } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    const early = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_out",
      ...near(place, 0),
    });
    expectEnvelope(early.body, early.res, 409, "CONFLICT");
    const lat = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 0),
      latitude: 91,
    });
    expect(expectEnvelope(lat.body, lat.res, 422, "VALIDATION_ERROR").field).toBe("latitude");
    const lon = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 0),
      longitude: -181,
    });
    expect(expectEnvelope(lon.body, lon.res, 422, "VALIDATION_ERROR").field).toBe("longitude");
    const notMine = await visit(staffHeaders(other), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 0),
    });
    expectEnvelope(notMine.body, notMine.res, 403, "FORBIDDEN");
    const byKey = await visit(
      { "x-api-key": admin },
      { task_id: taskId, action: "check_in", ...near(place, 0) },
    );
    expectEnvelope(byKey.body, byKey.res, 403, "FORBIDDEN");
  });

  it("the field list: my open tasks by deadline, with map links, at_risk and the visit", async () => {
    const me = await createStaff("field", "Lee");
    const later = await paidTask(admin, agent);
    const sooner = await paidTask(admin, agent, {
      urgency: "urgent",
      special_instructions: "Ring the bell at the back door.",
    });
    const notMine = await paidTask(admin, agent);
    for (const t of [later, sooner])
      await assign(staffHeaders(dispatcher), { task_id: t.taskId, staff_id: me.staffId });
    await assign(staffHeaders(dispatcher), { task_id: notMine.taskId, staff_id: other.staffId });
    const { res, body } = await myTasks(staffHeaders(me));
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.geofence_m).toBe(250);
    expect(body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([sooner.taskId, later.taskId]);
    const [lon, lat] = sooner.place;
    expect(body.tasks[0]).toMatchObject({
      status: "paid",
      urgency: "urgent",
      special_instructions: "Ring the bell at the back door.",
      at_risk: false,
      coordinates: [lon, lat],
      map_url: `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`,
      geo_uri: `geo:${lat},${lon}`,
      site_visit: null,
      proof_files: [],
    });
    const refused = await myTasks(staffHeaders(reviewer));
    expect(expectEnvelope(refused.body, refused.res, 403, "FORBIDDEN").permission).toBe("tasks.execute");
  });
});

/**
 * Check-ins and photos made offline and sent later (issue 44 item 5; docs/staff-and-audit.md
 * "Offline"): `captured_at` bounded (after the assignment, not in the future beyond the clock
 * skew, at most OFFLINE_CAPTURE_MAX_AGE_H old; else 422 naming captured_at), both times recorded
 * and shown in the status, the field list and the signed receipt, the geofence judged on the
 * position sent; a check-in or photo sent after the task was reassigned → 409 naming the new
 * assignee (a person never assigned → 403); a photo for a task since cancelled → 409 with the status.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as capabilities } from "../../api/capabilities.js";
import { POST as complete } from "../../api/task-complete.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { auditLog, proofFiles, siteVisits, tasks } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { envOverrides } from "../helpers/env.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { cancelTask, getStatus, pngProof } from "../helpers/tasks.js";
import { assign, myTasks, near, paidTask, uploadProof, visit } from "./helpers.js";

useTestDatabase();

let admin: string;
let agent: string;
let dispatcher: TestStaff;
let field: TestStaff;
let other: TestStaff;
let stranger: TestStaff;
const env = envOverrides(resetConfig);

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  dispatcher = await createStaff("dispatcher");
  field = await createStaff("field", "Sam");
  other = await createStaff("field", "Alex Gagnon");
  stranger = await createStaff("field", "Pat");
});
afterAll(() => env.restore());

const HOUR = 3_600_000;
const claimsOf = (jws: string) => JSON.parse(Buffer.from(jws.split(".")[1]!, "base64url").toString("utf8"));

/** A paid task assigned to `field`, its assignment moved `hoursAgo` into the past. */
async function assignedTask(hoursAgo = 3) {
  const task = await paidTask(admin, agent);
  const res = await assign(staffHeaders(dispatcher), { task_id: task.taskId, staff_id: field.staffId });
  expect(res.res.status, JSON.stringify(res.body)).toBe(200);
  await (await getDb())
    .update(tasks)
    .set({ assignedAt: new Date(Date.now() - hoursAgo * HOUR) })
    .where(eq(tasks.id, task.taskId));
  return task;
}

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

describe("captured_at bounds", () => {
  it("refuses a captured_at in the future, before the assignment, too old or malformed: 422 naming it, nothing written", async () => {
    const { taskId, place } = await assignedTask(20);
    const checkIn = (captured_at: string) =>
      visit(staffHeaders(field), { task_id: taskId, action: "check_in", ...near(place, 20), captured_at });

    const future = await checkIn(new Date(Date.now() + 10 * 60_000).toISOString());
    expect(expectEnvelope(future.body, future.res, 422, "VALIDATION_ERROR")).toMatchObject({
      field: "captured_at",
      bound: "future",
    });
    const old = await checkIn(ago(13 * HOUR));
    expect(expectEnvelope(old.body, old.res, 422, "VALIDATION_ERROR")).toMatchObject({
      field: "captured_at",
      bound: "max_age",
    });
    const bad = await checkIn("yesterday at noon");
    expect(expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR").field).toBe("captured_at");

    // The configured age: 1 h makes a 2 h old capture too old.
    env.set({ OFFLINE_CAPTURE_MAX_AGE_H: "1" });
    try {
      const shorter = await checkIn(ago(2 * HOUR));
      expect(expectEnvelope(shorter.body, shorter.res, 422, "VALIDATION_ERROR")).toMatchObject({
        field: "captured_at",
        bound: "max_age",
      });
    } finally {
      env.set({ OFFLINE_CAPTURE_MAX_AGE_H: undefined });
    }

    // Before the assignment (an hour ago here), though within the age.
    await (await getDb())
      .update(tasks)
      .set({ assignedAt: new Date(Date.now() - HOUR) })
      .where(eq(tasks.id, taskId));
    const early = await checkIn(ago(2 * HOUR));
    expect(expectEnvelope(early.body, early.res, 422, "VALIDATION_ERROR")).toMatchObject({
      field: "captured_at",
      bound: "assigned_at",
    });
    const photo = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: pngProof(),
      captured_at: ago(2 * HOUR),
    });
    expect(expectEnvelope(photo.body, photo.res, 422, "VALIDATION_ERROR").field).toBe("captured_at");

    const db = await getDb();
    expect(await db.select().from(siteVisits).where(eq(siteVisits.taskId, taskId))).toHaveLength(0);
    expect(await db.select().from(proofFiles).where(eq(proofFiles.taskId, taskId))).toHaveLength(0);
    expect((await getStatus(taskId, { "x-api-key": admin })).body.status).toBe("paid");
  });

  it("the bounds are published in the capabilities", async () => {
    const res = await call(capabilities, "/api/capabilities", {});
    expect(res.body.operations.offline_capture).toEqual({ max_age_h: 12, clock_skew_s: 120 });
  });

  it("a clock a minute ahead is within the skew allowance", async () => {
    const { taskId, place } = await assignedTask();
    const res = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 20),
      captured_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe("both times", () => {
  it("an offline check-in and photo: captured and received times in the field list, the status and the receipt; the fence judged on the position sent", async () => {
    const { taskId, place } = await assignedTask();
    const capturedIn = ago(40 * 60_000);
    const key = crypto.randomUUID();
    const body = { task_id: taskId, action: "check_in", ...near(place, 30, 12), captured_at: capturedIn };
    const first = await visit(staffHeaders(field), body, key);
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    // A retry with the same key (the phone did not see the answer) changes nothing.
    const again = await visit(staffHeaders(field), body, key);
    expect(again.res.status).toBe(200);
    expect(again.body.site_visit).toEqual(first.body.site_visit);

    const v = first.body.site_visit;
    expect(first.body.status).toBe("on_site");
    expect(v.within_geofence).toBe(true);
    expect(v.check_in_offline).toBe(true);
    expect(v.checked_in_at).toBe(new Date(capturedIn).toISOString());
    expect(Date.parse(v.check_in_received_at) - Date.parse(v.checked_in_at)).toBeGreaterThanOrEqual(
      39 * 60_000,
    );
    const audits = await (await getDb())
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, taskId), eq(auditLog.action, "visit.check_in")));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.details).toMatchObject({ captured_at: v.checked_in_at, within_geofence: true });

    const capturedPhoto = ago(35 * 60_000);
    const photo = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: pngProof("meter.png"),
      captured_at: capturedPhoto,
    });
    expect(photo.res.status, JSON.stringify(photo.body)).toBe(200);
    expect(photo.body.file.captured_at).toBe(new Date(capturedPhoto).toISOString());
    expect(Date.parse(photo.body.file.received_at)).toBeGreaterThan(Date.parse(capturedPhoto));
    const list = await myTasks(staffHeaders(field));
    const mine = list.body.tasks.find((t: { task_id: string }) => t.task_id === taskId);
    expect(mine.site_visit).toEqual(v);
    expect(mine.proof_files[0]).toMatchObject({
      filename: "meter.png",
      captured_at: photo.body.file.captured_at,
    });

    const status = await getStatus(taskId, { "x-api-key": admin });
    expect(status.body.site_visit).toEqual(v);
    const done = await call(complete, "/api/task-complete", {
      method: "POST",
      headers: staffHeaders(field),
      json: { task_id: taskId, action: "complete" },
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    const claims = claimsOf(done.body.receipt);
    expect(claims.site_visit).toMatchObject({
      checked_in_at: v.checked_in_at,
      check_in_received_at: v.check_in_received_at,
      check_in_offline: true,
    });
  });

  it("an online check-in: received and made at the same time, not offline", async () => {
    const { taskId, place } = await assignedTask();
    const res = await visit(staffHeaders(field), { task_id: taskId, action: "check_in", ...near(place, 10) });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.site_visit.check_in_offline).toBe(false);
    expect(res.body.site_visit.check_in_received_at).toBe(res.body.site_visit.checked_in_at);
  });

  it("the geofence is judged on the position captured: a far captured position needs a reason", async () => {
    const { taskId, place } = await assignedTask();
    const res = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 3000),
      captured_at: ago(10 * 60_000),
    });
    expect(expectEnvelope(res.body, res.res, 422, "VALIDATION_ERROR").field).toBe("reason");
  });
});

describe("faults", () => {
  it("an offline check-in or photo synced after the task was reassigned → 409 naming the new assignee; a stranger → 403", async () => {
    const { taskId, place } = await assignedTask();
    const moved = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: other.staffId });
    expect(moved.res.status).toBe(200);
    const late = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 20),
      captured_at: ago(30 * 60_000),
    });
    const error = expectEnvelope(late.body, late.res, 409, "CONFLICT");
    expect(error.assigned_to).toEqual({ display_name: "Alex Gagnon" });
    expect(error.message).toContain("Alex Gagnon");
    const photo = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: pngProof(),
      captured_at: ago(20 * 60_000),
    });
    expect(expectEnvelope(photo.body, photo.res, 409, "CONFLICT").assigned_to).toEqual({
      display_name: "Alex Gagnon",
    });
    const foreign = await visit(staffHeaders(stranger), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 20),
    });
    const denied = expectEnvelope(foreign.body, foreign.res, 403, "FORBIDDEN");
    expect(JSON.stringify(denied)).not.toContain("Alex");

    // Unassigned altogether: 409 with assigned_to null.
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: null });
    const gone = await visit(staffHeaders(other), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 20),
    });
    expect(expectEnvelope(gone.body, gone.res, 409, "CONFLICT").assigned_to).toBeNull();
    expect(await (await getDb()).select().from(siteVisits).where(eq(siteVisits.taskId, taskId))).toHaveLength(
      0,
    );
  });

  it("a photo queued offline for a task since cancelled is refused 409 with the status", async () => {
    const { taskId } = await assignedTask();
    const cancelled = await cancelTask(taskId, { "x-api-key": agent });
    expect(cancelled.res.status, JSON.stringify(cancelled.body)).toBe(200);
    const photo = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: pngProof(),
      captured_at: ago(20 * 60_000),
    });
    const error = expectEnvelope(photo.body, photo.res, 409, "CONFLICT");
    expect(error.current_status).toBe("cancelled");
    expect(error.message).toContain("cancelled");
  });
});

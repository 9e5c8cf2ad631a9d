/**
 * Evidence from the field (issue 26 items 5-7): proof photos uploaded one per request before
 * completion (Idempotency-Key replay, the same content stored once, a crash between upload and
 * completion leaves the files attached and the task as it was, completion then lists them in the
 * receipt and the event), the site visit in the status, the receipt, the completion event and the
 * callback, and the deadline watch flagging a task once.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as proofGet } from "../../api/field-proof.js";
import { POST as complete } from "../../api/task-complete.js";
import { getDb } from "../../lib/db/client.js";
import { auditLog, proofFiles, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { deadlineWatch } from "../../lib/jobs/deadline-watch.js";
import { sampleProofPng } from "../../lib/tasks/sample-proof.js";
import { callbackBody } from "../../lib/webhooks/payloads.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { getStatus, pngProof } from "../helpers/tasks.js";
import { assign, myTasks, near, paidTask, uploadProof, visit } from "./helpers.js";

useTestDatabase();

let admin: string;
let agent: string;
let dispatcher: TestStaff;
let field: TestStaff;
let other: TestStaff;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  dispatcher = await createStaff("dispatcher");
  field = await createStaff("field", "Sam");
  other = await createStaff("field", "Alex");
});

const jpeg = readFileSync(path.join(import.meta.dirname, "..", "fixtures", "capture", "with-gps.jpg"));
const photo = { filename: "front.jpg", type: "image/jpeg", content: jpeg.toString("base64") };

/** The claims of a compact JWS receipt (not verified here: tests/receipts does that). */
const claimsOf = (jws: string) => JSON.parse(Buffer.from(jws.split(".")[1]!, "base64url").toString("utf8"));

/** A paid task assigned to `field` and checked in 30 m from its place. */
async function onSite() {
  const task = await paidTask(admin, agent);
  await assign(staffHeaders(dispatcher), { task_id: task.taskId, staff_id: field.staffId });
  const checkIn = await visit(staffHeaders(field), {
    task_id: task.taskId,
    action: "check_in",
    ...near(task.place, 30, 12),
  });
  expect(checkIn.body.status).toBe("on_site");
  return task;
}

async function filesOf(taskId: string) {
  return (await getDb())
    .select({ sha256: proofFiles.sha256, filename: proofFiles.filename, capture: proofFiles.capture })
    .from(proofFiles)
    .where(eq(proofFiles.taskId, taskId))
    .orderBy(proofFiles.createdAt, proofFiles.position);
}

describe("proof from the field, one file per request", () => {
  it("GET answers a stored photo's bytes to its assignee (thumbnails after a reload); others get 403, an unknown hash or a non-image 404", async () => {
    const { taskId } = await onSite();
    const up = await uploadProof(staffHeaders(field), { task_id: taskId, file: photo });
    expect(up.res.status).toBe(200);
    const sha = up.body.file.sha256 as string;
    const get = (headers: Record<string, string>, hash = sha) =>
      proofGet(
        new Request(`http://localhost:3000/api/field-proof?task_id=${taskId}&sha256=${hash}`, { headers }),
      );
    const res = await get(staffHeaders(field));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
    expect(Buffer.from(await res.arrayBuffer()).equals(jpeg)).toBe(true);
    // The field app's read: another field person, or a dispatcher (no tasks.execute), gets 403.
    expect((await get(staffHeaders(dispatcher))).status).toBe(403);
    const foreign = await get(staffHeaders(other));
    expectEnvelope(await foreign.json(), foreign, 403, "FORBIDDEN");
    const unknown = await get(staffHeaders(field), "0".repeat(64));
    expect(expectEnvelope(await unknown.json(), unknown, 404, "NOT_FOUND").field).toBe("sha256");
    const malformed = await get(staffHeaders(field), "not-a-hash");
    expectEnvelope(await malformed.json(), malformed, 422, "VALIDATION_ERROR");
    // A PDF is proof, not a thumbnail.
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
    const doc = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: { filename: "report.pdf", type: "application/pdf", content: pdf.toString("base64") },
    });
    expect(doc.res.status, JSON.stringify(doc.body)).toBe(200);
    const notImage = await get(staffHeaders(field), doc.body.file.sha256);
    expectEnvelope(await notImage.json(), notImage, 404, "NOT_FOUND");
  });

  it("is retry-safe: the same Idempotency-Key replays, the same content is stored once; audited", async () => {
    const { taskId } = await onSite();
    const first = await uploadProof(staffHeaders(field), { task_id: taskId, file: photo }, "upload-1");
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      task_id: taskId,
      files_count: 1,
      file: { filename: "front.jpg", type: "image/jpeg", size: jpeg.length },
    });
    // Checked in just now; the fixture was taken in 2026-11-20 15:30Z: outside the visit, flagged.
    expect(first.body.file.capture).toMatchObject({ within_site_visit: false });
    expect(first.body.file.capture.flags).toContain("OUTSIDE_SITE_VISIT");

    const replay = await uploadProof(staffHeaders(field), { task_id: taskId, file: photo }, "upload-1");
    expect(replay.res.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const sameContent = await uploadProof(staffHeaders(field), { task_id: taskId, file: photo }, "upload-2");
    expect(sameContent.body.files_count).toBe(1);
    expect(await filesOf(taskId)).toHaveLength(1);
    const uploads = await (await getDb())
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, taskId), eq(auditLog.action, "proof.upload")));
    expect(uploads.map((r) => [r.actorKind, r.actorId, r.actorRole])).toEqual([
      ["staff", field.staffId, "field"],
    ]);
  });

  it("refuses another person's task (403), bad content (422 on file.content) and a finished task (409)", async () => {
    const { taskId } = await onSite();
    const notMine = await uploadProof(staffHeaders(other), { task_id: taskId, file: photo });
    expectEnvelope(notMine.body, notMine.res, 403, "FORBIDDEN");
    const lie = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: { ...photo, type: "image/png" },
    });
    expect(expectEnvelope(lie.body, lie.res, 422, "VALIDATION_ERROR").field).toBe("file.content");
    const badBase64 = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: { ...photo, content: "not base64!" },
    });
    expect(badBase64.res.status).toBe(400);
    expect(badBase64.body.error.field).toBe("file.content");
    await call(complete, "/api/task-complete", {
      method: "POST",
      headers: { "x-api-key": admin },
      json: { task_id: taskId, action: "fail", reason: "closed" },
    });
    const late = await uploadProof(staffHeaders(field), { task_id: taskId, file: photo });
    expect(expectEnvelope(late.body, late.res, 409, "CONFLICT").current_status).toBe("failed");
  });

  it("a crash between upload and completion leaves the files attached and the task as it was", async () => {
    const { taskId } = await onSite();
    await uploadProof(staffHeaders(field), { task_id: taskId, file: photo });
    // …the phone dies here: no completion.
    const status = await getStatus(taskId, { "x-api-key": admin });
    expect(status.body.status).toBe("on_site");
    expect(status.body.receipt).toBeUndefined();
    expect(await filesOf(taskId)).toHaveLength(1);
    const list = await myTasks(staffHeaders(field));
    const mine = list.body.tasks.find((t: { task_id: string }) => t.task_id === taskId);
    expect(mine.proof_files.map((f: { filename: string }) => f.filename)).toEqual(["front.jpg"]);
  });

  it("completion includes the uploaded files (receipt, event, status, callback) with the site visit", async () => {
    const { taskId } = await onSite();
    const up = await uploadProof(staffHeaders(field), { task_id: taskId, file: photo });
    const extra = pngProof("receipt.png");
    const done = await call(complete, "/api/task-complete", {
      method: "POST",
      headers: staffHeaders(field),
      json: {
        task_id: taskId,
        action: "complete",
        operator_notes: "Storefront photographed.",
        proof_files: [extra],
      },
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.proof_files.map((f: { filename: string }) => f.filename)).toEqual([
      "front.jpg",
      "receipt.png",
    ]);
    const visitView = done.body.site_visit;
    expect(visitView).toMatchObject({ accuracy_m: 12, within_geofence: true, checked_out_at: null });

    const claims = claimsOf(done.body.receipt);
    const png = sampleProofPng("proof").bytes;
    expect(claims.proof.map((p: { sha256: string }) => p.sha256)).toEqual([
      up.body.file.sha256,
      (await filesOf(taskId))[1]!.sha256,
    ]);
    expect(claims.proof[1].size).toBe(png.length);
    expect(claims.site_visit).toEqual(visitView);

    const [event] = await (await getDb())
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.taskId, taskId), eq(taskEvents.type, "task.completed")));
    expect(event!.payload).toMatchObject({ proof_files_count: 2, site_visit: visitView });
    expect((event!.payload.proof_files as { filename: string }[]).map((f) => f.filename)).toEqual([
      "front.jpg",
      "receipt.png",
    ]);
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, taskId));
    const callback = callbackBody(event!, task!, 2);
    expect(callback.site_visit).toEqual(visitView);
    expect(callback.receipt).toBe(done.body.receipt);

    // The requester's view carries the visit too.
    const mine = await getStatus(taskId, { "x-api-key": agent });
    expect(mine.body.site_visit).toEqual(visitView);
    expect(mine.body.at_risk_at).toBeUndefined();
  });

  it("a task completed without a visit has site_visit null in its status and receipt", async () => {
    const { taskId } = await paidTask(admin, agent);
    const done = await call(complete, "/api/task-complete", {
      method: "POST",
      headers: { "x-api-key": admin },
      json: { task_id: taskId, action: "complete", no_visit_reason: "Test: completed without a site visit" },
    });
    expect(done.body.site_visit).toBeNull();
    expect(claimsOf(done.body.receipt).site_visit).toBeNull();
  });
});

describe("deadline watch", () => {
  it("flags a paid task with less than a quarter of its window left, once (event, audit, views)", async () => {
    const near = await paidTask(admin, agent);
    const far = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: near.taskId, staff_id: field.staffId });
    const now = Date.now();
    const db = await getDb();
    // 72 h window, 10 h left (< 18 h): at risk. The other one: 60 h left.
    await db
      .update(tasks)
      .set({ paidAt: new Date(now - 62 * 3_600_000), executionDeadline: new Date(now + 10 * 3_600_000) })
      .where(eq(tasks.id, near.taskId));
    await db
      .update(tasks)
      .set({ paidAt: new Date(now - 12 * 3_600_000), executionDeadline: new Date(now + 60 * 3_600_000) })
      .where(eq(tasks.id, far.taskId));

    // Judged at `now`, the clock the deadlines above were set from: 600 minutes left exactly,
    // however long the updates took.
    const first = await deadlineWatch(new Date(now));
    expect(first).toMatchObject({ ok: true, details: { flagged: 1 } });
    const second = await deadlineWatch(new Date(now));
    expect(second).toMatchObject({ ok: true, details: { flagged: 0 } });

    const events = await db.select().from(taskEvents).where(eq(taskEvents.type, "task.at_risk"));
    expect(events.map((e) => e.taskId)).toEqual([near.taskId]);
    expect(events[0]!.payload).toMatchObject({ status: "paid", assigned: true, minutes_left: 600 });
    const [row] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, near.taskId), eq(auditLog.action, "task.at_risk")));
    expect([row!.actorKind, row!.actorId]).toEqual(["system", "deadline-watch"]);

    const adminView = await getStatus(near.taskId, { "x-api-key": admin });
    expect(adminView.body.at_risk_at).toMatch(/^\d{4}-/);
    expect((await getStatus(far.taskId, { "x-api-key": admin })).body.at_risk_at).toBeNull();
    const list = await myTasks(staffHeaders(field));
    expect(list.body.tasks.find((t: { task_id: string }) => t.task_id === near.taskId).at_risk).toBe(true);
  });
});

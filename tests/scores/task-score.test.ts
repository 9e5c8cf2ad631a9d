/** Task scores: once per finished task by its submitting key; one score or aggregate reputation; bad inputs. */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as scoreGet, POST as scorePost } from "../../api/task-score.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { completeTask, recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let admin: string;
let owner: string;
let stranger: string;
const done: string[] = [];
let failed: string;
let open: string;
let sandboxDone: string;

async function finishedTask(service: string, end: "complete" | "fail", headers: Record<string, string> = {}) {
  const { body } = await submitTask({ ...validTask, service_type: service }, keyHeaders(owner, headers));
  await reviewTask(admin, { task_id: body.task_id, action: "approve" });
  await recordPayment(admin, { task_id: body.task_id, note: "test" });
  await completeTask(admin, {
    task_id: body.task_id,
    action: end,
    ...(end === "fail" ? { reason: "closed" } : { no_visit_reason: "Test: completed without a site visit" }),
  });
  return body.task_id as string;
}

const score = (key: string, json: Record<string, unknown>) =>
  call(scorePost, "/api/task-score", { method: "POST", headers: keyHeaders(key), json });
const read = (query = "", headers: Record<string, string> = {}) =>
  call(scoreGet, `/api/task-score${query}`, { headers });

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create"], "rater@example.com");
  stranger = await makeKey(["audit_only", "task_create"], "stranger@example.com");
  done.push(
    await finishedTask("SVC-01", "complete"),
    await finishedTask("SVC-01", "complete"),
    await finishedTask("SVC-05", "complete"),
  );
  failed = await finishedTask("SVC-05", "fail");
  open = (await submitTask(validTask, keyHeaders(owner))).body.task_id;
  sandboxDone = (await submitTask(validTask, keyHeaders(owner, { "x-service-mode": "sandbox" }))).body
    .task_id;
  for (let i = 0; i < 5; i++) await call(scoreGet, "/api/task-score"); // no-op reads
  const { GET: status } = await import("../../api/submit-task.js");
  for (let i = 0; i < 4; i++)
    await call(status, `/api/submit-task?task_id=${sandboxDone}`, { headers: keyHeaders(owner) });
});

describe("POST /api/task-score", () => {
  it("records a score once (201, then 409)", async () => {
    const { res, body } = await score(owner, {
      task_id: done[0],
      rating: 5,
      outcome: "completed",
      feedback: "Great, photos sharp",
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      task_id: done[0],
      rating: 5,
      outcome: "completed",
      service_type: "SVC-01",
      feedback: "Great, photos sharp",
    });
    const again = await score(owner, { task_id: done[0], rating: 1 });
    expectEnvelope(again.body, again.res, 409, "CONFLICT");
  });

  it("defaults the outcome from the task's end", async () => {
    expect((await score(owner, { task_id: done[1], rating: 3 })).body.outcome).toBe("completed");
    expect((await score(owner, { task_id: failed, rating: 1 })).body.outcome).toBe("not_completed");
    await score(owner, { task_id: done[2], rating: 4, outcome: "partially_completed" });
    expect((await score(owner, { task_id: sandboxDone, rating: 2 })).res.status).toBe(201);
  });

  it.each([
    [() => ({ task_id: "TASK-NOPE-NOPE", rating: 4 }), () => owner, 404, "NOT_FOUND"],
    [() => ({ task_id: done[1], rating: 4 }), () => stranger, 403, "FORBIDDEN"],
    [() => ({ task_id: open, rating: 4 }), () => owner, 409, "CONFLICT"],
    [() => ({ task_id: open, rating: 0 }), () => owner, 422, "VALIDATION_ERROR"],
    [() => ({ task_id: open, rating: 6 }), () => owner, 422, "VALIDATION_ERROR"],
    // spec "POST /api/task-score": "422 validation" (docs/spec-precedence.md)
    [() => ({ task_id: open, rating: 4.5 }), () => owner, 422, "VALIDATION_ERROR"],
    [() => ({ task_id: open, rating: 0.5 }), () => owner, 422, "VALIDATION_ERROR"],
    [() => ({ task_id: open, rating: "5" }), () => owner, 400, "INVALID_FORMAT"],
    [() => ({ task_id: open }), () => owner, 400, "MISSING_FIELD"],
    [() => ({ rating: 3 }), () => owner, 400, "MISSING_FIELD"],
    [() => ({ task_id: open, rating: 3, outcome: "meh" }), () => owner, 422, "VALIDATION_ERROR"],
    [() => ({ task_id: open, rating: 3, feedback: "x".repeat(2001) }), () => owner, 422, "FIELD_TOO_LONG"],
  ])("refuses case %#", async (json, key, status, code) => {
    const { res, body } = await score(key(), json());
    expectEnvelope(body, res, status, code);
  });

  it("needs a key", async () => {
    const { res, body } = await call(scorePost, "/api/task-score", {
      method: "POST",
      json: { task_id: done[1], rating: 3 },
    });
    expectEnvelope(body, res, 401, "UNAUTHORIZED");
  });
});

describe("GET /api/task-score", () => {
  it("returns one task's score; feedback only for the owner", async () => {
    const anon = await read(`?task_id=${done[0]}`);
    expect(anon.body).toMatchObject({ task_id: done[0], rating: 5 });
    expect(anon.body.feedback).toBeUndefined();
    const mine = await read(`?task_id=${done[0]}`, keyHeaders(owner));
    expect(mine.body.feedback).toBe("Great, photos sharp");
    const none = await read(`?task_id=${open}`);
    expectEnvelope(none.body, none.res, 404, "NOT_FOUND");
    const unknown = await read("?task_id=TASK-NOPE-NOPE");
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
  });

  it("aggregates reputation over real tasks: count, average, distribution, per service and outcome", async () => {
    const { body } = await read();
    expect(body).toEqual({
      count: 4,
      average_rating: 3.25,
      distribution: { "1": 1, "2": 0, "3": 1, "4": 1, "5": 1 },
      by_service: [
        { service_type: "SVC-01", count: 2, average_rating: 4 },
        { service_type: "SVC-05", count: 2, average_rating: 2.5 },
      ],
      by_outcome: { completed: 2, not_completed: 1, partially_completed: 1 },
    });
    const svc = await read("?service_type=SVC-05");
    expect(svc.body).toMatchObject({ count: 2, average_rating: 2.5, service_type: "SVC-05" });
    const bad = await read("?service_type=SVC-99");
    expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR");
  });
});

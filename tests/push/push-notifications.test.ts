/**
 * Staff push notifications (issue 44 item 6; docs/notifications.md "Push notifications") against a
 * Web Push stand-in on 127.0.0.1 (./push-service.ts: RFC 8030 delivery, RFC 8292 VAPID checked with
 * the published public key, RFC 8291 payload decrypted with the subscription's private key): a
 * subscription per staff session; an assignment pushes once to the assignee in their language; a
 * refused assignment pushes nothing; 410 removes the subscription; sign-out and suspension remove
 * it; a task at risk pushes its assignee; a review wait pushes the reviewers once per task.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as staffPost } from "../../api/staff.js";
import { POST as staffAuthPost } from "../../api/staff-auth.js";
import { GET as pushGet, POST as pushPost } from "../../api/staff-push.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { pushMessages, pushSubscriptions, tasks } from "../../lib/db/schema/index.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { deadlineWatch } from "../../lib/jobs/deadline-watch.js";
import { vapidDetails } from "../../lib/push/vapid.js";
import { assign, paidTask } from "../field/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { envOverrides } from "../helpers/env.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { submitTask, validTask } from "../helpers/tasks.js";
import { type PushService, startPushService, type TestSubscription } from "./push-service.js";

useTestDatabase();
// Each test enrols staff (bcrypt, TOTP) and runs the outbox: seconds on an idle machine, much more
// with a CPU hog on every core. A guard against a hang, not a speed claim.
vi.setConfig({ testTimeout: 120_000 });

const env = envOverrides(resetConfig);
let service: PushService;
let publicKey = "";
let admin: string;
let agent: string;
let dispatcher: TestStaff;

beforeAll(async () => {
  env.set({ ALLOW_PRIVATE_CALLBACKS: "true", PUSH_REVIEW_WAIT_MINUTES: "30", WEBHOOK_TIMEOUT_MS: "10000" });
  publicKey = (await vapidDetails())!.publicKey;
  service = await startPushService(() => publicKey);
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  dispatcher = await createStaff("dispatcher");
});

afterAll(async () => {
  await service.close();
  env.restore();
});

function subscribe(staff: TestStaff, sub: Pick<TestSubscription, "endpoint" | "keys">, lang = "en") {
  return call(pushPost, "/api/staff-push", {
    method: "POST",
    headers: { ...staffHeaders(staff), "idempotency-key": randomUUID() },
    json: {
      action: "subscribe",
      subscription: { endpoint: sub.endpoint, expirationTime: null, keys: sub.keys },
      lang,
    },
  });
}

async function subscribed(staff: TestStaff, lang = "en"): Promise<TestSubscription> {
  const sub = service.subscribe();
  const res = await subscribe(staff, sub, lang);
  expect(res.res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ ok: true, subscribed: true });
  return sub;
}

/** Runs the outbox until nothing is due (as the kick after a commit, or the cron, would). */
async function drain() {
  for (let i = 0; i < 5; i++) {
    const r = await processOutbox({ budgetMs: 20_000 });
    if (r.dispatched_events + r.pushes_sent + r.pushes_failed + r.subscriptions_gone === 0) return;
  }
}

const pushesTo = (sub: TestSubscription) => service.received.filter((p) => p.endpoint === sub.endpoint);

async function subscriptionRows(endpoint: string) {
  const db = await getDb();
  return db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, endpoint));
}

describe("subscriptions", () => {
  it("GET /api/staff-push gives a staff session the VAPID public key and what it is pushed; no session → 403", async () => {
    const field = await createStaff("field");
    const res = await call(pushGet, "/api/staff-push", { headers: staffHeaders(field) });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      enabled: true,
      subscriptions: 0,
      kinds: ["task_assigned", "task_at_risk"],
    });
    const key = Buffer.from(res.body.public_key as string, "base64url");
    expect(key).toHaveLength(65);
    expect(key[0]).toBe(4);
    expect(res.body.public_key).toBe(publicKey);
    const reviewer = await createStaff("reviewer");
    const r = await call(pushGet, "/api/staff-push", { headers: staffHeaders(reviewer) });
    expect(r.body.kinds).toEqual(["review_waiting"]);
    const anonymous = await call(pushGet, "/api/staff-push", {});
    expectEnvelope(anonymous.body, anonymous.res, 403, "FORBIDDEN");
    const key2 = await call(pushGet, "/api/staff-push", { headers: keyHeaders(admin) });
    expectEnvelope(key2.body, key2.res, 403, "FORBIDDEN");
  });

  it("refuses malformed keys (422) and, unless ALLOW_PRIVATE_CALLBACKS, a loopback http endpoint (422 on subscription.endpoint)", async () => {
    const field = await createStaff("field");
    const sub = service.subscribe();
    const bad = await subscribe(field, {
      endpoint: sub.endpoint,
      keys: { p256dh: "abc", auth: sub.keys.auth },
    });
    expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR");
    env.set({ ALLOW_PRIVATE_CALLBACKS: "false" });
    try {
      const res = await subscribe(field, sub);
      expect(expectEnvelope(res.body, res.res, 422, "VALIDATION_ERROR").field).toBe("subscription.endpoint");
    } finally {
      env.set({ ALLOW_PRIVATE_CALLBACKS: "true" });
    }
    expect(await subscriptionRows(sub.endpoint)).toHaveLength(0);
  });
});

describe("assignment and at-risk pushes", () => {
  it("an assignment sends one push to the assignee's subscription, in their language, opening the task; others get nothing", async () => {
    const field = await createStaff("field", "Sam");
    const other = await createStaff("field", "Alex");
    const mine = await subscribed(field, "fr");
    const theirs = await subscribed(other, "en");
    const { taskId } = await paidTask(admin, agent);
    const res = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    await drain();
    expect(service.refused).toEqual([]);
    expect(pushesTo(mine)).toHaveLength(1);
    const push = pushesTo(mine)[0]!;
    expect(push.payload).toEqual({
      kind: "task_assigned",
      task_id: taskId,
      title: "Nouvelle tâche assignée",
      body: expect.stringContaining(taskId),
      url: `/field/#/task/${taskId}`,
      tag: `task_assigned:${taskId}`,
    });
    expect(push.payload.body).toMatch(/à faire avant le .*heure de Montréal/);
    expect(push.ttl).toBe(12 * 3600);
    expect(push.urgency).toBe("high");
    expect(push.claims.sub).toMatch(/^mailto:/);
    expect(pushesTo(theirs)).toHaveLength(0);
    // Running the outbox again sends nothing more (the message is recorded sent).
    await drain();
    expect(pushesTo(mine)).toHaveLength(1);
    const db = await getDb();
    const [row] = await db.select().from(pushMessages).where(eq(pushMessages.taskId, taskId));
    expect(row).toMatchObject({ status: "sent", attempts: 1, lastStatus: 201, kind: "task_assigned" });
  });

  it("a refused assignment (rolled back: the task is not assignable) pushes nothing", async () => {
    const field = await createStaff("field");
    const sub = await subscribed(field);
    const { body } = await submitTask(validTask, keyHeaders(agent));
    const res = await assign(staffHeaders(dispatcher), { task_id: body.task_id, staff_id: field.staffId });
    expectEnvelope(res.body, res.res, 409, "CONFLICT");
    await drain();
    expect(pushesTo(sub)).toHaveLength(0);
  });

  it("a reassignment before the outbox ran pushes only the person who holds the task", async () => {
    const first = await createStaff("field");
    const second = await createStaff("field");
    const a = await subscribed(first);
    const b = await subscribed(second);
    const { taskId } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: first.staffId });
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: second.staffId });
    await drain();
    expect(pushesTo(a)).toHaveLength(0);
    expect(pushesTo(b).map((p) => p.payload.task_id)).toEqual([taskId]);
  });

  it("a push service answering 410 Gone removes the subscription (and nothing is retried)", async () => {
    const field = await createStaff("field");
    const sub = await subscribed(field);
    service.answer(sub.endpoint, 410);
    const { taskId } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(await subscriptionRows(sub.endpoint)).toHaveLength(1);
    await drain();
    expect(await subscriptionRows(sub.endpoint)).toHaveLength(0);
    const db = await getDb();
    expect(await db.select().from(pushMessages).where(eq(pushMessages.taskId, taskId))).toHaveLength(0);
  });

  it("a 500 is retried later; the failed attempt never fails the assignment", async () => {
    const field = await createStaff("field");
    const sub = await subscribed(field);
    service.answer(sub.endpoint, 500);
    const { taskId } = await paidTask(admin, agent);
    const res = await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    expect(res.res.status).toBe(200);
    await drain();
    const db = await getDb();
    const [row] = await db.select().from(pushMessages).where(eq(pushMessages.taskId, taskId));
    expect(row).toMatchObject({ status: "queued", attempts: 1, lastStatus: 500, error: "HTTP 500" });
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    expect(await subscriptionRows(sub.endpoint)).toHaveLength(1);
  });

  it("the deadline watch's task.at_risk pushes the task's assignee", async () => {
    const field = await createStaff("field");
    const sub = await subscribed(field);
    const { taskId } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    await drain();
    const db = await getDb();
    const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    await deadlineWatch(new Date(task!.executionDeadline.getTime() - 60_000));
    await drain();
    expect(pushesTo(sub).map((p) => p.payload.kind)).toEqual(["task_assigned", "task_at_risk"]);
    expect(pushesTo(sub)[1]!.payload).toMatchObject({
      task_id: taskId,
      title: "Task at risk of being late",
      url: `/field/#/task/${taskId}`,
    });
  });
});

describe("sign-out and suspension", () => {
  it("sign-out removes the session's subscription: a later assignment pushes nothing", async () => {
    const field = await createStaff("field");
    const sub = await subscribed(field);
    const out = await call(staffAuthPost, "/api/staff-auth?action=sign-out", {
      method: "POST",
      headers: staffHeaders(field),
      json: {},
    });
    expect(out.res.status).toBe(200);
    expect(await subscriptionRows(sub.endpoint)).toHaveLength(0);
    const { taskId } = await paidTask(admin, agent);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    await drain();
    expect(pushesTo(sub)).toHaveLength(0);
  });

  it("suspending the account removes its subscriptions", async () => {
    const field = await createStaff("field");
    const sub = await subscribed(field);
    const res = await call(staffPost, "/api/staff", {
      method: "POST",
      headers: { ...keyHeaders(admin), "idempotency-key": randomUUID() },
      json: { action: "suspend", staff_id: field.staffId },
    });
    expect(res.res.status, JSON.stringify(res.body)).toBe(200);
    expect(await subscriptionRows(sub.endpoint)).toHaveLength(0);
  });
});

describe("review wait", () => {
  it("a task received longer than PUSH_REVIEW_WAIT_MINUTES pushes each reviewer once (the console's task), never again", async () => {
    const reviewer = await createStaff("reviewer");
    const field = await createStaff("field");
    const rsub = await subscribed(reviewer, "en");
    const fsub = await subscribed(field);
    const { body } = await submitTask(validTask, keyHeaders(agent));
    const taskId = body.task_id as string;
    const forTask = () => pushesTo(rsub).filter((p) => p.payload.task_id === taskId);
    await deadlineWatch(new Date(Date.now() + 20 * 60_000));
    await drain();
    expect(forTask()).toHaveLength(0);
    const run = await deadlineWatch(new Date(Date.now() + 31 * 60_000));
    expect(run.details, JSON.stringify(run)).toMatchObject({ review_waits: 1, review_pushes: 1 });
    await drain();
    expect(forTask()).toHaveLength(1);
    expect(forTask()[0]!.payload).toMatchObject({
      kind: "review_waiting",
      title: "A task is waiting for review",
      url: `/operator/#/task/${taskId}`,
    });
    expect(forTask()[0]!.urgency).toBe("normal");
    await deadlineWatch(new Date(Date.now() + 45 * 60_000));
    await drain();
    expect(forTask()).toHaveLength(1);
    expect(pushesTo(fsub).filter((p) => p.payload.task_id === taskId)).toHaveLength(0);
  });
});

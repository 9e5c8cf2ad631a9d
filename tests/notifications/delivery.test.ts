/**
 * Webhook and callback delivery against real HTTP receivers on 127.0.0.1: signatures,
 * immediate first attempt, retries, dead-letter queue with fallback e-mail, failures
 * list and replay, slow / down / redirecting receivers, a worker killed mid-delivery,
 * callbacks, sandbox and billing events.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { GET as deliverCron } from "../../api/cron/deliver-webhooks.js";
import { GET as failuresGet, POST as replay } from "../../api/webhooks/[webhook_id]/failures.js";
import { POST as createWebhook } from "../../api/webhooks.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { deliveries, emails, taskEvents } from "../../lib/db/schema/index.js";
import { dispatchEvents } from "../../lib/events/dispatch-events.js";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { prefixedId } from "../../lib/ids.js";
import { authenticateKey } from "../../lib/keys/authenticate.js";
import { claimDueDeliveries } from "../../lib/webhooks/claim-deliveries.js";
import { deliverDue } from "../../lib/webhooks/deliver.js";
import { verifySignature } from "../../lib/webhooks/signature.js";
import { openAccount, openLinkedAccount, registerWeb, webBody } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import {
  completeTask,
  getStatus,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { verifyAddresses } from "../helpers/verified.js";
import { type Receiver, startReceiver } from "./receiver.js";

useTestDatabase();

const receivers: Receiver[] = [];
let admin: string;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  process.env.OUTBOX_KICK = "true";
  // The largest timeout the setting allows: a receiver here answers at once, but on a loaded
  // machine the test process (receiver, worker and PGlite on one event loop) may stall for
  // seconds, and a prompt answer must not be recorded as a timeout (issue 31). The slow-receiver
  // test sets its own 2 s.
  process.env.WEBHOOK_TIMEOUT_MS = "10000";
  resetConfig();
  admin = await makeKey(["admin"]);
  await verifyAddresses("dlq@example.com"); // the fallback e-mail's full text goes to verified addresses
});
afterEach(async () => {
  await outboxIdle();
});
afterAll(async () => {
  await outboxIdle();
  await Promise.all(receivers.map((r) => r.close()));
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  delete process.env.OUTBOX_KICK;
  delete process.env.WEBHOOK_TIMEOUT_MS;
  resetConfig();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

async function webhookFor(key: string, url: string, events: string[]) {
  const { res, body } = await call(createWebhook, "/api/webhooks", {
    method: "POST",
    headers: keyHeaders(key),
    json: { url, events },
  });
  expect(res.status).toBe(201);
  return body as { webhook_id: string; secret: string };
}

async function deliveriesOf(webhookId: string) {
  const db = await getDb();
  return db.select().from(deliveries).where(eq(deliveries.webhookId, webhookId));
}

/**
 * The deliveries of `webhookId` once each of the `count` expected has its attempt recorded (not
 * in flight, at least one attempt): the worker records an outcome only after the receiver's
 * answer, so a test that saw the request arrive waits here for the row it asserts (bounded).
 */
async function recordedDeliveriesOf(webhookId: string, count = 1) {
  await outboxIdle();
  await expect
    .poll(
      async () =>
        (await deliveriesOf(webhookId)).filter((d) => d.status !== "delivering" && d.attempts > 0).length,
      { timeout: 15_000, interval: 50 },
    )
    .toBeGreaterThanOrEqual(count);
  return deliveriesOf(webhookId);
}

/** Makes every pending delivery of `webhookId` due now and runs the worker once. */
async function retryNow(webhookId: string) {
  await outboxIdle();
  const db = await getDb();
  await db
    .update(deliveries)
    .set({ nextAttemptAt: new Date(Date.now() - 1000) })
    .where(and(eq(deliveries.webhookId, webhookId), eq(deliveries.status, "pending")));
  return deliverDue();
}

describe("signed webhook deliveries", () => {
  it("delivers each subscribed event right after commit, signed, with the contract's body and headers", async () => {
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    const hook = await webhookFor(key, `${r.url}/hooks`, ["task.created", "task.accepted"]);
    const { body: task } = await submitTask(validTask, keyHeaders(key));
    const [first] = await r.waitFor(1);
    expect(first!.method).toBe("POST");
    expect(first!.path).toBe("/hooks");
    expect(first!.headers["content-type"]).toBe("application/json");
    expect(first!.headers["x-service-event"]).toBe("task.created");
    const body = JSON.parse(first!.rawBody);
    expect(Object.keys(body)).toEqual(["event_id", "event", "created_at", "data"]);
    expect(body).toMatchObject({
      event: "task.created",
      data: { task_id: task.task_id, status: "received", service_type: "SVC-01", sandbox: false },
    });
    expect(first!.headers["x-service-delivery"]).toBe(body.event_id);
    expect(body.event_id).toMatch(/^evt_/);
    const verdict = verifySignature({
      secret: hook.secret,
      header: first!.headers["x-service-signature"] as string,
      timestamp: first!.headers["x-service-timestamp"] as string,
      rawBody: first!.rawBody,
    });
    expect(verdict.ok).toBe(true);
    expect(
      verifySignature({
        secret: "whsec_wrong",
        header: first!.headers["x-service-signature"] as string,
        timestamp: first!.headers["x-service-timestamp"] as string,
        rawBody: first!.rawBody,
      }).ok,
    ).toBe(false);

    await reviewTask(admin, { task_id: task.task_id, action: "approve", price_cad: 300 });
    const [, second] = await r.waitFor(2);
    expect(second!.headers["x-service-event"]).toBe("task.accepted");
    expect(JSON.parse(second!.rawBody).data).toMatchObject({
      status: "accepted_pending_payment",
      previous_status: "received",
    });
    const rows = await recordedDeliveriesOf(hook.webhook_id, 2);
    expect(rows.map((d) => [d.event, d.status, d.attempts, d.lastHttpStatus])).toEqual(
      expect.arrayContaining([
        ["task.created", "delivered", 1, 200],
        ["task.accepted", "delivered", 1, 200],
      ]),
    );
    // Unsubscribed events are not sent; other keys' webhooks get nothing.
    expect(r.requests).toHaveLength(2);
  });

  it("retries after failures, dead-letters after 4 attempts, e-mails the requester and lists every attempt", async () => {
    const r = await receiver(() => ({ status: 500 }));
    const key = await makeKey(["audit_only", "task_create"]);
    const hook = await webhookFor(key, `${r.url}/down`, ["task.created"]);
    const { body: task } = await submitTask(
      { ...validTask, requester_contact: "dlq@example.com" },
      keyHeaders(key),
    );
    await r.waitFor(1);
    let [d] = await recordedDeliveriesOf(hook.webhook_id);
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: 500 });
    const wait = d!.nextAttemptAt.getTime() - d!.attemptedAt[0]!.getTime();
    expect(wait).toBe(30_000); // first retry after 30 s
    // Not due yet: a worker run sends nothing.
    expect((await deliverDue()).claimed).toBe(0);

    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await retryNow(hook.webhook_id);
      [d] = await deliveriesOf(hook.webhook_id);
      if (d!.status === "pending") delays.push(d!.nextAttemptAt.getTime() - d!.attemptedAt.at(-1)!.getTime());
    }
    expect(delays).toEqual([300_000, 1_800_000]);
    expect(r.requests).toHaveLength(4);
    expect(d).toMatchObject({ status: "dead", attempts: 4, lastHttpStatus: 500 });
    expect(d!.attemptedAt).toHaveLength(4);
    expect(d!.expiresAt!.getTime() - d!.deadAt!.getTime()).toBe(72 * 3600_000);

    // The fallback e-mail is queued with the death and sent by the mail worker.
    await processOutbox();
    const db = await getDb();
    const [mail] = await db
      .select()
      .from(emails)
      .where(eq(emails.dedupeKey, `webhook-fallback:${d!.id}`));
    expect(mail).toMatchObject({
      toAddress: "dlq@example.com",
      status: "sent",
      provider: "outbox",
      lang: "fr",
    });
    expect(mail!.textBody).toContain(task.task_id);
    expect(mail!.textBody).toContain(`/api/webhooks/${hook.webhook_id}/failures`);

    const list = await call(failuresGet, `/api/webhooks/${hook.webhook_id}/failures`, {
      headers: keyHeaders(key),
    });
    expect(list.res.status).toBe(200);
    expect(list.body.total).toBe(1);
    const f = list.body.failures[0];
    expect(f).toMatchObject({
      event_id: d!.eventId,
      task_id: task.task_id,
      event: "task.created",
      last_http_status: 500,
      fallback_email_sent: true,
      payload: { event: "task.created", data: { task_id: task.task_id } },
    });
    expect(f.attempted_at).toHaveLength(4);
    expect(Date.parse(f.expires_at)).toBeGreaterThan(Date.now() + 71 * 3600_000);

    // Replay once the receiver is back: delivered, out of the queue, history kept.
    r.respond = () => ({ status: 204 });
    const replayed = await call(replay, `/api/webhooks/${hook.webhook_id}/failures`, {
      method: "POST",
      headers: keyHeaders(key),
      json: { event_id: d!.eventId },
    });
    expect(replayed.res.status).toBe(202);
    expect(replayed.body).toMatchObject({
      webhook_id: hook.webhook_id,
      event_id: d!.eventId,
      status: "pending",
    });
    await r.waitFor(5);
    await outboxIdle();
    await expect
      .poll(async () => (await deliveriesOf(hook.webhook_id))[0]!.status, { timeout: 15_000 })
      .toBe("delivered");
    [d] = await deliveriesOf(hook.webhook_id);
    expect(d).toMatchObject({ status: "delivered", lastHttpStatus: 204 });
    expect(d!.attemptedAt).toHaveLength(5);
    expect(JSON.parse(r.requests[4]!.rawBody).event_id).toBe(d!.eventId);
    const after = await call(failuresGet, `/api/webhooks/${hook.webhook_id}/failures`, {
      headers: keyHeaders(key),
    });
    expect(after.body.total).toBe(0);
  });

  it("a slow receiver does not hold up a fast one; it times out and is retried later", async () => {
    process.env.WEBHOOK_TIMEOUT_MS = "5000";
    resetConfig();
    onTestFinished(() => {
      process.env.WEBHOOK_TIMEOUT_MS = "10000";
      resetConfig();
    });
    const slow = await receiver(() => ({ hang: true }));
    const fast = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    const slowHook = await webhookFor(key, `${slow.url}/slow`, ["task.created"]);
    await webhookFor(key, `${fast.url}/fast`, ["task.created"]);
    await submitTask(validTask, keyHeaders(key));
    await fast.waitFor(1);
    // Order, not a stopwatch: when the fast request arrives (waitFor resumes in that very turn of
    // the event loop), the slow one has not been given up (its connection is still open, if it was
    // sent yet). A worker that waited for the slow attempt would send the fast one after its 5 s.
    expect(slow.requests.every((r) => r.closedAt === undefined)).toBe(true);
    const [d] = await recordedDeliveriesOf(slowHook.webhook_id);
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: null });
    expect(d!.lastError).toMatch(/timed out after 5000 ms/);
    expect(slow.requests).toHaveLength(1);
    // Given up by the worker, never answered (the receiver sees the close a moment later).
    await expect.poll(() => slow.requests[0]!.closedAt, { timeout: 10_000 }).toBeDefined();
  });

  it("records a receiver that is down (no status) and a redirect (not followed) as failures", async () => {
    const gone = await startReceiver();
    const downUrl = `${gone.url}/gone`;
    await gone.close();
    const target = await receiver();
    const redirecting = await receiver(() => ({
      status: 302,
      headers: { location: `${target.url}/stolen` },
    }));
    const key = await makeKey(["audit_only", "task_create"]);
    const downHook = await webhookFor(key, downUrl, ["task.created"]);
    const redirectHook = await webhookFor(key, `${redirecting.url}/r`, ["task.created"]);
    await submitTask(validTask, keyHeaders(key));
    await redirecting.waitFor(1);
    const [down] = await recordedDeliveriesOf(downHook.webhook_id);
    expect(down).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: null });
    expect(down!.lastError).toMatch(/fetch failed|ECONNREFUSED/);
    const [redirected] = await recordedDeliveriesOf(redirectHook.webhook_id);
    expect(redirected).toMatchObject({ status: "pending", attempts: 1, lastHttpStatus: 302 });
    expect(redirected!.lastError).toMatch(/redirect not followed/);
    expect(target.requests).toHaveLength(0);
  });

  it("cancels pending deliveries of a deleted webhook", async () => {
    const r = await receiver(() => ({ status: 503 }));
    const key = await makeKey(["audit_only", "task_create"]);
    const hook = await webhookFor(key, `${r.url}/x`, ["task.created"]);
    await submitTask(validTask, keyHeaders(key));
    await r.waitFor(1);
    await recordedDeliveriesOf(hook.webhook_id);
    const { DELETE } = await import("../../api/webhooks.js");
    await call(DELETE, "/api/webhooks", {
      method: "DELETE",
      headers: keyHeaders(key),
      json: { webhook_id: hook.webhook_id },
    });
    const [d] = await deliveriesOf(hook.webhook_id);
    expect(d!.status).toBe("cancelled");
    expect((await retryNow(hook.webhook_id)).claimed).toBe(0);
    expect(r.requests).toHaveLength(1);
  });
});

describe("a worker killed mid-delivery", () => {
  beforeAll(() => {
    process.env.OUTBOX_KICK = "false";
    resetConfig();
  });
  afterAll(() => {
    process.env.OUTBOX_KICK = "true";
    resetConfig();
  });

  it("loses nothing: the lease lapses and the delivery is sent exactly once", async () => {
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    const hook = await webhookFor(key, `${r.url}/lease`, ["task.created"]);
    await submitTask(validTask, keyHeaders(key));
    expect((await dispatchEvents()).deliveries).toBeGreaterThanOrEqual(1);
    // A worker claims it, then dies before sending (nothing recorded).
    const claimed = await claimDueDeliveries(100, new Date());
    expect(claimed.map((c) => c.webhookId)).toContain(hook.webhook_id);
    expect((await deliverDue()).claimed).toBe(0); // leased: nobody else takes it
    expect(r.requests).toHaveLength(0);
    const db = await getDb();
    await db
      .update(deliveries)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(deliveries.webhookId, hook.webhook_id));
    const run = await deliverDue();
    expect(run.delivered).toBeGreaterThanOrEqual(1);
    expect((await deliverDue()).claimed).toBe(0);
    expect(r.requests).toHaveLength(1);
    const [d] = await deliveriesOf(hook.webhook_id);
    expect(d).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("claims a delivery due earlier in the claim's own millisecond, not one due after it", async () => {
    // The column keeps microseconds, a JavaScript Date milliseconds.
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    const same = await webhookFor(key, `${r.url}/same-ms`, ["task.created"]);
    const next = await webhookFor(key, `${r.url}/next-ms`, ["task.created"]);
    await submitTask(validTask, keyHeaders(key));
    await dispatchEvents();
    const db = await getDb();
    const at = (webhookId: string, time: string) =>
      db
        .update(deliveries)
        .set({ nextAttemptAt: sql`${time}::timestamptz` })
        .where(eq(deliveries.webhookId, webhookId));
    await at(same.webhook_id, "2026-01-01T00:00:00.000400Z");
    await at(next.webhook_id, "2026-01-01T00:00:00.001000Z");
    const claimed = await claimDueDeliveries(100, new Date("2026-01-01T00:00:00.000Z"));
    expect(claimed.map((c) => c.webhookId)).toEqual([same.webhook_id]);
    // Leave nothing behind for the next tests' workers.
    await db
      .update(deliveries)
      .set({ status: "delivered", lockedUntil: null })
      .where(inArray(deliveries.webhookId, [same.webhook_id, next.webhook_id]));
  });

  it("the cron endpoint dispatches and delivers what the kick did not", async () => {
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    await webhookFor(key, `${r.url}/cron`, ["task.created"]);
    await submitTask(validTask, keyHeaders(key));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.requests).toHaveLength(0); // kick disabled
    const { res, body } = await call(deliverCron, "/api/cron/deliver-webhooks");
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ job: "deliver-webhooks", ok: true });
    expect(body.details.delivered).toBeGreaterThanOrEqual(1);
    expect(r.requests).toHaveLength(1);
  });
});

describe("per-task callback_url", () => {
  it("receives one unsigned POST on completion with the spec's payload and links, not file bodies", async () => {
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    const { body: task } = await submitTask(
      { ...validTask, callback_url: `${r.url}/cb?x=1` },
      keyHeaders(key),
    );
    await reviewTask(admin, { task_id: task.task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id: task.task_id, note: "test" });
    await completeTask(admin, { task_id: task.task_id, action: "dispatch" });
    await completeTask(admin, {
      task_id: task.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "All good",
      proof_files: [pngProof("a.png"), pngProof("b.png")],
    });
    const [cb] = await r.waitFor(1);
    await outboxIdle();
    expect(r.requests).toHaveLength(1); // only task.completed
    expect(cb!.path).toBe("/cb?x=1");
    expect(cb!.headers["x-service-signature"]).toBeUndefined();
    expect(cb!.headers["x-service-event"]).toBe("task.completed");
    const body = JSON.parse(cb!.rawBody);
    const apiUrl = `http://localhost:3000/api/submit-task?task_id=${task.task_id}`;
    expect(body).toEqual({
      event: "task.completed",
      task_id: task.task_id,
      status: "completed",
      service_type: "SVC-01",
      location_address: validTask.location_address,
      completed_at: expect.any(String),
      operator_notes: "All good",
      proof_files: [`${apiUrl}#proof_files_data/0`, `${apiUrl}#proof_files_data/1`],
      api_url: apiUrl,
      event_id: expect.stringMatching(/^evt_/),
      proof_file_details: [
        {
          filename: "a.png",
          type: "image/png",
          size: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        {
          filename: "b.png",
          type: "image/png",
          size: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ],
      site_visit: null, // completed from the console: no field check-in
      // SVC-01 requires a visit: completed without one, with the reason the test gave (flagged)
      visit_rule: expect.objectContaining({
        rule: "required",
        outcome: "no_visit",
        flags: ["NO_SITE_VISIT"],
      }),
      receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    // links, digests and the signed receipt: no file bodies (each PNG alone is larger)
    expect(cb!.rawBody.length).toBeLessThan(3000);
  });
});

describe("sandbox and billing events", () => {
  it("delivers sandbox tasks' events to webhooks but never e-mails", async () => {
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    await webhookFor(key, `${r.url}/sb`, ["task.created", "task.paid", "task.dispatched", "task.completed"]);
    const { body: task } = await submitTask(validTask, keyHeaders(key, { "x-service-mode": "sandbox" }));
    for (let i = 0; i < 4; i++) await getStatus(task.task_id);
    const got = await r.waitFor(4);
    // Up to WEBHOOK_ENDPOINT_CONCURRENCY deliveries to one endpoint are in flight at
    // once, so their arrival order is not guaranteed: compare the events as a set.
    expect(got.map((g) => g.headers["x-service-event"]).sort()).toEqual(
      ["task.created", "task.paid", "task.dispatched", "task.completed"].sort(),
    );
    for (const g of got) expect(JSON.parse(g.rawBody).data.sandbox).toBe(true);
    const db = await getDb();
    expect(await db.select().from(emails).where(eq(emails.taskId, task.task_id))).toHaveLength(0);
  });

  it("delivers billing events to the key's subscribed webhooks", async () => {
    const r = await receiver();
    const key = await makeKey(["audit_only", "task_create"]);
    const caller = await authenticateKey(key);
    const hook = await webhookFor(key, `${r.url}/billing`, ["billing.low_balance"]);
    const db = await getDb();
    const id = prefixedId("evt");
    await db.insert(taskEvents).values({
      id,
      type: "billing.low_balance",
      apiKeyId: caller.keyId,
      payload: { balance_cad: 12.5, threshold_cad: 50 },
    });
    await processOutbox();
    const [got] = await r.waitFor(1);
    expect(JSON.parse(got!.rawBody)).toMatchObject({
      event_id: id,
      event: "billing.low_balance",
      data: { balance_cad: 12.5 },
    });
    expect(
      verifySignature({
        secret: hook.secret,
        header: got!.headers["x-service-signature"] as string,
        timestamp: got!.headers["x-service-timestamp"] as string,
        rawBody: got!.rawBody,
      }).ok,
    ).toBe(true);
  });

  it("sends an account's own billing events to the key that opened it only while that key is linked", async () => {
    const r = await receiver();
    const db = await getDb();
    const event = async (accountId: string) => {
      const id = prefixedId("evt");
      await db.insert(taskEvents).values({
        id,
        type: "billing.low_balance",
        accountId,
        payload: { balance_cad: 3, threshold_cad: 50 },
      });
      return id;
    };
    // Tenant B's key opens an account with A's address as its contact, and never links it.
    const opener = await makeKey(["audit_only", "task_create"], "account-a@example.com");
    const openerHook = await webhookFor(opener, `${r.url}/opener`, ["billing.low_balance"]);
    const opened = await openAccount(opener);
    expect(opened.res.status).toBe(201);
    const accountId = opened.body.account.account_id as string;
    await event(accountId);
    await processOutbox();
    expect(await deliveriesOf(openerHook.webhook_id)).toEqual([]);

    // The owner of a key who opens and links its account gets the account's events.
    const owner = await makeKey(["audit_only", "task_create"]);
    const ownerHook = await webhookFor(owner, `${r.url}/owner`, ["billing.low_balance"]);
    const linked = await openLinkedAccount(owner);
    const id = await event(linked.body.account.account_id as string);
    await processOutbox();
    const [got] = await r.waitFor(1);
    expect(got!.path).toBe("/owner");
    expect(JSON.parse(got!.rawBody)).toMatchObject({ event_id: id, event: "billing.low_balance" });
    expect(await recordedDeliveriesOf(ownerHook.webhook_id)).toHaveLength(1);
  });
});

describe("account e-mails right after the commit", () => {
  it("sends the verification e-mail of a web registration on the outbox pass, without the cron", async () => {
    const email = "kick-verify@example.com";
    const { res } = await registerWeb(webBody(email));
    expect(res.status).toBe(201);
    await outboxIdle();
    const db = await getDb();
    const rows = await db.select().from(emails).where(eq(emails.toAddress, email));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ template: "account-verify-email", status: "sent" });
  });
});

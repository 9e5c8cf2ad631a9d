/**
 * Law 25 export and erasure stay inside the subject's own rows when another tenant's records
 * name the subject (issue 25, item 2; docs/privacy.md): tenant B submits tasks whose typed
 * `requester_contact` is A's e-mail, has a webhook with deliveries for them, and a key whose
 * contact is A's e-mail opened A's account without being linked to it. A's export holds none of
 * B's rows; A's erasure leaves B's keys, webhooks, deliveries and live tasks intact, and replaces
 * only the requester contact of B's tasks, once each is terminal.
 */
import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as privacyPost } from "../../api/privacy.js";
import { getDb } from "../../lib/db/client.js";
import {
  apiKeys,
  deliveries,
  emails,
  privacyAudit,
  taskEvents,
  tasks,
  webhooks,
} from "../../lib/db/schema/index.js";
import { dispatchEvents } from "../../lib/events/dispatch-events.js";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import { sha256Hex } from "../../lib/ids.js";
import { privacyRetention } from "../../lib/jobs/privacy-retention.js";
import { erasedAddress } from "../../lib/privacy/deidentify.js";
import { processDueErasures } from "../../lib/privacy/erasure.js";
import {
  accountKeys,
  openAccount,
  readAccount,
  setPassword,
  signIn,
  verifyEmail,
} from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { cancelTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const A_EMAIL = "subject-a@tenant-a.example";
const B_HOOK = "https://hooks.tenant-b.example/in";
const A_HOOK = "https://hooks.tenant-a.example/in";
const B_DESCRIPTION = "TENANT-B photograph the warehouse door";

let jwt: string;
let accountId: string;
/** A's own key, linked to A's account by its signed-in owner. */
let aKey: string;
/** The key whose contact is A's e-mail and that opened A's account (held by tenant B), never linked. */
let openerKey: string;
let bKey: string;
let aTaskId: string;
/** B's tasks naming A's e-mail: one still live, one cancelled (terminal) before the erasure. */
let bLiveTaskId: string;
let bDoneTaskId: string;

/** The id of the full key `key` (stored as its SHA-256). */
async function keyIdOf(key: string): Promise<string> {
  const db = await getDb();
  const [row] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256Hex(key)));
  if (!row) throw new Error("key not found");
  return row.id;
}

/** The e-mails of task `taskId` to `to`. */
async function mailsAbout(taskId: string, to: string) {
  const db = await getDb();
  return db
    .select({ id: emails.id })
    .from(emails)
    .where(and(eq(emails.taskId, taskId), eq(emails.toAddress, to)));
}

async function insertHookAndDelivery(keyId: string, id: string, url: string, taskId: string) {
  const db = await getDb();
  const [event] = await db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId)).limit(1);
  await db
    .insert(webhooks)
    .values({ id, apiKeyId: keyId, url, events: ["task.completed"], secretCiphertext: "v1.x" });
  await db.insert(deliveries).values({
    id: `dlv_${id}`,
    eventId: event!.id,
    webhookId: id,
    kind: "webhook",
    url,
    taskId,
    event: "task.completed",
    payload: { task_id: taskId },
  });
}

beforeAll(async () => {
  const scopes = ["audit_only", "task_create", "task_cancel"] as const;
  openerKey = await makeKey([...scopes], A_EMAIL);
  const opened = await openAccount(openerKey, { contact_name: "Subject A" });
  expect(opened.res.status).toBe(201);
  accountId = opened.body.account.account_id;
  await verifyEmail(A_EMAIL);
  await setPassword(A_EMAIL, "subject a password");
  jwt = await signIn(A_EMAIL, "subject a password");
  aKey = await makeKey([...scopes], "agent-a@tenant-a.example");
  const linked = await accountKeys(jwt, { action: "link", api_key: aKey });
  expect(linked.res.status).toBe(200);

  bKey = await makeKey([...scopes], "owner-b@tenant-b.example");
  const aTask = await submitTask({ ...validTask, requester_contact: A_EMAIL }, keyHeaders(aKey));
  expect(aTask.res.status).toBe(201);
  aTaskId = aTask.body.task_id;
  const bLive = await submitTask(
    { ...validTask, requester_contact: A_EMAIL, task_description: B_DESCRIPTION },
    keyHeaders(bKey),
  );
  const bDone = await submitTask(
    { ...validTask, requester_contact: A_EMAIL, task_description: B_DESCRIPTION },
    keyHeaders(bKey),
  );
  expect([bLive.res.status, bDone.res.status]).toEqual([201, 201]);
  bLiveTaskId = bLive.body.task_id;
  bDoneTaskId = bDone.body.task_id;
  expect((await cancelTask(bDoneTaskId, keyHeaders(bKey))).res.status).toBe(200);
  // The outbox writes the e-mails of B's tasks to their requester, A (verified: the full text).
  await outboxIdle();
  await dispatchEvents();
  expect(await mailsAbout(bLiveTaskId, A_EMAIL)).not.toHaveLength(0);
  expect(await mailsAbout(bDoneTaskId, A_EMAIL)).not.toHaveLength(0);

  await insertHookAndDelivery(await keyIdOf(bKey), "wh_tenant_b", B_HOOK, bLiveTaskId);
  await insertHookAndDelivery(await keyIdOf(aKey), "wh_tenant_a", A_HOOK, aTaskId);
});

describe("Law 25 with a foreign tenant naming the subject", () => {
  it("exports A's own rows and none of tenant B's tasks, webhooks, deliveries or keys", async () => {
    const { res, body } = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(res.status).toBe(200);
    const doc = body.export;
    expect(doc.account.id).toBe(accountId);
    expect(doc.api_keys.map((k: { id: string }) => k.id)).toEqual([await keyIdOf(aKey)]);
    expect(doc.tasks.map((t: { id: string }) => t.id)).toEqual([aTaskId]);
    expect(doc.webhooks.map((w: { id: string }) => w.id)).toEqual(["wh_tenant_a"]);
    expect(doc.deliveries.map((d: { id: string }) => d.id)).toEqual(["dlv_wh_tenant_a"]);
    const text = JSON.stringify(doc);
    for (const foreign of [bLiveTaskId, bDoneTaskId, B_HOOK, B_DESCRIPTION, "owner-b@tenant-b.example"]) {
      expect(text, foreign).not.toContain(foreign);
    }
    // The account row names the key that opened it (its own record); that key's row is not exported.
    expect(doc.account.api_key_id).toBe(await keyIdOf(openerKey));
  });

  it("erases A's rows, leaves B's keys, webhooks, deliveries and live task intact, redacts B's terminal task's contact only", async () => {
    const asked = await call(privacyPost, "/api/privacy", {
      method: "POST",
      headers: { authorization: `Bearer ${jwt}` },
      json: { action: "request_erasure" },
    });
    expect(asked.res.status).toBe(200);
    expect(await processDueErasures(new Date())).toBe(1); // no accounting record: due at once

    const db = await getDb();
    const byId = async (id: string) => (await db.select().from(tasks).where(eq(tasks.id, id)))[0]!;
    const erased = erasedAddress(accountId);

    // A's own rows are de-identified, A's key revoked.
    expect((await byId(aTaskId)).requesterContact).toBe(erased);
    const ids = { a: await keyIdOf(aKey), opener: await keyIdOf(openerKey), b: await keyIdOf(bKey) };
    const keys = await db
      .select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt, contact: apiKeys.contact })
      .from(apiKeys)
      .where(inArray(apiKeys.id, Object.values(ids)));
    const revoked = Object.fromEntries(keys.map((k) => [k.id, k.revokedAt !== null]));
    expect(revoked).toEqual({ [ids.a]: true, [ids.opener]: false, [ids.b]: false });
    // The opener key is tenant B's: its typed contact stays.
    expect(keys.find((k) => k.id === ids.opener)?.contact).toBe(A_EMAIL);

    // B's live task: untouched.
    const live = await byId(bLiveTaskId);
    expect(live.requesterContact).toBe(A_EMAIL);
    expect(live.taskDescription).toBe(B_DESCRIPTION);
    expect(live.status).toBe("received");
    // B's terminal task: only the requester's contact replaced.
    const done = await byId(bDoneTaskId);
    expect(done.requesterContact).toBe(erased);
    expect(done.taskDescription).toBe(B_DESCRIPTION);
    // The e-mails B's tasks sent to A: kept, addressed to the erased address once the task is terminal.
    expect(await mailsAbout(bDoneTaskId, A_EMAIL)).toHaveLength(0);
    expect(await mailsAbout(bDoneTaskId, erased)).not.toHaveLength(0);
    expect(await mailsAbout(bLiveTaskId, A_EMAIL)).not.toHaveLength(0);

    // B's webhook and delivery: intact.
    const [hook] = await db.select().from(webhooks).where(eq(webhooks.id, "wh_tenant_b"));
    expect(hook).toMatchObject({ url: B_HOOK, deletedAt: null });
    expect(await db.select().from(deliveries).where(eq(deliveries.id, "dlv_wh_tenant_b"))).toHaveLength(1);
    // A's: gone.
    const [aHook] = await db.select().from(webhooks).where(eq(webhooks.id, "wh_tenant_a"));
    expect(aHook!.deletedAt).not.toBeNull();
    expect(await db.select().from(deliveries).where(eq(deliveries.id, "dlv_wh_tenant_a"))).toHaveLength(0);
  });

  it("replaces the contact of B's task naming A once it becomes terminal (privacy-retention job)", async () => {
    const db = await getDb();
    const run0 = await privacyRetention();
    expect(run0.details).toMatchObject({ named_tasks_redacted: 0 });
    expect((await cancelTask(bLiveTaskId, keyHeaders(bKey))).res.status).toBe(200);
    const run = await privacyRetention();
    expect(run.ok).toBe(true);
    expect(run.details).toMatchObject({ named_tasks_redacted: 1 });
    const [task] = await db.select().from(tasks).where(eq(tasks.id, bLiveTaskId));
    expect(task!.requesterContact).toBe(erasedAddress(accountId));
    expect(task!.taskDescription).toBe(B_DESCRIPTION);
    expect(await mailsAbout(bLiveTaskId, A_EMAIL)).toHaveLength(0);
    expect(await mailsAbout(bLiveTaskId, erasedAddress(accountId))).not.toHaveLength(0);
    const audits = await db
      .select()
      .from(privacyAudit)
      .where(eq(privacyAudit.action, "named_tasks_redacted"));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ accountId, actor: "job", details: { task_ids: [bLiveTaskId] } });
    expect((await privacyRetention()).details).toMatchObject({ named_tasks_redacted: 0 });
  });
});

/**
 * The audit trail (issue 26 item 3; docs/staff-and-audit.md): every audited change leaves exactly
 * one row with the right actor (an admin key as `api_key` with role owner, a requester's key, a
 * signed-in client, an anonymous caller, a job as `system`) and the request's id; the row is
 * written in the change's transaction (a fault injected inside it leaves neither); the table
 * refuses UPDATE, DELETE and TRUNCATE; GET /api/audit-log filters, pages and refuses bad filters
 * in the envelope.
 */
import { eq, gt, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE as keysDelete, POST as keysPost } from "../../api/api-keys.js";
import { GET as auditGet } from "../../api/audit-log.js";
import { POST as resolvePost } from "../../api/dispute-resolve.js";
import { POST as staffPost } from "../../api/staff.js";
import { POST as authPost } from "../../api/staff-auth.js";
import { POST as credentialsPost } from "../../api/staff-credentials.js";
import { POST as disputePost } from "../../api/task-dispute.js";
import { POST as refundPost } from "../../api/task-refund.js";
import { runAsActor, systemActor } from "../../lib/db/actor.js";
import { getDb } from "../../lib/db/client.js";
import { AUDIT_ACTIONS } from "../../lib/db/schema/enums.js";
import { type AuditLogEntry, apiKeys, auditLog, tasks } from "../../lib/db/schema/index.js";
import { deadlineWatch } from "../../lib/jobs/deadline-watch.js";
import { expirePayments } from "../../lib/jobs/expire-payments.js";
import { slaCredits } from "../../lib/jobs/sla-credits.js";
import { recordPayments } from "../../lib/tasks/state/record-payment.js";
import { accountAdmin, accountKeys, openLinkedAccount } from "../accounts/helpers.js";
import { assign, near, uploadProof, visit } from "../field/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { BASE, call, expectEnvelope } from "../helpers/request.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { createStaff, signInStaff, staffHeaders } from "../helpers/staff.js";
import {
  cancelTask,
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

const db = useTestDatabase();

let admin: string;
let adminId: string;
let agent: string;
let agentId: string;
let lastSeen = 0;
const seen = new Set<string>();

async function keyIdOf(contact: string): Promise<string> {
  const [row] = await (await getDb())
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.contact, contact));
  return row!.id;
}

/** The audit rows written since the previous call, in order. */
async function newRows(): Promise<AuditLogEntry[]> {
  const rows = await (await getDb())
    .select()
    .from(auditLog)
    .where(gt(auditLog.id, lastSeen))
    .orderBy(auditLog.id);
  if (rows.length) lastSeen = rows[rows.length - 1]!.id;
  for (const r of rows) seen.add(r.action);
  return rows;
}

/** [action, actor kind, actor id, actor role] of each row. */
const who = (rows: AuditLogEntry[]) => rows.map((r) => [r.action, r.actorKind, r.actorId, r.actorRole]);

beforeAll(async () => {
  admin = await makeKey(["admin"], "audit-admin@example.com");
  adminId = await keyIdOf("audit-admin@example.com");
  agent = await makeKey(["audit_only", "task_create", "task_cancel"], "audit-agent@example.com");
  agentId = await keyIdOf("audit-agent@example.com");
  await newRows();
});

async function submitted(headers: Record<string, string> = keyHeaders(agent)) {
  const { body } = await submitTask(validTask, headers);
  await newRows(); // a submission is not a transition
  return body as { task_id: string; access_token?: string };
}

const OWNER = (action: string) => [action, "api_key", adminId, "owner"];

describe("every audited change leaves one row with its actor", () => {
  it("operator transitions: approve, pay, dispatch, arrive, complete, with the request id", async () => {
    const { task_id } = await submitted();
    const approved = await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    expect(approved.res.status).toBe(200);
    const [row, ...rest] = await newRows();
    expect(rest).toEqual([]);
    expect(who([row!])).toEqual([OWNER("task.approve")]);
    expect(row!.taskId).toBe(task_id);
    expect(row!.requestId).toBe(approved.res.headers.get("x-request-id"));
    expect(row!.details).toMatchObject({ from: "received", to: "accepted_pending_payment" });

    await recordPayment(admin, { task_id, tx_hash: `0x${"12".repeat(32)}`, network: "base" });
    expect(who(await newRows())).toEqual([OWNER("task.pay")]);
    await completeTask(admin, { task_id, action: "dispatch" });
    expect(who(await newRows())).toEqual([OWNER("task.dispatch")]);
    await completeTask(admin, { task_id, action: "on_site" });
    expect(who(await newRows())).toEqual([OWNER("task.arrive")]);
    const done = await completeTask(admin, {
      task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [pngProof()],
    });
    expect(done.res.status).toBe(200);
    expect(who(await newRows())).toEqual([OWNER("task.complete")]);
  });

  it("reject, counter-offer, fail", async () => {
    const a = await submitted();
    await reviewTask(admin, { task_id: a.task_id, action: "reject", reason: "out of scope" });
    expect(who(await newRows())).toEqual([OWNER("task.reject")]);
    const b = await submitted();
    await reviewTask(admin, {
      task_id: b.task_id,
      action: "counter_offer",
      counter_offer_amount: 300,
      reason: "far",
    });
    expect(who(await newRows())).toEqual([OWNER("task.counter_offer")]);
    const c = await submitted();
    await reviewTask(admin, { task_id: c.task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id: c.task_id, tx_hash: `0x${"34".repeat(32)}`, network: "base" });
    await newRows();
    await completeTask(admin, { task_id: c.task_id, action: "fail", reason: "closed" });
    expect(who(await newRows())).toEqual([OWNER("task.fail")]);
  });

  it("a requester's cancellation is its key's; an access token's is anonymous; a refund settled is the operator's", async () => {
    const mine = await submitted();
    await cancelTask(mine.task_id, keyHeaders(agent));
    expect(who(await newRows())).toEqual([["task.cancel", "api_key", agentId, null]]);

    const anon = await submitted({});
    expect(anon.access_token).toBeTruthy();
    const cancelled = await cancelTask(anon.task_id, { "x-task-access-token": anon.access_token! });
    expect(cancelled.res.status).toBe(200);
    expect(who(await newRows())).toEqual([["task.cancel", "anonymous", null, null]]);

    const paid = await submitted();
    await reviewTask(admin, { task_id: paid.task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id: paid.task_id, tx_hash: `0x${"56".repeat(32)}`, network: "base" });
    await completeTask(admin, { task_id: paid.task_id, action: "dispatch" });
    await cancelTask(paid.task_id, keyHeaders(agent));
    await newRows();
    const settled = await call(refundPost, "/api/task-refund", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { task_id: paid.task_id, outcome: "denied", note: "after dispatch" },
    });
    expect(settled.res.status).toBe(200);
    const rows = await newRows();
    expect(who(rows)).toEqual([OWNER("refund.settle")]);
    expect(rows[0]!.details).toMatchObject({ outcome: "denied" });
  });

  it("jobs are the system under their name: expiry, and the payment checker's batch", async () => {
    const { task_id } = await submitted();
    await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    await newRows();
    await (await getDb())
      .update(tasks)
      .set({ paymentExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(tasks.id, task_id));
    const run = await expirePayments();
    expect(run.ok).toBe(true);
    expect(who(await newRows())).toEqual([["task.expire", "system", "expire-payments", null]]);

    const ids = [(await submitted()).task_id, (await submitted()).task_id];
    for (const id of ids) await reviewTask(admin, { task_id: id, action: "approve", price_cad: 200 });
    await newRows();
    const batch = await runAsActor(systemActor("check-payments"), null, () =>
      // The checker's own path: each task's payment record and the USDC receipt in the batch.
      recordPayments(
        ids.map((taskId, i) => ({
          taskId,
          payment: { method: "usdc" as const, network: "base", txHash: `0x${String(i + 1).repeat(64)}` },
        })),
      ),
    );
    expect(batch.applied).toHaveLength(2);
    const rows = await newRows();
    expect(who(rows)).toEqual([
      ["task.pay", "system", "check-payments", null],
      ["task.pay", "system", "check-payments", null],
    ]);
    expect(rows.map((r) => r.taskId).sort()).toEqual([...ids].sort());
  });

  it("recourse: a dispute opened by the requester's key, resolved by the operator; an SLA credit by its job", async () => {
    const { task_id } = await submitted();
    await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id, tx_hash: `0x${"78".repeat(32)}`, network: "base" });
    await completeTask(admin, {
      task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [pngProof()],
    });
    await newRows();
    const opened = await call(disputePost, "/api/task-dispute", {
      method: "POST",
      headers: keyHeaders(agent),
      json: { task_id, reason: "incomplete", details: "Half of it." },
    });
    expect(opened.res.status).toBe(201);
    expect(who(await newRows())).toEqual([["dispute.open", "api_key", agentId, null]]);
    const resolved = await call(resolvePost, "/api/dispute-resolve", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { dispute_id: opened.body.dispute.dispute_id, resolution: "partial_refund", amount_cad: 10 },
    });
    expect(resolved.res.status).toBe(200);
    const rows = await newRows();
    expect(who(rows)).toEqual([OWNER("dispute.resolve")]);
    expect(rows[0]!.details).toMatchObject({ resolution: "partial_refund", refund_amount_cad: 10 });

    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, task_id));
    await (await getDb())
      .update(tasks)
      .set({ executionDeadline: new Date(task!.completedAt!.getTime() - 25 * 3600_000) })
      .where(eq(tasks.id, task_id));
    expect((await slaCredits()).ok).toBe(true);
    expect(who(await newRows())).toEqual([["sla.credit", "system", "sla-credits", null]]);
  });

  it("staff accounts, assignment, site visits, field proof and the deadline watch", async () => {
    const dispatcher = await createStaff("dispatcher");
    const field = await createStaff("field");
    const staffRows = await newRows();
    expect(staffRows.map((r) => r.action)).toEqual([
      "staff.invite",
      "staff.enroll",
      "staff.invite",
      "staff.enroll",
    ]);
    const change = (body: Record<string, unknown>) =>
      call(staffPost, "/api/staff", { method: "POST", headers: keyHeaders(admin), json: body });
    await change({ action: "set_role", staff_id: dispatcher.staffId, role: "reviewer" });
    await change({ action: "set_role", staff_id: dispatcher.staffId, role: "dispatcher" });
    await change({ action: "suspend", staff_id: field.staffId });
    await change({ action: "activate", staff_id: field.staffId });
    expect(who(await newRows())).toEqual([
      OWNER("staff.set_role"),
      OWNER("staff.set_role"),
      OWNER("staff.suspend"),
      OWNER("staff.activate"),
    ]);
    // Suspension ended the field person's sessions: sign in again.
    const session = await signInStaff(field);

    const { task_id } = await submitted();
    await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id, tx_hash: `0x${"78".repeat(32)}`, network: "base" });
    await newRows();
    const freshDispatcher = await signInStaff(dispatcher);
    await assign(staffHeaders(freshDispatcher), { task_id, staff_id: field.staffId });
    const by = (s: { staffId: string }, role: string) => (action: string) => [
      action,
      "staff",
      s.staffId,
      role,
    ];
    // The sign-in is the member's own row, with its method (issue 44 item 3).
    expect(who(await newRows())).toEqual([
      by(dispatcher, "dispatcher")("staff.sign_in"),
      by(dispatcher, "dispatcher")("task.assign"),
    ]);
    const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, task_id));
    const place = (row!.location as { coordinates: [number, number] }).coordinates;
    await visit(staffHeaders(session), { task_id, action: "check_in", ...near(place, 10) });
    await uploadProof(staffHeaders(session), { task_id, file: pngProof() });
    await visit(staffHeaders(session), { task_id, action: "check_out", ...near(place, 10) });
    const f = by(field, "field");
    expect(who(await newRows())).toEqual([
      f("task.dispatch"),
      f("task.arrive"),
      f("visit.check_in"),
      f("proof.upload"),
      f("visit.check_out"),
    ]);
    await assign(staffHeaders(freshDispatcher), { task_id, staff_id: null });
    expect(who(await newRows())).toEqual([by(dispatcher, "dispatcher")("task.unassign")]);

    const late = await submitted();
    await reviewTask(admin, { task_id: late.task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id: late.task_id, tx_hash: `0x${"9a".repeat(32)}`, network: "base" });
    await (await getDb())
      .update(tasks)
      .set({ paidAt: new Date(Date.now() - 36_000_000), executionDeadline: new Date(Date.now() + 60_000) })
      .where(eq(tasks.id, late.task_id));
    await newRows();
    expect((await deadlineWatch()).ok).toBe(true);
    expect(who(await newRows())).toEqual([["task.at_risk", "system", "deadline-watch", null]]);
  });

  it("prepaid accounts: link, deposit, charge, refund, adjustment, suspend, activate, discount, key changes", async () => {
    const payer = await makeKey(["audit_only", "task_create", "task_cancel"], "audit-payer@example.com");
    const payerId = await keyIdOf("audit-payer@example.com");
    await newRows();
    const opened = await openLinkedAccount(payer);
    const accountId = opened.body.account.account_id as string;
    const client = (action: string) => [action, "client", accountId, null];
    expect(who(await newRows())).toEqual([client("key.link")]);

    await accountAdmin(admin, { action: "deposit", account_id: accountId, amount_cad: 1000 });
    let rows = await newRows();
    expect(who(rows)).toEqual([OWNER("ledger.deposit")]);
    expect(rows[0]!.details).toMatchObject({ account_id: accountId, amount_cad: 1000, activated: true });

    const { task_id } = await submitted(keyHeaders(payer));
    await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    rows = await newRows();
    expect(who(rows)).toEqual([OWNER("task.approve"), OWNER("ledger.charge"), OWNER("task.pay")]);
    expect(rows.every((r) => r.taskId === task_id)).toBe(true);

    await cancelTask(task_id, keyHeaders(payer));
    expect(who(await newRows())).toEqual([
      ["ledger.refund", "api_key", payerId, null],
      ["task.cancel", "api_key", payerId, null],
    ]);

    await accountAdmin(admin, {
      action: "adjust",
      account_id: accountId,
      amount_cad: -5,
      description: "fee",
    });
    expect(who(await newRows())).toEqual([OWNER("ledger.adjustment")]);
    await accountAdmin(admin, { action: "suspend", account_id: accountId });
    expect(who(await newRows())).toEqual([OWNER("account.suspend")]);
    await accountAdmin(admin, { action: "suspend", account_id: accountId });
    expect(await newRows()).toEqual([]); // nothing changed, nothing recorded
    await accountAdmin(admin, { action: "activate", account_id: accountId });
    expect(who(await newRows())).toEqual([OWNER("account.activate")]);
    await accountAdmin(admin, { action: "set_discount", account_id: accountId, discount_percent: 10 });
    expect(who(await newRows())).toEqual([OWNER("account.set_discount")]);

    const created = await accountKeys(opened.jwt, { action: "create", name: "second" });
    expect(created.res.status).toBe(200);
    expect(who(await newRows())).toEqual([client("key.create")]);
    await accountKeys(opened.jwt, { action: "unlink", key_id: created.body.key_id });
    expect(who(await newRows())).toEqual([client("key.unlink")]);

    const anonymous = await call(keysPost, "/api/api-keys", {
      method: "POST",
      json: { name: "anon", contact: "audit-anon@example.com" },
    });
    expect(anonymous.res.status).toBe(201);
    let keyRows = await newRows();
    expect(who(keyRows)).toEqual([["key.create", "anonymous", null, null]]);
    expect(keyRows[0]!.targetId).toBe(anonymous.body.key_id);
    const revoked = await call(keysDelete, "/api/api-keys", {
      method: "DELETE",
      headers: keyHeaders(admin),
      json: { key_to_revoke: anonymous.body.api_key },
    });
    expect(revoked.res.status).toBe(200);
    keyRows = await newRows();
    expect(who(keyRows)).toEqual([OWNER("key.revoke")]);
    expect(keyRows[0]!.targetId).toBe(anonymous.body.key_id);
  });

  it("staff changes by an owner (a staff member) and by an admin key", async () => {
    const owner = await createStaff("owner", "Audit Owner");
    let rows = await newRows();
    expect(rows.map((r) => r.action)).toEqual(["staff.invite", "staff.enroll"]);
    expect(rows[1]!.targetId).toBe(owner.staffId);
    const email = "audit-field@staff.example.com";
    const invited = await call(staffPost, "/api/staff", {
      method: "POST",
      headers: staffHeaders(owner),
      json: { action: "invite", email, role: "field", display_name: "F" },
    });
    const id = invited.body.staff.staff_id as string;
    const staffActor = (action: string) => [action, "staff", owner.staffId, "owner"];
    expect(who(await newRows())).toEqual([staffActor("staff.invite")]);
    await call(staffPost, "/api/staff", {
      method: "POST",
      headers: staffHeaders(owner),
      json: { action: "set_role", staff_id: id, role: "dispatcher" },
    });
    expect(who(await newRows())).toEqual([staffActor("staff.set_role")]);
    await call(staffPost, "/api/staff", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { action: "suspend", staff_id: owner.staffId },
    });
    rows = await newRows();
    expect(rows.map((r) => r.action)).toEqual([]); // the last active owner stays (409), nothing recorded
    const second = await createStaff("reviewer", "Audit Reviewer");
    await newRows();
    await call(staffPost, "/api/staff", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { action: "suspend", staff_id: second.staffId },
    });
    expect(who(await newRows())).toEqual([OWNER("staff.suspend")]);
    await call(staffPost, "/api/staff", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { action: "activate", staff_id: second.staffId },
    });
    expect(who(await newRows())).toEqual([OWNER("staff.activate")]);
  });

  it("a member's own sign-in means: new recovery codes, a passkey, a passkey sign-in", async () => {
    const member = await createStaff("field");
    await newRows();
    const mine = (action: string) => [action, "staff", member.staffId, "field"];
    const own = (action: string, json: Record<string, unknown> = {}) =>
      call(credentialsPost, `/api/staff-credentials?action=${action}`, {
        method: "POST",
        headers: staffHeaders(member),
        json,
      });
    expect((await own("recovery-codes")).res.status).toBe(200);
    const authenticator = new SoftwareAuthenticator(BASE);
    const options = await own("passkey-options");
    expect(
      (await own("passkey-register", { credential: authenticator.register(options.body.passkey_options) }))
        .res.status,
    ).toBe(200);
    const signIn = await call(authPost, "/api/staff-auth?action=passkey-options", {
      method: "POST",
      json: {},
    });
    const signed = await call(authPost, "/api/staff-auth?action=passkey-sign-in", {
      method: "POST",
      json: { credential: authenticator.assert(signIn.body.passkey_options) },
    });
    expect(signed.res.status).toBe(200);
    const rows = await newRows();
    expect(who(rows)).toEqual([
      mine("staff.recovery_codes"),
      mine("staff.passkey_add"),
      mine("staff.sign_in"),
    ]);
    expect(rows[2]!.details).toMatchObject({ method: "passkey", passkey_id: authenticator.id });
    expect(rows[2]!.requestId).toMatch(/^req_/);
  });

  it("every audit action was met above (a new action needs a case here)", () => {
    expect([...seen].sort()).toEqual([...AUDIT_ACTIONS].sort());
  });
});

describe("in the transaction of the change", () => {
  async function trigger(table: string, when: string) {
    await db
      .handle()
      .db.execute(
        sql.raw(
          "create or replace function audit_test_fault() returns trigger language plpgsql as $$ begin raise exception 'injected fault'; end $$",
        ),
      );
    await db
      .handle()
      .db.execute(
        sql.raw(
          `create trigger audit_test_fault before insert on ${table} for each row when (${when}) execute function audit_test_fault()`,
        ),
      );
    return () => db.handle().db.execute(sql.raw(`drop trigger if exists audit_test_fault on ${table}`));
  }

  afterAll(async () => {
    await db.handle().db.execute(sql.raw("drop trigger if exists audit_test_fault on ledger_entries"));
    await db.handle().db.execute(sql.raw("drop trigger if exists audit_test_fault on audit_log"));
  });

  it("a fault after the transition's row (the prepaid charge) leaves no audit row and no change", async () => {
    const payer = await makeKey(["audit_only", "task_create"], "audit-rollback@example.com");
    const opened = await openLinkedAccount(payer);
    await accountAdmin(admin, {
      action: "deposit",
      account_id: opened.body.account.account_id,
      amount_cad: 1000,
    });
    const { task_id } = await submitted(keyHeaders(payer));
    const remove = await trigger("ledger_entries", "new.kind = 'charge'");
    try {
      const failed = await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
      expect(failed.res.status).toBe(500);
    } finally {
      await remove();
    }
    expect(await newRows()).toEqual([]);
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, task_id));
    expect(task!.status).toBe("received");
    // The same approval, retried, records its three rows.
    await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    expect((await newRows()).map((r) => r.action)).toEqual(["task.approve", "ledger.charge", "task.pay"]);
  });

  it("a failing audit write undoes the change it records (a key creation)", async () => {
    const remove = await trigger("audit_log", "new.action = 'key.create'");
    try {
      const failed = await call(keysPost, "/api/api-keys", {
        method: "POST",
        json: { name: "never", contact: "audit-never@example.com" },
      });
      expect(failed.res.status).toBe(500);
    } finally {
      await remove();
    }
    const keys = await (await getDb())
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.contact, "audit-never@example.com"));
    expect(keys).toEqual([]);
    expect(await newRows()).toEqual([]);
  });
});

describe("append-only", () => {
  it("UPDATE, DELETE and TRUNCATE of audit_log are refused by the database", async () => {
    const before = await (await getDb()).select().from(auditLog);
    expect(before.length).toBeGreaterThan(0);
    for (const statement of [
      "update audit_log set action = 'task.approve'",
      "delete from audit_log",
      "truncate audit_log",
    ]) {
      await expect(db.handle().db.execute(sql.raw(statement))).rejects.toThrow();
    }
    const after = await (await getDb()).select().from(auditLog);
    expect(after).toEqual(before);
  });
});

describe("GET /api/audit-log", () => {
  const read = (query: string, key = admin) =>
    call(auditGet, `/api/audit-log${query}`, { headers: keyHeaders(key) });

  it("filters by actor, task, action and time, newest first, paged by cursor", async () => {
    const { task_id } = await submitted();
    await reviewTask(admin, { task_id, action: "approve", price_cad: 200 });
    await cancelTask(task_id, keyHeaders(agent));
    await newRows();

    const byTask = await read(`?task_id=${task_id}`);
    expect(byTask.res.status).toBe(200);
    expect(byTask.body.entries.map((e: { action: string }) => e.action)).toEqual([
      "task.cancel",
      "task.approve",
    ]);
    expect(byTask.body.entries[1].actor).toEqual({ kind: "api_key", id: adminId, role: "owner" });
    expect(byTask.body.next_cursor).toBeNull();

    const byActor = await read(`?actor_kind=api_key&actor_id=${agentId}&task_id=${task_id}`);
    expect(byActor.body.entries.map((e: { action: string }) => e.action)).toEqual(["task.cancel"]);
    const byAction = await read(`?action=task.approve&task_id=${task_id}`);
    expect(byAction.body.entries).toHaveLength(1);
    const future = await read(`?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    expect(future.body.entries).toEqual([]);
    const past = await read(`?to=2000-01-01T00:00:00Z`);
    expect(past.body.entries).toEqual([]);

    const all = (await read("?limit=200")).body.entries.map((e: { id: string }) => e.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { entries: { id: string }[]; next_cursor: string | null } } = await read(
        `?limit=7${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.body.entries.length).toBeLessThanOrEqual(7);
      paged.push(...page.body.entries.map((e) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged.slice(0, all.length)).toEqual(all);
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged.map(Number)).toEqual([...paged.map(Number)].sort((a, b) => b - a));
  });

  it.each([
    ["?actor_kind=robot", "actor_kind"],
    ["?action=task.explode", "action"],
    ["?from=yesterday", "from"],
    ["?limit=201", "limit"],
    ["?limit=0", "limit"],
    ["?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "to"],
    ["?cursor=bm90LWEtY3Vyc29y", "cursor"],
  ])("%s → 4xx in the envelope", async (query, field) => {
    const { res, body } = await read(query);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const error = expectEnvelope(body, res, res.status, body.error.code);
    expect(error.field ?? error.details?.[0]?.field).toBe(field);
  });

  it("needs an admin key (audit.read): another key → 403, none → 401", async () => {
    const { res } = await read("", agent);
    expect(res.status).toBe(403);
    const anonymous = await call(auditGet, "/api/audit-log");
    expect(anonymous.res.status).toBe(401);
  });
});

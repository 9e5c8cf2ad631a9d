/**
 * Law 25 rights through the real handlers and a real database: the client's export covers every
 * exported table with every non-secret column; an erasure request waits for the accounting
 * retention, then the job de-identifies (no seeded personal value is left anywhere in the
 * database, and the owner can no longer sign in); the operator processes one early; the
 * retention job deletes old activity rows and proof files; the incident register; the privacy
 * facts of /api/capabilities.
 */
import { eq, getTableColumns, sql } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as privacyPost } from "../../api/privacy.js";
import { GET as adminGet, POST as adminPost } from "../../api/privacy-admin.js";
import { parseConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import * as schema from "../../lib/db/schema/index.js";
import {
  activityLog,
  apiKeys,
  chainTransfers,
  clientAccounts,
  deliveries,
  disputeFiles,
  erasureRequests,
  preauthorizations,
  privacyAudit,
  proofFiles,
  taskDisputes,
  taskEvents,
  taskScores,
  webhooks,
} from "../../lib/db/schema/index.js";
import { privacyRetention } from "../../lib/jobs/privacy-retention.js";
import { DATA_CLASSIFICATION } from "../../lib/privacy/classification.js";
import { processDueErasures } from "../../lib/privacy/erasure.js";
import { purgeExpiredPersonalData } from "../../lib/privacy/retention.js";
import { buildCapabilities } from "../../lib/system/capabilities.js";
import { accountAdmin, openLinkedAccount, readAccount, signIn } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const MARKERS = {
  phone: "+1 514 555-0199",
  address: "77 Rue Marqueur",
  company: "Marqueur Inc",
  description: "MARKER-DESC photograph the loading dock",
  instructions: "MARKER-INSTR ring twice",
  feedback: "MARKER-FEEDBACK great work",
  hook: "https://hooks.marker.example/in",
  ip: "203.0.113.77",
  agent: "MARKER-AGENT",
  preauth: "MARKER-PREAUTH",
  proof: "marker-proof.png",
  dispute: "MARKER-DISPUTE the photos are of another building",
  evidence: "marker-evidence.png",
};

let admin: string;
let key: string;
let jwt: string;
let email: string;
let accountId: string;
let taskId: string;

/** A signed-in account with one of everything that can hold personal data. */
async function seedSubject() {
  key = await makeKey();
  const opened = await openLinkedAccount(key, {
    phone: MARKERS.phone,
    address_line1: MARKERS.address,
    city: "Laval",
    postal_code: "H7A 1A1",
    company_name: MARKERS.company,
  });
  jwt = opened.jwt;
  email = opened.body.account.email;
  accountId = opened.body.account.account_id;
  const dep = await accountAdmin(admin, { action: "deposit", email, amount_cad: 500 });
  expect(dep.res.status).toBe(200);
  const sub = await submitTask(
    {
      ...validTask,
      requester_contact: email,
      task_description: MARKERS.description,
      special_instructions: MARKERS.instructions,
    },
    { "x-api-key": key },
  );
  expect(sub.res.status).toBe(201);
  taskId = sub.body.task_id;
  const db = await getDb();
  const [k] = await db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId));
  const [event] = await db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId)).limit(1);
  await db.insert(proofFiles).values({
    id: "pf_law25",
    taskId,
    filename: MARKERS.proof,
    mimeType: "image/png",
    sizeBytes: 3,
    sha256: "00",
    content: Buffer.from("abc"),
  });
  await db.insert(taskScores).values({ taskId, apiKeyId: k!.id, rating: 5, feedback: MARKERS.feedback });
  await db
    .insert(taskDisputes)
    .values({ id: "dsp_law25", taskId, reason: "wrong_location", details: MARKERS.dispute });
  await db.insert(disputeFiles).values({
    id: "df_law25",
    disputeId: "dsp_law25",
    filename: MARKERS.evidence,
    mimeType: "image/png",
    sizeBytes: 3,
    sha256: "00",
    content: Buffer.from("abc"),
  });
  await db.insert(webhooks).values({
    id: "wh_law25",
    apiKeyId: k!.id,
    url: MARKERS.hook,
    events: ["task.completed"],
    secretCiphertext: "v1.x",
  });
  await db.insert(deliveries).values({
    id: "dlv_law25",
    eventId: event!.id,
    webhookId: "wh_law25",
    kind: "webhook",
    url: MARKERS.hook,
    taskId,
    event: "task.completed",
    payload: { note: MARKERS.description },
  });
  await db.insert(chainTransfers).values({
    id: "ctr_law25",
    network: "base",
    chainId: 8453,
    txHash: "0xabc",
    logIndex: 0,
    blockNumber: 12n,
    blockHash: "0xdef",
    fromAddress: "0x00000000000000000000000000000000000000aa",
    toAddress: "0x00000000000000000000000000000000000000bb",
    tokenAddress: "0x00000000000000000000000000000000000000cc",
    amountMicro: 1_000_000n,
    taskId,
    status: "unmatched",
  });
  await db.insert(preauthorizations).values({
    id: "pa_law25",
    accountId,
    agentId: MARKERS.preauth,
    apiKeyId: k!.id,
    amountCad: 10,
    validUntil: new Date(),
  });
  await db.insert(activityLog).values({
    apiKeyId: k!.id,
    ip: MARKERS.ip,
    method: "GET",
    endpoint: "/api/services",
    status: 200,
    latencyMs: 3,
    agentName: MARKERS.agent,
  });
}

/** Every row of every table as text, for the marker search. */
async function databaseText(): Promise<Record<string, string>> {
  const db = await getDb();
  const out: Record<string, string> = {};
  for (const t of Object.values(schema as Record<string, unknown>)) {
    if (!(t instanceof PgTable)) continue;
    const name = getTableConfig(t).name;
    const res = await db.execute(sql`select t::text as row from ${sql.identifier(name)} t`);
    const list = (Array.isArray(res) ? res : (res as { rows: { row: string }[] }).rows) as { row: string }[];
    out[name] = list.map((r) => r.row).join("\n");
  }
  return out;
}

function erasureCall(token: string) {
  return call(privacyPost, "/api/privacy", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    json: { action: "request_erasure" },
  });
}

function privacyAdmin(json: Record<string, unknown>, apiKey = admin) {
  return call(adminPost, "/api/privacy-admin", { method: "POST", headers: { "x-api-key": apiKey }, json });
}

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  await seedSubject();
});

describe("Law 25: export, erasure, retention, incidents", () => {
  it("records an erasure request due after the accounting retention (6 years after the deposit invoice)", async () => {
    const { res, body } = await erasureCall(jwt);
    expect(res.status).toBe(200);
    expect(body.created).toBe(true);
    expect(body.erasure_request.status).toBe("pending");
    const years = (Date.parse(body.erasure_request.due_at) - Date.now()) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThan(5.99);
    expect(years).toBeLessThan(6.01);
    const again = await erasureCall(jwt);
    expect(again.body.created).toBe(false);
    expect(again.body.erasure_request.request_id).toBe(body.erasure_request.request_id);
    // Not due: the job leaves the account alone.
    expect(await processDueErasures(new Date())).toBe(0);
  });

  it("exports every exported table with every non-secret column, and no secret", async () => {
    const { res, body } = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(res.status).toBe(200);
    const doc = body.export;
    expect(doc.format).toBe("law25-export/1");
    for (const t of Object.values(schema as Record<string, unknown>)) {
      if (!(t instanceof PgTable)) continue;
      const name = getTableConfig(t).name;
      const entry = DATA_CLASSIFICATION[name]!;
      if (typeof entry.export !== "string") continue;
      const expected = Object.values(getTableColumns(t as PgTable))
        .map((c) => c.name)
        .filter((c) => entry.columns[c] !== "secret")
        .sort();
      const section = entry.export === "account" ? [doc.account] : doc[entry.export];
      expect(Array.isArray(section), `section ${entry.export}`).toBe(true);
      expect(section.length, `section ${entry.export} has the seeded rows`).toBeGreaterThan(0);
      for (const row of section) expect(Object.keys(row).sort(), `row of ${name}`).toEqual(expected);
    }
    const text = JSON.stringify(doc);
    for (const m of [MARKERS.phone, MARKERS.description, MARKERS.hook, MARKERS.ip, MARKERS.feedback, email]) {
      expect(text).toContain(m);
    }
    expect(text).not.toContain("password_hash");
    expect(text).not.toContain("key_hash");
    expect(text).not.toContain("secret_ciphertext");
    const db = await getDb();
    const audits = await db.select().from(privacyAudit).where(eq(privacyAudit.accountId, accountId));
    expect(audits.map((a) => a.action)).toContain("export");
  });

  it("refuses the export to the account's key (on hold: erasure pending) and serves it to an admin", async () => {
    const refused = await readAccount({ "x-api-key": key }, "?action=export");
    expect(expectEnvelope(refused.body, refused.res, 403, "FORBIDDEN").reason).toBe("erasure_pending");
    const byAdmin = await readAccount(
      { "x-api-key": admin },
      `?action=export&email=${encodeURIComponent(email)}`,
    );
    expect(byAdmin.res.status).toBe(200);
    expect(byAdmin.body.export.account.id).toBe(accountId);
  });

  it("de-identifies everything once due: no seeded personal value is left, sign-in is refused", async () => {
    const future = new Date(Date.now() + 6.1 * 365.25 * 86_400_000);
    expect(await processDueErasures(future)).toBe(1);
    const dump = await databaseText();
    const all = [...Object.values(MARKERS), email];
    for (const [table, text] of Object.entries(dump)) {
      for (const m of all) expect(text.includes(m), `${m} still in ${table}`).toBe(false);
    }
    const db = await getDb();
    const [acct] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
    expect(acct!.status).toBe("suspended");
    expect(acct!.passwordHash).toBeNull();
    await expect(signIn(email, "owner password 123")).rejects.toThrow(/login/);
    const [req] = await db.select().from(erasureRequests).where(eq(erasureRequests.accountId, accountId));
    expect(req).toMatchObject({ status: "completed", processedBy: "job", earlyReason: null });
    const [audit] = await db
      .select()
      .from(privacyAudit)
      .where(sql`${privacyAudit.accountId} = ${accountId} and ${privacyAudit.action} = 'deidentified'`);
    expect(audit!.details).toMatchObject({
      request_id: req!.id,
      tasks: 1,
      proof_files: 1,
      emails: expect.any(Number),
    });
    // The accounting records stay.
    const inv = await db.execute(
      sql`select count(*)::int as n from invoices where account_id = ${accountId}`,
    );
    const rows = (Array.isArray(inv) ? inv : (inv as { rows: { n: number }[] }).rows) as { n: number }[];
    expect(rows[0]!.n).toBe(1);
  });

  it("lets the operator process an erasure early with a reason; 409 once done; 422 without a reason", async () => {
    const other = await makeKey();
    const opened = await openLinkedAccount(other, { phone: "+1 514 555-0142" });
    const id = opened.body.account.account_id;
    const missing = await privacyAdmin({ action: "process_erasure", account_id: id });
    expect(missing.res.status).toBe(422);
    const notAdmin = await privacyAdmin({ action: "process_erasure", account_id: id, reason: "x" }, other);
    expect(notAdmin.res.status).toBe(403);
    const done = await privacyAdmin({
      action: "process_erasure",
      account_id: id,
      reason: "no accounting record",
    });
    expect(done.res.status).toBe(200);
    expect(done.body.erasure_request).toMatchObject({
      status: "completed",
      early_reason: "no accounting record",
    });
    expect(done.body.erasure_request.processed_by).toMatch(/^admin:key_/);
    const db = await getDb();
    const [acct] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, id));
    expect(acct!.phone).toBeNull();
    const again = await privacyAdmin({ action: "process_erasure", account_id: id, reason: "again" });
    expectEnvelope(again.body, again.res, 409, "CONFLICT");
    const unknown = await privacyAdmin({ action: "process_erasure", account_id: "acct_nope", reason: "x" });
    expectEnvelope(unknown.body, unknown.res, 404, "NOT_FOUND");
    const list = await call(adminGet, "/api/privacy-admin?list=erasure_requests", {
      headers: { "x-api-key": admin },
    });
    expect(list.body.erasure_requests.map((r: { account_id: string }) => r.account_id)).toContain(id);
  });

  it("deletes activity rows and proof files past their retention (365 and 730 days by default)", async () => {
    const db = await getDb();
    const day = 86_400_000;
    const base = { method: "GET", endpoint: "/api/services", status: 200, latencyMs: 1 };
    await db.insert(activityLog).values([
      { ...base, at: new Date(Date.now() - 366 * day), requestId: "req_old" },
      { ...base, at: new Date(Date.now() - 10 * day), requestId: "req_new" },
    ]);
    const task2 = await submitTask(validTask, { "x-api-key": await makeKey() });
    await db.insert(proofFiles).values([
      {
        id: "pf_old",
        taskId: task2.body.task_id,
        filename: "a.png",
        mimeType: "image/png",
        sizeBytes: 1,
        sha256: "0",
        content: Buffer.from("a"),
        createdAt: new Date(Date.now() - 731 * day),
      },
      {
        id: "pf_new",
        taskId: task2.body.task_id,
        filename: "b.png",
        mimeType: "image/png",
        sizeBytes: 1,
        sha256: "0",
        content: Buffer.from("b"),
      },
    ]);
    const run = await privacyRetention();
    expect(run.ok).toBe(true);
    expect(run.details).toMatchObject({
      activity_rows_deleted: 1,
      proof_files_deleted: 1,
      erasures_processed: 0,
    });
    const ids = (await db.select({ r: activityLog.requestId }).from(activityLog)).map((r) => r.r);
    expect(ids).toContain("req_new");
    expect(ids).not.toContain("req_old");
    const files = (await db.select({ id: proofFiles.id }).from(proofFiles)).map((r) => r.id);
    expect(files).toEqual(["pf_new"]);
    const [audit] = await db.select().from(privacyAudit).where(eq(privacyAudit.action, "retention_purge"));
    expect(audit!.details).toEqual({
      activity_rows_deleted: 1,
      partitions_dropped: 0,
      rollup_rows_deleted: 0,
      proof_files_deleted: 1,
      retention_backlog: false,
    });
  });

  it("retention deletes in bounded batches, oldest first, and leaves a backlog to the next run", async () => {
    const db = await getDb();
    const old = new Date(Date.now() - 400 * 86_400_000);
    await db.execute(sql`
      insert into activity_log (request_id, at, method, endpoint, status, latency_ms, ip)
      select 'req_batch_' || g, ${old.toISOString()}::timestamptz + (g || ' seconds')::interval, 'GET', '/api/status', 200, 1, '127.0.0.1'
      from generate_series(1, 25) as g`);
    const first = await purgeExpiredPersonalData(new Date(), { batchRows: 10, budgetMs: 0 });
    expect(first).toEqual({
      activity_rows_deleted: 0,
      partitions_dropped: 0,
      rollup_rows_deleted: 0,
      proof_files_deleted: 0,
      retention_backlog: true,
    });
    const second = await purgeExpiredPersonalData(new Date(), { batchRows: 10 });
    expect(second).toEqual({
      activity_rows_deleted: 25,
      partitions_dropped: 0,
      rollup_rows_deleted: 0,
      proof_files_deleted: 0,
      retention_backlog: false,
    });
    const left = await db.execute(
      sql`select count(*)::int as n from activity_log where request_id like 'req_batch_%'`,
    );
    expect(JSON.stringify(left)).toContain('"n":0');
  });

  it("keeps the incident register (operator only)", async () => {
    const input = {
      action: "record_incident",
      occurred_at: "2026-03-01T10:00:00Z",
      discovered_at: "2026-03-02T09:00:00Z",
      description: "A laptop with exported invoices was stolen",
      information_concerned: "names and addresses of 12 clients",
      persons_concerned: 12,
      risk_of_serious_injury: false,
      measures: "remote wipe; passwords rotated",
    };
    const rec = await privacyAdmin(input);
    expect(rec.res.status).toBe(200);
    expect(rec.body.incident).toMatchObject({ persons_concerned: 12, risk_of_serious_injury: false });
    const bad = await privacyAdmin({ ...input, occurred_at: "2026-03-03T00:00:00Z" });
    expectEnvelope(bad.body, bad.res, 422, "VALIDATION_ERROR");
    const incomplete = await privacyAdmin({ action: "record_incident", description: "x" });
    expect(incomplete.res.status).toBe(422);
    const list = await call(adminGet, "/api/privacy-admin?list=incidents", {
      headers: { "x-api-key": admin },
    });
    expect(list.res.status).toBe(200);
    expect(list.body.incidents).toHaveLength(1);
    expect(list.body.incidents[0].incident_id).toBe(rec.body.incident.incident_id);
    const denied = await call(adminGet, "/api/privacy-admin", { headers: { "x-api-key": await makeKey() } });
    expect(denied.res.status).toBe(403);
  });

  it("publishes the privacy officer, what is collected, retention and rights in /api/capabilities", () => {
    const caps = buildCapabilities(
      parseConfig({ PRIVACY_OFFICER_NAME: "Jeanne Roy", PRIVACY_OFFICER_EMAIL: "vie.privee@example.ca" }),
    ) as { privacy: any };
    expect(caps.privacy.officer).toEqual({ name: "Jeanne Roy", email: "vie.privee@example.ca" });
    expect(caps.privacy.retention.accounting_records_years).toBe(6);
    const accounts = caps.privacy.collected.find((c: { table: string }) => c.table === "client_accounts");
    expect(accounts.personal_fields).toEqual(expect.arrayContaining(["email", "phone", "address_line1"]));
    expect(caps.privacy.rights.access_and_portability).toMatch(/action=export/);
  });
});

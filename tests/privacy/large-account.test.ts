/**
 * Law 25 export and erasure of an account with more tasks than one statement can bind parameters
 * (65,535: the protocol's count is 16 bits). Issue 32 item 5: the subject's rows used to be read as
 * id lists and bound back (`in ($1, …, $110094)`), which failed for such an account with
 * "bind message has … parameter formats but 0 parameters" and was answered 503 with Retry-After,
 * forever. The subject's sets are now subqueries (lib/privacy/subject.ts). The export is streamed
 * (issue 32 item 4): it arrives in many chunks, read page by page, and its audit row counts them.
 * The key's activity rows, microseconds apart, are paged by `(at, id)` (docs/decisions.md 27): every
 * one is exported once and de-identified, across the export's pages and erasure's chunks.
 */
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as accountGet } from "../../api/client-account.js";
import { POST as adminPost } from "../../api/privacy-admin.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { activityLog, apiKeys, privacyAudit, tasks } from "../../lib/db/schema/index.js";
import { openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";

useTestDatabase();

/** More than 65,535: submitted by the account's key, and charged to the account without a key. */
const BY_KEY = 66_000;
const BY_ACCOUNT = 500;
/** Activity rows of the account's key, 1 µs apart (six milliseconds in all): past a page and a chunk. */
const ACTIVITY = 6_000;

let admin: string;
let jwt: string;
let accountId: string;
let email: string;

/** Tasks inserted per statement: well inside the statement timeout on a busy machine. */
const SEED_CHUNK = 10_000;

/** Inserts `n` tasks `TASK-BIG-<prefix>-<i>` with `owner` (SQL assignments of api_key_id, account_id). */
async function seedTasks(prefix: string, n: number, keyId: string | null, account: string | null) {
  const db = await getDb();
  for (let from = 1; from <= n; from += SEED_CHUNK) {
    const to = Math.min(n, from + SEED_CHUNK - 1);
    await db.execute(sql`
      insert into tasks (id, service_type, status, location_address, task_description, requester_contact,
                         review_deadline, execution_deadline, api_key_id, account_id)
      select ${`TASK-BIG-${prefix}-`} || g, 'SVC-01', 'completed', '1 rue Principale, Laval',
             'Photograph the storefront', ${email}, now(), now(), ${keyId}, ${account}
      from generate_series(${from}::int, ${to}::int) as g`);
  }
}

/**
 * This file tests the streamed answer with an account past the protocol's parameter limit: the
 * threshold above which the export runs as a job (tests/exports/export-jobs.test.ts) is raised here.
 */
const savedThreshold = process.env.EXPORT_JOB_THRESHOLD_ROWS;
afterAll(() => {
  if (savedThreshold === undefined) delete process.env.EXPORT_JOB_THRESHOLD_ROWS;
  else process.env.EXPORT_JOB_THRESHOLD_ROWS = savedThreshold;
  resetConfig();
});

beforeAll(async () => {
  process.env.EXPORT_JOB_THRESHOLD_ROWS = "1000000";
  resetConfig();
  admin = await makeKey(["admin"]);
  const key = await makeKey();
  const opened = await openLinkedAccount(key);
  jwt = opened.jwt;
  accountId = opened.body.account.account_id;
  email = opened.body.account.email;
  const db = await getDb();
  const [row] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.accountId, accountId));
  await seedTasks("K", BY_KEY, row!.id, null);
  await seedTasks("A", BY_ACCOUNT, null, accountId);
  await db.execute(sql`
    insert into activity_log (at, request_id, api_key_id, ip, method, endpoint, status, latency_ms, agent_name)
    select timestamptz '2026-11-20 12:00:00.000000+00' + g * interval '1 microsecond', 'req_big_' || g,
           ${row!.id}, '203.0.113.9', 'GET', '/api/estimate', 200, 1, 'big-agent'
    from generate_series(1, ${ACTIVITY}::int) as g`);
  // Another client's anonymous task naming the account's e-mail: not the subject's, never exported.
  await seedTasks("NAMED", 1, null, null);
  // 66,500 tasks and 6,000 activity rows: ~10 s on an idle machine; a guard sized for a loaded one.
}, 240_000);

describe("Law 25 with more than 65,535 tasks (issue 32 item 5)", () => {
  it("exports an account with more than 65,535 tasks, every one of them and no other", async () => {
    const { res, body } = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(res.status).toBe(200);
    const exported = body.export.tasks as { id: string }[];
    expect(exported.length).toBe(BY_KEY + BY_ACCOUNT);
    expect(exported.some((t) => t.id === "TASK-BIG-NAMED-1")).toBe(false);
    expect(new Set(exported.map((t) => t.id)).size).toBe(BY_KEY + BY_ACCOUNT);
    const activity = (body.export.activity as { request_id: string | null; at: string }[]).filter((a) =>
      a.request_id?.startsWith("req_big_"),
    );
    expect(new Set(activity.map((a) => a.request_id)).size).toBe(ACTIVITY);
    expect(activity).toHaveLength(ACTIVITY);
    // Newest first.
    expect(activity[0]!.request_id).toBe(`req_big_${ACTIVITY}`);
    expect(activity.at(-1)!.request_id).toBe("req_big_1");
  }, 120_000);

  it("streams it: many chunks as the pages are read, one document, the audit row counting the sections", async () => {
    const res = await accountGet(
      new Request("http://127.0.0.1/api/client-account?action=export", {
        headers: { authorization: `Bearer ${jwt}` },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(chunks.length).toBeGreaterThan(50);
    const doc = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    expect(doc.account.account_id).toBe(accountId);
    expect(doc.export.tasks).toHaveLength(BY_KEY + BY_ACCOUNT);
    const db = await getDb();
    const audits = await db
      .select({ details: privacyAudit.details })
      .from(privacyAudit)
      .where(and(eq(privacyAudit.accountId, accountId), eq(privacyAudit.action, "export")));
    expect(audits.at(-1)!.details).toMatchObject({
      delivery: "stream",
      outcome: "complete",
      tasks: BY_KEY + BY_ACCOUNT,
    });
    expect(doc.export).toMatchObject({ complete: true, counts: { tasks: BY_KEY + BY_ACCOUNT } });
  }, 120_000);

  it("de-identifies it: every task, and the named task of another once terminal", async () => {
    const done = await call(adminPost, "/api/privacy-admin", {
      method: "POST",
      headers: { "x-api-key": admin },
      json: { action: "process_erasure", account_id: accountId, reason: "test: no accounting record" },
    });
    expect(done.res.status).toBe(200);
    expect(done.body.erasure_request.status).toBe("completed");
    const db = await getDb();
    const [audit] = await db
      .select({ details: privacyAudit.details })
      .from(privacyAudit)
      .where(sql`${privacyAudit.accountId} = ${accountId} and ${privacyAudit.action} = 'deidentified'`);
    expect(audit?.details).toMatchObject({ tasks: BY_KEY + BY_ACCOUNT, named_tasks_redacted: 1 });
    expect((audit!.details as { activity: number }).activity).toBeGreaterThanOrEqual(ACTIVITY);
    const [kept] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(activityLog)
      .where(
        sql`${activityLog.requestId} like 'req_big_%' and (${activityLog.ip} is not null or ${activityLog.agentName} is not null)`,
      );
    expect(kept?.n).toBe(0);
    const [left] = await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(tasks)
      .where(eq(tasks.requesterContact, email));
    expect(left?.n).toBe(0);
  }, 120_000);
});

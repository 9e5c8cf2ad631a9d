/**
 * Export jobs (issue 45 item 3; docs/privacy.md "Large exports"; docs/decisions.md 48-49): a Law 25
 * export of an account past EXPORT_JOB_THRESHOLD_ROWS is answered 202 with a job, written in chunks
 * by the export-jobs cron, resumable after a crash (a chunk's part and cursor commit together),
 * e-mailed as a signed link for that account only; a second request answers the running job; a
 * chunk that fails is retried with backoff and the requester is e-mailed when it finally fails; a
 * link for another account, another job or past its expiry is 404. A compliance export past the
 * threshold runs the same way. The threshold and chunk size are set low: 130 tasks need 6 chunks.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as analyticsGet } from "../../api/analytics.js";
import { GET as downloadGet } from "../../api/export-download.js";
import { GET as jobGet } from "../../api/export-jobs.js";
import { POST as privacyAdminPost } from "../../api/privacy-admin.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { apiKeys, emails, exportJobParts, exportJobs, privacyAudit } from "../../lib/db/schema/index.js";
import { runExportJobs } from "../../lib/exports/jobs.js";
import { openLinkedAccount, readAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { createStaff, staffHeaders } from "../helpers/staff.js";

useTestDatabase();

const TASKS = 130;
const CHUNK = 25;
const ENV = {
  EXPORT_JOB_THRESHOLD_ROWS: "50",
  EXPORT_JOB_CHUNK_ROWS: String(CHUNK),
  EXPORT_JOB_RETRY_SECONDS: "60",
  EXPORT_JOB_MAX_ATTEMPTS: "3",
};
const saved = { ...process.env };

let admin: string;
let jwt: string;
let accountId: string;
let email: string;
let keyId: string;

async function seedTasks(prefix: string, n: number, key: string | null, account: string | null) {
  const db = await getDb();
  await db.execute(sql`
    insert into tasks (id, service_type, status, location_address, task_description, requester_contact,
                       review_deadline, execution_deadline, api_key_id, account_id, org_id)
    select ${`TASK-EXJ-${prefix}-`} || lpad(g::text, 5, '0'), 'SVC-01', 'completed', '1 rue Principale, Laval',
           'Photograph the storefront', 'someone@example.com', now(), now(), ${key}, ${account}, 'org-exj'
    from generate_series(1, ${n}::int) as g`);
}

/** Runs the cron until no job is due (at `now`), at most `max` runs. */
async function drain(now = () => new Date(), max = 50) {
  for (let i = 0; i < max; i++) {
    const out = await runExportJobs({ now, budgetMs: 60_000 });
    if (out.chunks_written === 0 && out.attempts_failed === 0) return;
  }
  throw new Error("export jobs did not drain");
}

/** The link of the `export-ready` e-mail of `jobId`. */
async function linkOf(jobId: string): Promise<string> {
  const db = await getDb();
  const [mail] = await db
    .select()
    .from(emails)
    .where(eq(emails.dedupeKey, `export-ready:${jobId}`));
  const link = /https?:\/\/\S+\/api\/export-download\?\S+/.exec(mail!.textBody)?.[0];
  if (!link) throw new Error(`no link in ${mail?.textBody}`);
  return link;
}

const download = (link: string, headers: Record<string, string> = {}) => {
  const url = new URL(link, "http://localhost:3000");
  return call(downloadGet, `${url.pathname}${url.search}`, { headers });
};

beforeAll(async () => {
  Object.assign(process.env, ENV);
  resetConfig();
  admin = await makeKey(["admin"]);
  const key = await makeKey();
  const opened = await openLinkedAccount(key);
  jwt = opened.jwt;
  accountId = opened.body.account.account_id;
  email = opened.body.account.email;
  const db = await getDb();
  const [row] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.accountId, accountId));
  keyId = row!.id;
  await seedTasks("K", TASKS, keyId, null);
}, 120_000);

afterAll(() => {
  for (const name of Object.keys(ENV)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetConfig();
});

describe("Law 25 export of a large account as a job", () => {
  let jobId: string;

  it("answers 202 with the job and its Location; a second request answers the same job", async () => {
    const first = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(first.res.status).toBe(202);
    jobId = first.body.job.job_id;
    expect(first.res.headers.get("location")).toBe(`/api/export-jobs?job_id=${jobId}`);
    expect(first.body).toMatchObject({
      created: true,
      job: { status: "queued", kind: "law25", format: "json" },
    });
    const second = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(second.res.status).toBe(202);
    expect(second.body).toMatchObject({ created: false, job: { job_id: jobId } });
  });

  it("resumes after a crash inside a chunk and between chunks: every row once, in one file", async () => {
    const db = await getDb();
    // A crash inside the third chunk, after its part is inserted and before its cursor moves: a
    // trigger fails the cursor's update once (a sequence is not rolled back, so it fails only once).
    await db.execute(sql`create sequence exj_fault_seq`);
    await db.execute(sql`
      create function exj_fault() returns trigger language plpgsql as $$
      begin
        if new.parts = 3 and nextval('exj_fault_seq') = 1 then raise exception 'injected crash'; end if;
        return new;
      end $$`);
    await db.execute(
      sql`create trigger exj_fault before update on export_jobs for each row execute function exj_fault()`,
    );
    // Two chunks, then the "worker dies": its lease is left in place.
    const t0 = Date.now();
    const out = await runExportJobs({ now: () => new Date(t0), budgetMs: 60_000 });
    expect(out).toMatchObject({ chunks_written: 2, attempts_failed: 1 });
    let [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, jobId));
    expect(job).toMatchObject({ parts: 2, attempts: 1, status: "queued" });
    expect(job!.error).toContain("export_jobs");
    const parts = await db.select().from(exportJobParts).where(eq(exportJobParts.jobId, jobId));
    expect(parts.map((p) => p.seq)).toEqual([0, 1]);
    // Progress is readable meanwhile.
    const progress = await call(jobGet, `/api/export-jobs?job_id=${jobId}`, {
      headers: { authorization: `Bearer ${jwt}` },
    });
    expect(progress.res.status).toBe(200);
    expect(progress.body.job).toMatchObject({ status: "running", attempts: 1, rows: expect.any(Number) });
    // Before its backoff the job is not retried; after it, it completes.
    const early = await runExportJobs({ now: () => new Date(t0 + 30_000), budgetMs: 60_000 });
    expect(early.chunks_written).toBe(0);
    await drain(() => new Date(t0 + 61_000));
    [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, jobId));
    expect(job!.status).toBe("succeeded");
    expect(job!.parts).toBeGreaterThan(TASKS / CHUNK);
    await db.execute(sql`drop trigger exj_fault on export_jobs`);
  });

  it("sends the whole document through the e-mailed link, counted at the end and in the audit row", async () => {
    const link = await linkOf(jobId);
    const { res, body } = await download(link);
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(0);
    expect(body.format).toBe("law25-export/1");
    expect(body.complete).toBe(true);
    const ids = (body.tasks as { id: string }[]).map((t) => t.id);
    expect(ids.length).toBe(TASKS);
    expect(new Set(ids).size).toBe(TASKS);
    expect(body.counts.tasks).toBe(TASKS);
    expect(body.api_keys.length).toBe(body.counts.api_keys);
    const db = await getDb();
    const audits = await db
      .select()
      .from(privacyAudit)
      .where(and(eq(privacyAudit.accountId, accountId), eq(privacyAudit.action, "export")));
    expect(audits.at(-1)!.details).toMatchObject({
      delivery: "job",
      job_id: jobId,
      outcome: "complete",
      tasks: TASKS,
    });
    const [mail] = await db
      .select()
      .from(emails)
      .where(eq(emails.dedupeKey, `export-ready:${jobId}`));
    expect(mail!.toAddress).toBe(email);
  });

  it("answers 404 for the link of another job, with another account's session, forged or expired", async () => {
    const link = await linkOf(jobId);
    const url = new URL(link);
    const token = url.searchParams.get("token")!;
    // Another account and its own export (small: streamed), then the first link with its session.
    const other = await openLinkedAccount(await makeKey());
    expect((await download(link, { authorization: `Bearer ${other.jwt}` })).res.status).toBe(404);
    // The same token for another job id.
    const db = await getDb();
    await db.insert(exportJobs).values({
      id: "exj_someoneelse",
      kind: "law25",
      format: "json",
      accountId: other.body.account.account_id,
      requestedBy: "client",
      notifyEmail: other.body.account.email,
      status: "succeeded",
      expiresAt: new Date(Date.now() + 3600_000),
    });
    expect((await download(`/api/export-download?job_id=exj_someoneelse&token=${token}`)).res.status).toBe(
      404,
    );
    expect((await download(`/api/export-download?job_id=${jobId}&token=${token}x`)).res.status).toBe(404);
    // The other account cannot read the job's progress either.
    const progress = await call(jobGet, `/api/export-jobs?job_id=${jobId}`, {
      headers: { authorization: `Bearer ${other.jwt}` },
    });
    expect(progress.res.status).toBe(404);
    // Past its expiry the link is 404, and the cron deletes the file.
    await db
      .update(exportJobs)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(exportJobs.id, jobId));
    expect((await download(link)).res.status).toBe(404);
    const run = await runExportJobs({ budgetMs: 60_000 });
    expect(run.files_expired).toBeGreaterThanOrEqual(1);
    expect(await db.select().from(exportJobParts).where(eq(exportJobParts.jobId, jobId))).toEqual([]);
  });

  it("retries a failing chunk with backoff, then fails the job and e-mails the requester", async () => {
    const db = await getDb();
    const first = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(first.res.status).toBe(202);
    const failing = first.body.job.job_id as string;
    // Every write of this job's cursor fails (the database refuses it).
    await db.execute(sql`
      create or replace function exj_fault() returns trigger language plpgsql as $$
      begin raise exception 'storage refused'; end $$`);
    await db.execute(
      sql`create trigger exj_fault before update of parts on export_jobs for each row execute function exj_fault()`,
    );
    const t0 = Date.now();
    await runExportJobs({ now: () => new Date(t0), budgetMs: 60_000 });
    let [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, failing));
    expect(job).toMatchObject({ status: "queued", attempts: 1 });
    expect(job!.nextAttemptAt.getTime()).toBe(t0 + 60_000);
    await runExportJobs({ now: () => new Date(t0 + 60_000), budgetMs: 60_000 });
    [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, failing));
    expect(job).toMatchObject({ status: "queued", attempts: 2 });
    // The delay doubles.
    expect(job!.nextAttemptAt.getTime()).toBe(t0 + 60_000 + 120_000);
    await runExportJobs({ now: () => new Date(t0 + 180_000), budgetMs: 60_000 });
    [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, failing));
    expect(job).toMatchObject({ status: "failed", attempts: 3, activeKey: null });
    const [mail] = await db
      .select()
      .from(emails)
      .where(eq(emails.dedupeKey, `export-failed:${failing}`));
    expect(mail!.toAddress).toBe(email);
    expect(mail!.textBody).toContain("3");
    const [audit] = await db.select().from(privacyAudit).where(eq(privacyAudit.id, job!.auditId!));
    expect(audit!.details).toMatchObject({ outcome: "failed", job_id: failing });
    await db.execute(sql`drop trigger exj_fault on export_jobs`);
    // A new request after the failure queues a new job.
    const again = await readAccount({ authorization: `Bearer ${jwt}` }, "?action=export");
    expect(again.body).toMatchObject({ created: true });
    expect(again.body.job.job_id).not.toBe(failing);
  });
});

describe("compliance export past the threshold as a job", () => {
  it("answers 202, and the CSV file has its header and every row once", async () => {
    const url = "/api/analytics?action=export&org_id=org-exj&dataset=tasks&format=csv";
    const { res, body } = await call(analyticsGet, url, { headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(202);
    const id = body.job.job_id as string;
    const progress = await call(jobGet, `/api/export-jobs?job_id=${id}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(progress.res.status).toBe(200);
    await drain();
    const file = await download(await linkOf(id));
    expect(file.res.status).toBe(200);
    expect(file.res.headers.get("content-type")).toContain("text/csv");
    const lines = (file.body as string).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^task_id,created_at,/);
    const ids = lines.slice(1).map((l) => l.split(",")[0]);
    expect(ids.length).toBe(TASKS);
    expect(new Set(ids).size).toBe(TASKS);
  });
});

describe("compliance export past the threshold asked by a staff member", () => {
  it("e-mails the link to the staff member's own address, and the link serves the file", async () => {
    const staff = await createStaff("owner");
    const url = "/api/analytics?action=export&org_id=org-exj&dataset=tasks&format=json";
    const { res, body } = await call(analyticsGet, url, { headers: staffHeaders(staff) });
    expect(res.status).toBe(202);
    const id = body.job.job_id as string;
    const progress = await call(jobGet, `/api/export-jobs?job_id=${id}`, { headers: staffHeaders(staff) });
    expect(progress.res.status).toBe(200);
    await drain();
    const db = await getDb();
    const [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, id));
    expect(job).toMatchObject({ requestedBy: `staff:${staff.staffId}`, notifyEmail: staff.email });
    const [mail] = await db
      .select()
      .from(emails)
      .where(eq(emails.dedupeKey, `export-ready:${id}`));
    expect(mail!.toAddress).toBe(staff.email);
    const file = await download(await linkOf(id));
    expect(file.res.status).toBe(200);
    expect(file.body).toMatchObject({ org_id: "org-exj", count: TASKS, complete: true });
  });
});

describe("erasure of the account", () => {
  it("deletes its export jobs and files, and the compliance exports holding its rows; others stay", async () => {
    const db = await getDb();
    // A file of the account's own (the Law 25 job queued by the last test, written out), the
    // compliance export of org-exj above (the account's tasks are in it), and a compliance export
    // of an organisation where the account has no row.
    await drain();
    await seedTasks("OTHER", 60, null, null);
    await db.execute(sql`update tasks set org_id = 'org-exj-other' where id like 'TASK-EXJ-OTHER-%'`);
    const otherUrl = "/api/analytics?action=export&org_id=org-exj-other&dataset=tasks&format=json";
    const other = await call(analyticsGet, otherUrl, { headers: { authorization: `Bearer ${admin}` } });
    expect(other.res.status).toBe(202);
    await drain();
    const before = await db.select().from(exportJobs);
    const ours = before.filter((j) => j.accountId === accountId || j.params.org_id === "org-exj");
    expect(ours.filter((j) => j.status === "succeeded").length).toBeGreaterThanOrEqual(2);
    const [withParts] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(exportJobParts)
      .where(
        inArray(
          exportJobParts.jobId,
          ours.map((j) => j.id),
        ),
      );
    expect(withParts!.n).toBeGreaterThan(0);

    const erased = await call(privacyAdminPost, "/api/privacy-admin", {
      method: "POST",
      headers: { "x-api-key": admin },
      json: { action: "process_erasure", account_id: accountId, reason: "test: export files" },
    });
    expect(erased.res.status).toBe(200);

    const after = await db.select().from(exportJobs);
    expect(after.filter((j) => ours.some((o) => o.id === j.id))).toEqual([]);
    const [left] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(exportJobParts)
      .where(
        inArray(
          exportJobParts.jobId,
          ours.map((j) => j.id),
        ),
      );
    expect(left!.n).toBe(0);
    // The other organisation's export is no copy of the account's rows: it stays, file and all.
    const kept = after.find((j) => j.id === other.body.job.job_id);
    expect(kept?.status).toBe("succeeded");
    const [audit] = await db
      .select()
      .from(privacyAudit)
      .where(and(eq(privacyAudit.accountId, accountId), eq(privacyAudit.action, "deidentified")));
    expect(audit!.details).toMatchObject({ export_jobs: ours.length, export_job_parts: withParts!.n });
  });
});

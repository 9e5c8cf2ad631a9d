/**
 * Export jobs (docs/privacy.md "Large exports"; docs/decisions.md 48-49): a Law 25 access export, or
 * a compliance export past EXPORT_JOB_THRESHOLD_ROWS, is queued as a row of `export_jobs` and
 * written by the export-jobs cron in chunks of EXPORT_JOB_CHUNK_ROWS rows. Each chunk's text is
 * stored as one row of `export_job_parts` in the transaction that moves the job's cursor, so a crash
 * anywhere resumes exactly after the last committed part: no row twice, none missing. When the last
 * part is stored the requester is e-mailed (outbox, same transaction) a link signed for that job
 * and that account only, valid EXPORT_LINK_TTL_HOURS; a chunk that fails is retried with a doubling
 * delay, and after EXPORT_JOB_MAX_ATTEMPTS the job fails and the requester is e-mailed that.
 *
 * The file is one document: a Law 25 export is the `law25-export/1` JSON document ending with
 * `counts` and `complete: true`; a compliance export is the CSV (header, then rows) or the JSON
 * `{…, records: […], count, complete: true}` of `GET /api/analytics?action=export`.
 */
import { and, asc, eq, gt, isNull, lt, lte, or, sql } from "drizzle-orm";
import {
  csvText,
  EXPORT_COLUMNS,
  type ExportFilter,
  exportFilename,
  exportPage,
} from "../analytics/exports.js";
import { signPurposeToken, verifyPurposeToken } from "../auth/jwt.js";
import { getConfig, publicBaseUrl } from "../config.js";
import { type Db, getDb, type Tx } from "../db/client.js";
import type { Lang } from "../db/schema/enums.js";
import {
  clientAccounts,
  type ExportJob,
  type ExportJobKind,
  emails,
  exportJobParts,
  exportJobs,
  privacyAudit,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { describeError } from "../log-error.js";
import { formatDateTime } from "../mail/format.js";
import { renderTemplate } from "../mail/templates.js";
import { EXPORT_SECTION_COUNT, type ExportSection, exportSections } from "../privacy/export.js";

/** Audience of an export's download token (lib/auth/jwt.ts `signPurposeToken`). */
const DOWNLOAD_AUDIENCE = "export-download";

/** What to export, as a request gives it. */
export type ExportJobRequest =
  | {
      kind: "law25";
      account: { id: string; email: string; lang: Lang };
      /** `client` or `admin:<key id>`. */
      requestedBy: string;
    }
  | {
      kind: "analytics";
      filter: ExportFilter;
      format: "csv" | "json";
      /** `admin:<key id>` or `staff:<staff id>`. */
      requestedBy: string;
      notifyEmail: string;
    };

/** The progress of a job as `GET /api/export-jobs` answers it. */
export interface ExportJobView {
  job_id: string;
  kind: ExportJobKind;
  format: "json" | "csv";
  /** `queued` (no part yet), `running`, `succeeded`, `failed`, `expired`. */
  status: "queued" | "running" | "succeeded" | "failed" | "expired";
  sections_total: number;
  sections_done: number;
  /** Rows written by section. */
  counts: Record<string, number>;
  rows: number;
  bytes: number;
  /** Failed attempts of the current chunk (0 after a success). */
  attempts: number;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string | null;
}

/** The view of `job` (see {@link ExportJobView}). */
export function exportJobView(job: ExportJob): ExportJobView {
  const total = job.kind === "law25" ? EXPORT_SECTION_COUNT : 1;
  const status = job.status === "queued" ? (job.parts > 0 ? "running" : "queued") : job.status;
  return {
    job_id: job.id,
    kind: job.kind,
    format: job.format,
    status,
    sections_total: total,
    sections_done: job.status === "succeeded" ? total : Math.max(0, Math.min(job.section, total)),
    counts: job.counts,
    rows: Object.values(job.counts).reduce((a, b) => a + b, 0),
    bytes: job.bytes,
    attempts: job.attempts,
    error: job.error,
    created_at: job.createdAt.toISOString(),
    completed_at: job.completedAt?.toISOString() ?? null,
    expires_at: job.expiresAt?.toISOString() ?? null,
  };
}

/** The path of a job's progress (the `Location` of a 202). */
export function exportJobPath(jobId: string): string {
  return `/api/export-jobs?job_id=${encodeURIComponent(jobId)}`;
}

/** The key that allows one running job per export: the account, or the compliance export's parameters. */
function activeKeyOf(request: ExportJobRequest): string {
  if (request.kind === "law25") return `law25:${request.account.id}`;
  const f = request.filter;
  return `analytics:${f.orgId}:${f.dataset}:${request.format}:${f.from.toISOString()}:${f.to.toISOString()}`;
}

/**
 * Queues the export of `request`, or returns the job already running for the same export (one
 * account's Law 25 export; the same compliance export): `created` false then. A Law 25 job writes
 * its `privacy_audit` row (`export`, `delivery: job`, `outcome: queued`) in the same transaction.
 * @returns the job and whether it is new
 */
export async function requestExportJob(
  request: ExportJobRequest,
): Promise<{ job: ExportJob; created: boolean }> {
  const db = await getDb();
  const activeKey = activeKeyOf(request);
  return db.transaction(async (tx) => {
    const [running] = await tx.select().from(exportJobs).where(eq(exportJobs.activeKey, activeKey));
    if (running) return { job: running, created: false };
    const id = prefixedId("exj");
    let auditId: number | null = null;
    if (request.kind === "law25") {
      const [audit] = await tx
        .insert(privacyAudit)
        .values({
          action: "export",
          accountId: request.account.id,
          actor: request.requestedBy,
          details: { delivery: "job", job_id: id, outcome: "queued" },
        })
        .returning({ id: privacyAudit.id });
      auditId = audit!.id;
    }
    const [job] = await tx
      .insert(exportJobs)
      .values({
        id,
        kind: request.kind,
        format: request.kind === "law25" ? "json" : request.format,
        accountId: request.kind === "law25" ? request.account.id : null,
        requestedBy: request.requestedBy,
        notifyEmail: request.kind === "law25" ? request.account.email : request.notifyEmail,
        lang: request.kind === "law25" ? request.account.lang : "en",
        params:
          request.kind === "law25"
            ? {}
            : {
                org_id: request.filter.orgId,
                dataset: request.filter.dataset,
                from: request.filter.from.toISOString(),
                to: request.filter.to.toISOString(),
              },
        activeKey,
        auditId,
      })
      .onConflictDoNothing()
      .returning();
    if (job) return { job, created: true };
    // Another request queued the same export between the read and the insert: answer with its job.
    const [other] = await tx.select().from(exportJobs).where(eq(exportJobs.activeKey, activeKey));
    if (!other) throw new DomainError("CONFLICT", "The export job changed meanwhile; ask again");
    return { job: other, created: false };
  });
}

/** How a job's file is written: its opening, its sections, its end. */
interface FilePlan {
  prelude(): string;
  sections: ExportSection[];
  /** The text of one page of rows (`first`: the section's first page). */
  render(rows: Record<string, unknown>[], first: boolean): string;
  open(name: string): string;
  close: string;
  epilogue(counts: Record<string, number>): string;
}

const jsonRows = (rows: Record<string, unknown>[], first: boolean) =>
  rows.length === 0 ? "" : `${first ? "" : ","}${rows.map((r) => JSON.stringify(r)).join(",")}`;

/** The file plan of `job`. */
async function planOf(db: Db, job: ExportJob): Promise<FilePlan> {
  if (job.kind === "law25") {
    const [account] = await db.select().from(clientAccounts).where(eq(clientAccounts.id, job.accountId!));
    if (!account) throw new Error(`export job ${job.id}: account ${job.accountId} is gone`);
    const { header, sections } = await exportSections(db, account);
    return {
      prelude: () => JSON.stringify({ ...header, job_id: job.id }).slice(0, -1),
      sections,
      render: jsonRows,
      open: (name) => `,${JSON.stringify(name)}:[`,
      close: "]",
      epilogue: (counts) => `,"counts":${JSON.stringify(counts)},"complete":true}`,
    };
  }
  const p = job.params as { org_id: string; dataset: "activity" | "tasks"; from: string; to: string };
  const filter: ExportFilter = {
    orgId: p.org_id,
    dataset: p.dataset,
    from: new Date(p.from),
    to: new Date(p.to),
  };
  const sections: ExportSection[] = [
    { name: "records", page: (after, limit) => exportPage(filter, after, limit) },
  ];
  const columns = EXPORT_COLUMNS[filter.dataset];
  if (job.format === "csv") {
    return {
      prelude: () => csvText([Object.fromEntries(columns.map((c) => [c, c]))], columns, false),
      sections,
      render: (rows) => (rows.length === 0 ? "" : csvText(rows, columns, false)),
      open: () => "",
      close: "",
      epilogue: () => "",
    };
  }
  return {
    prelude: () =>
      JSON.stringify({
        action: "export",
        org_id: p.org_id,
        dataset: p.dataset,
        from: p.from,
        to: p.to,
      }).slice(0, -1),
    sections,
    render: jsonRows,
    open: () => `,"records":[`,
    close: "]",
    epilogue: (counts) => `,"count":${counts.records ?? 0},"complete":true}`,
  };
}

/** The cursor of a job after a chunk, and the chunk's text. */
interface ChunkResult {
  text: string;
  section: number;
  after: string[] | null;
  sectionRows: number;
  counts: Record<string, number>;
  done: boolean;
}

/** Reads the next chunk of `job` (at most `chunkRows` rows, across sections) from its cursor. */
async function readChunk(db: Db, job: ExportJob, chunkRows: number): Promise<ChunkResult> {
  const plan = await planOf(db, job);
  let { section, after, sectionRows } = job;
  const counts = { ...job.counts };
  let text = "";
  let budget = chunkRows;
  if (section < 0) {
    text += plan.prelude();
    section = 0;
  }
  while (budget > 0 && section < plan.sections.length) {
    const current = plan.sections[section]!;
    if (sectionRows === 0 && after === null) text += plan.open(current.name);
    const limit = budget;
    const page = await current.page(after, limit);
    text += plan.render(page.rows, sectionRows === 0);
    sectionRows += page.rows.length;
    counts[current.name] = sectionRows;
    budget -= page.rows.length;
    if (page.rows.length < limit) {
      // A short page: the section is complete.
      text += plan.close;
      section++;
      after = null;
      sectionRows = 0;
    } else {
      after = page.last;
    }
  }
  const done = section >= plan.sections.length;
  if (done) text += plan.epilogue(counts);
  return { text, section, after, sectionRows, counts, done };
}

/** The download link of `job` (signed for the job and its account or requester, until `expiresAt`). */
async function downloadLink(job: ExportJob, expiresAt: Date): Promise<string> {
  const token = await signPurposeToken(
    DOWNLOAD_AUDIENCE,
    { job: job.id },
    { subject: ownerOf(job), expiresAt },
  );
  return `${publicBaseUrl()}/api/export-download?job_id=${encodeURIComponent(job.id)}&token=${token}`;
}

/** Whom a job's link is for: the exported account, else the requester. */
function ownerOf(job: ExportJob): string {
  return job.accountId ?? job.requestedBy;
}

/** The values every export e-mail shares. */
function mailValues(job: ExportJob): Record<string, string | number | boolean> {
  const config = getConfig();
  const p = job.params as Record<string, string>;
  return {
    job_id: job.id,
    law25: job.kind === "law25",
    account_email: job.notifyEmail,
    description: job.kind === "analytics" ? `${p.dataset} ${p.org_id} ${p.from} – ${p.to}` : "",
    format: job.format.toUpperCase(),
    operator_name: config.OPERATOR_NAME,
    contact_email: config.CONTACT_EMAIL,
  };
}

/** Queues in `tx` the e-mail `template` about `job` (idempotent per job and template). */
async function queueJobEmail(
  tx: Tx,
  job: ExportJob,
  template: "export-ready" | "export-failed",
  values: Record<string, string | number | boolean>,
): Promise<void> {
  const rendered = renderTemplate(template, job.lang, { ...mailValues(job), ...values });
  await tx
    .insert(emails)
    .values({
      id: prefixedId("em"),
      toAddress: job.notifyEmail,
      subject: rendered.subject,
      textBody: rendered.text,
      template,
      lang: job.lang,
      accountId: job.accountId,
      dedupeKey: `${template}:${job.id}`,
    })
    .onConflictDoNothing();
}

/**
 * Writes the next chunk of `job` (read at `job`'s cursor): the part and the new cursor in one
 * transaction, conditional on the cursor not having moved (another worker). On the last part the
 * job succeeds: the link e-mail is queued and a Law 25 job's audit row gets its counts, in the same
 * transaction.
 * @returns whether the job is complete
 * @throws the database's errors (the caller records the failed attempt)
 */
async function writeChunk(db: Db, job: ExportJob, now: Date): Promise<boolean> {
  const config = getConfig();
  const chunk = await readChunk(db, job, config.EXPORT_JOB_CHUNK_ROWS);
  const bytes = Buffer.byteLength(chunk.text, "utf8");
  const expiresAt = new Date(now.getTime() + config.EXPORT_LINK_TTL_HOURS * 3600_000);
  await db.transaction(async (tx) => {
    await tx.insert(exportJobParts).values({ jobId: job.id, seq: job.parts, content: chunk.text });
    const [moved] = await tx
      .update(exportJobs)
      .set({
        section: chunk.section,
        after: chunk.after,
        sectionRows: chunk.sectionRows,
        counts: chunk.counts,
        parts: job.parts + 1,
        bytes: job.bytes + bytes,
        attempts: 0,
        error: null,
        ...(chunk.done
          ? { status: "succeeded" as const, activeKey: null, completedAt: now, expiresAt, lockedUntil: null }
          : {}),
      })
      .where(and(eq(exportJobs.id, job.id), eq(exportJobs.parts, job.parts), eq(exportJobs.status, "queued")))
      .returning();
    if (!moved) throw new DomainError("CONFLICT", `export job ${job.id} moved meanwhile`);
    if (!chunk.done) return;
    const rows = Object.values(chunk.counts).reduce((a, b) => a + b, 0);
    await queueJobEmail(tx, moved, "export-ready", {
      link: await downloadLink(moved, expiresAt),
      expires_at: formatDateTime(expiresAt, moved.lang),
      rows,
      bytes: moved.bytes,
    });
    if (moved.auditId !== null) {
      await tx
        .update(privacyAudit)
        .set({ details: { delivery: "job", job_id: moved.id, outcome: "complete", ...chunk.counts } })
        .where(eq(privacyAudit.id, moved.auditId));
    }
  });
  return chunk.done;
}

/**
 * Records a failed attempt of `job`'s next chunk: the error, and the next attempt after
 * EXPORT_JOB_RETRY_SECONDS × 2^(attempts − 1); at EXPORT_JOB_MAX_ATTEMPTS the job fails, its parts
 * are deleted, the requester is e-mailed and a Law 25 job's audit row says `failed` — together.
 */
async function recordFailure(db: Db, job: ExportJob, error: unknown, now: Date): Promise<"retry" | "failed"> {
  const config = getConfig();
  const attempts = job.attempts + 1;
  const message = describeError(error).slice(0, 500);
  console.error(`[export-jobs] ${job.id} chunk ${job.parts}, attempt ${attempts}: ${message}`);
  if (attempts < config.EXPORT_JOB_MAX_ATTEMPTS) {
    const delay = config.EXPORT_JOB_RETRY_SECONDS * 1000 * 2 ** (attempts - 1);
    await db
      .update(exportJobs)
      .set({ attempts, error: message, nextAttemptAt: new Date(now.getTime() + delay), lockedUntil: null })
      .where(and(eq(exportJobs.id, job.id), eq(exportJobs.status, "queued")));
    return "retry";
  }
  await db.transaction(async (tx) => {
    const [failed] = await tx
      .update(exportJobs)
      .set({
        attempts,
        error: message,
        status: "failed",
        activeKey: null,
        completedAt: now,
        lockedUntil: null,
      })
      .where(and(eq(exportJobs.id, job.id), eq(exportJobs.status, "queued")))
      .returning();
    if (!failed) return;
    await tx.delete(exportJobParts).where(eq(exportJobParts.jobId, job.id));
    await queueJobEmail(tx, failed, "export-failed", { attempts });
    if (failed.auditId !== null) {
      await tx
        .update(privacyAudit)
        .set({
          details: {
            delivery: "job",
            job_id: failed.id,
            outcome: "failed",
            error: message,
            rows_written: failed.counts,
          },
        })
        .where(eq(privacyAudit.id, failed.auditId));
    }
  });
  return "failed";
}

/**
 * Takes the lease of the due job that waited longest (status `queued`, `next_attempt_at` past, no
 * live lease), or none.
 */
async function claimJob(db: Db, now: Date, leaseMs: number): Promise<ExportJob | undefined> {
  const due = db
    .select({ id: exportJobs.id })
    .from(exportJobs)
    .where(
      and(
        eq(exportJobs.status, "queued"),
        lte(exportJobs.nextAttemptAt, now),
        or(isNull(exportJobs.lockedUntil), lt(exportJobs.lockedUntil, now)),
      ),
    )
    .orderBy(asc(exportJobs.nextAttemptAt))
    .limit(1)
    .for("update", { skipLocked: true });
  const [job] = await db
    .update(exportJobs)
    .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
    .where(sql`${exportJobs.id} = (${due})`)
    .returning();
  return job;
}

/**
 * Ends the links past their expiry: the jobs become `expired` and their files are deleted.
 * @returns the number of jobs expired
 */
async function expireFiles(db: Db, now: Date): Promise<number> {
  const expired = await db
    .update(exportJobs)
    .set({ status: "expired" })
    .where(and(eq(exportJobs.status, "succeeded"), lt(exportJobs.expiresAt, now)))
    .returning({ id: exportJobs.id });
  for (const { id } of expired) await db.delete(exportJobParts).where(eq(exportJobParts.jobId, id));
  return expired.length;
}

/**
 * One run of the export-jobs cron: expires old files, then writes chunks of due jobs, one job at a
 * time under its lease, until none is due or `budgetMs` (default EXPORT_JOB_BUDGET_SECONDS) is
 * spent — a chunk started before the end of the budget is finished, so the budget must leave room
 * for one chunk inside the function's time limit. `now` gives the time the run reasons with
 * (tests move it forward past a retry delay).
 * @returns `{ chunks_written, jobs_completed, jobs_failed, attempts_failed, files_expired }`
 */
export async function runExportJobs(
  options: { now?: () => Date; budgetMs?: number } = {},
): Promise<Record<string, number>> {
  const config = getConfig();
  const clock = options.now ?? (() => new Date());
  const budgetMs = options.budgetMs ?? config.EXPORT_JOB_BUDGET_SECONDS * 1000;
  const started = Date.now();
  const db = await getDb();
  const out = { chunks_written: 0, jobs_completed: 0, jobs_failed: 0, attempts_failed: 0, files_expired: 0 };
  out.files_expired = await expireFiles(db, clock());
  const leaseMs = budgetMs + 60_000;
  while (Date.now() - started < budgetMs) {
    let job = await claimJob(db, clock(), leaseMs);
    if (!job) break;
    while (job && Date.now() - started < budgetMs) {
      try {
        const done = await writeChunk(db, job, clock());
        out.chunks_written++;
        if (done) {
          out.jobs_completed++;
          break;
        }
      } catch (error) {
        out.attempts_failed++;
        if ((await recordFailure(db, job, error, clock())) === "failed") out.jobs_failed++;
        break;
      }
      [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, job.id));
    }
    if (job) {
      // Out of budget mid-job, or done: free the lease so the next run (or worker) continues.
      await db
        .update(exportJobs)
        .set({ lockedUntil: null })
        .where(and(eq(exportJobs.id, job.id), gt(exportJobs.lockedUntil, clock())));
    }
  }
  return out;
}

/**
 * The job `jobId` as its reader may see it: the client of its account, or an admin (key or staff
 * owner), or the key that asked for it.
 * @throws DomainError NOT_FOUND (no such job, or not the reader's: never tells which)
 */
export async function readExportJob(
  jobId: string,
  reader: { accountId: string | null; requestedBy: string | null; isAdmin: boolean },
): Promise<ExportJobView> {
  const db = await getDb();
  const [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, jobId));
  const allowed =
    job &&
    (reader.isAdmin ||
      (reader.accountId !== null && job.accountId === reader.accountId) ||
      (reader.requestedBy !== null && job.requestedBy === reader.requestedBy));
  if (!allowed) throw new DomainError("NOT_FOUND", `No export job ${jobId}`, { field: "job_id" });
  return exportJobView(job);
}

/** A job's file ready to send: its type, name, exact length and bytes. */
export interface ExportDownload {
  contentType: string;
  filename: string;
  /** Bytes of the whole file (the Content-Length: a body cut short is visibly short). */
  length: number;
  body: ReadableStream<Uint8Array>;
}

/** Parts read per statement while a file is sent. */
const PARTS_PER_READ = 4;

/**
 * The file of job `jobId` for the link token `token`: only while the link is valid, for the job and
 * the account (or requester) it was signed for, and only when `presentedAccountId` (a client
 * session sent with the request) is that account or absent. Parts are read a few at a time as the
 * body is sent.
 * @throws DomainError NOT_FOUND for anything else (a foreign, forged or expired link, another
 *   account's session, a job not finished or its file deleted): never tells which
 */
export async function downloadExportJob(
  jobId: string,
  token: string,
  presentedAccountId: string | null,
  now = new Date(),
): Promise<ExportDownload> {
  const notFound = () => new DomainError("NOT_FOUND", `No export file ${jobId}`, { field: "job_id" });
  const claims = await verifyPurposeToken(token, DOWNLOAD_AUDIENCE);
  if (!claims || claims.job !== jobId) throw notFound();
  const db = await getDb();
  const [job] = await db.select().from(exportJobs).where(eq(exportJobs.id, jobId));
  if (job?.status !== "succeeded" || !job.expiresAt || job.expiresAt <= now) throw notFound();
  if (claims.sub !== ownerOf(job)) throw notFound();
  if (presentedAccountId !== null && presentedAccountId !== job.accountId) throw notFound();
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const parts = await db
        .select({ content: exportJobParts.content })
        .from(exportJobParts)
        .where(and(eq(exportJobParts.jobId, jobId), gt(exportJobParts.seq, next - 1)))
        .orderBy(asc(exportJobParts.seq))
        .limit(PARTS_PER_READ);
      for (const part of parts) controller.enqueue(encoder.encode(part.content));
      next += parts.length;
      if (parts.length < PARTS_PER_READ) controller.close();
    },
  });
  const filename =
    job.kind === "law25"
      ? `law25-export-${job.id}.json`
      : exportFilename(
          {
            orgId: String(job.params.org_id),
            dataset: job.params.dataset as "activity" | "tasks",
            from: new Date(),
            to: new Date(),
          },
          job.format,
        );
  return {
    contentType: job.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
    filename,
    length: job.bytes,
    body,
  };
}

import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { clientAccounts } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";
import type { Lang } from "./enums.js";

/** What an export job produces: a Law 25 access export, or an operator's compliance export. */
export const EXPORT_JOB_KINDS = ["law25", "analytics"] as const;
export type ExportJobKind = (typeof EXPORT_JOB_KINDS)[number];

/**
 * State of an export job (docs/privacy.md "Large exports"): `queued` (waiting for its next chunk,
 * possibly after a failed attempt), `succeeded` (its file is whole in `export_job_parts`),
 * `failed` (gave up after EXPORT_JOB_MAX_ATTEMPTS; the requester was e-mailed), `expired` (the link
 * ended and the file was deleted).
 */
export const EXPORT_JOB_STATUSES = ["queued", "succeeded", "failed", "expired"] as const;
export type ExportJobStatus = (typeof EXPORT_JOB_STATUSES)[number];

/**
 * Large exports run in chunks by the export-jobs cron (lib/exports/jobs.ts; docs/decisions.md 48).
 * The cursor (`section`, `after`, `section_rows`, `counts`, `parts`, `bytes`) is updated in the
 * transaction that stores the chunk's part, so a crash between chunks resumes exactly after the
 * last committed part.
 */
export const exportJobs = pgTable(
  "export_jobs",
  {
    /** `exj_<id>`. */
    id: text("id").primaryKey(),
    kind: text("kind").$type<ExportJobKind>().notNull(),
    /** `json` or `csv`: the file's format. */
    format: text("format").$type<"json" | "csv">().notNull(),
    /** The account exported (kind `law25`). */
    accountId: text("account_id").references(() => clientAccounts.id, { onDelete: "cascade" }),
    /** Who asked: `client`, `admin:<key id>`, `staff:<staff id>`. */
    requestedBy: text("requested_by").notNull(),
    /** Where the link (or the failure notice) is e-mailed. */
    notifyEmail: text("notify_email").notNull(),
    lang: text("lang").$type<Lang>().notNull().default("en"),
    /** What to export (kind `analytics`: `{org_id, dataset, from, to}`); ids and dates only. */
    params: jsonb("params").$type<Record<string, unknown>>().notNull().default({}),
    /** While queued: one running job per key (`law25:<account id>`, `analytics:<org>:…`); null once ended. */
    activeKey: text("active_key"),
    status: text("status").$type<ExportJobStatus>().notNull().default("queued"),
    /** Index of the section being written; -1 before the file's opening is written. */
    section: integer("section").notNull().default(-1),
    /** Key (as text) of the last row written in `section`; null at the section's start. */
    after: jsonb("after").$type<string[] | null>(),
    /** Rows written so far in `section`. */
    sectionRows: integer("section_rows").notNull().default(0),
    /** Rows written, by section name. */
    counts: jsonb("counts").$type<Record<string, number>>().notNull().default({}),
    /** Parts stored so far (the next part's `seq`). */
    parts: integer("parts").notNull().default(0),
    /** Bytes (UTF-8) of the parts stored so far. */
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
    /** Failed attempts in a row of the current chunk. */
    attempts: integer("attempts").notNull().default(0),
    /** When the next chunk is due (a failed attempt backs off). */
    nextAttemptAt: timestamptz("next_attempt_at").notNull().defaultNow(),
    /** Lease of the worker writing a chunk; past it another may take the job. */
    lockedUntil: timestamptz("locked_until"),
    /** The last failure's message (no personal value: database and code errors). */
    error: text("error"),
    /** The `privacy_audit` row of a Law 25 export. */
    auditId: bigint("audit_id", { mode: "number" }),
    createdAt: createdAt(),
    completedAt: timestamptz("completed_at"),
    /** End of the download link; the cron deletes the file after it. */
    expiresAt: timestamptz("expires_at"),
  },
  (t) => [
    uniqueIndex("export_jobs_active_key_uq").on(t.activeKey).where(sql`${t.activeKey} is not null`),
    index("export_jobs_status_next_attempt_at_idx").on(t.status, t.nextAttemptAt),
    index("export_jobs_account_id_idx").on(t.accountId),
  ],
);

/** The file of an export job, in parts written one per chunk, read in `seq` order. */
export const exportJobParts = pgTable(
  "export_job_parts",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => exportJobs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    /** UTF-8 text of this part of the file. */
    content: text("content").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.seq] })],
);

export type ExportJob = typeof exportJobs.$inferSelect;

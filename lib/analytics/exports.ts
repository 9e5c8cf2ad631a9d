/**
 * The compliance exports of GET /api/analytics (`action=export&org_id=&format=csv|json&dataset=
 * activity|tasks`; docs/accounts.md "Analytics"): an organisation's activity rows or tasks over a
 * period, read in keyset pages of {@link EXPORT_PAGE_ROWS}, as CSV (csv-stringify, formula injection
 * neutralized) or JSON (streamed as it is read, issue 32 item 4). An export past
 * EXPORT_JOB_THRESHOLD_ROWS runs as an export job (lib/exports/jobs.ts; docs/decisions.md 48).
 */
import { stringify as stringifySync } from "csv-stringify/sync";
import { and, asc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { keyCompare } from "../db/keyset-pages.js";
import { activityLog, tasks } from "../db/schema/index.js";
import { timestampText } from "../db/timestamp-text.js";
import { describeError } from "../log-error.js";
import { jsonWithArray, textStream } from "../text-stream.js";
import type { AnalyticsQuery } from "./schemas.js";

/**
 * A CSV document to download: `filename` (letters, digits, `_.-` only) and `body`, the whole CSV
 * text (at most EXPORT_JOB_THRESHOLD_ROWS rows; larger exports run as jobs). The HTTP adapter
 * sends it as `text/csv` with a Content-Disposition attachment.
 */
export class CsvExport {
  constructor(
    readonly filename: string,
    readonly body: string,
  ) {}
}

/**
 * A JSON document streamed as it is produced (the compliance export with `format=json`): `body`,
 * the bytes of `{action, org_id, dataset, from, to, records: [...], count}`, `records` written page
 * by page. The HTTP adapter sends it as `application/json`.
 */
export class JsonExport {
  constructor(readonly body: ReadableStream<Uint8Array>) {}
}

/** Rows per page of a streamed export (one indexed range read each). */
export const EXPORT_PAGE_ROWS = 5_000;

/** First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Neutralizes CSV formula injection (OWASP "CSV Injection"): a cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return gets a leading `'`, so Excel, LibreOffice and Google Sheets
 * show it as text instead of evaluating it. Other strings are returned unchanged. Used as
 * csv-stringify's `cast.string` hook, so every string cell of every export goes through it
 * (quoting alone does not help: a quoted `"=1+1"` is still a formula once parsed).
 * @param value one cell's text
 * @returns the text to write (csv-stringify still quotes it when it holds separators or quotes)
 */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** Columns of the CSV exports, in order. */
export const EXPORT_COLUMNS = {
  activity: [
    "at",
    "request_id",
    "api_key_id",
    "ip",
    "method",
    "endpoint",
    "status",
    "latency_ms",
    "agent_model",
    "agent_name",
    "org_id",
  ],
  tasks: [
    "task_id",
    "created_at",
    "service_type",
    "status",
    "urgency",
    "location_address",
    "task_description",
    "requester_contact",
    "agent_identity",
    "estimate_cad",
    "price_cad",
    "payment_method",
    "paid_at",
    "completed_at",
  ],
} as const;

/** An activity row as the export writes it. */
function activityRecord(r: typeof activityLog.$inferSelect): Record<string, unknown> {
  return {
    at: r.at.toISOString(),
    request_id: r.requestId,
    api_key_id: r.apiKeyId,
    ip: r.ip,
    method: r.method,
    endpoint: r.endpoint,
    status: r.status,
    latency_ms: r.latencyMs,
    agent_model: r.agentModel,
    agent_name: r.agentName,
    org_id: r.orgId,
  };
}

/** A task row as the export writes it. */
function taskRecord(t: typeof tasks.$inferSelect): Record<string, unknown> {
  return {
    task_id: t.id,
    created_at: t.createdAt.toISOString(),
    service_type: t.serviceType,
    status: t.status,
    urgency: t.urgency,
    location_address: t.locationAddress,
    task_description: t.taskDescription,
    requester_contact: t.requesterContact,
    agent_identity: t.agentIdentity,
    estimate_cad: t.estimateCad,
    price_cad: t.priceCad,
    payment_method: t.paymentMethod,
    paid_at: t.paidAt?.toISOString() ?? null,
    completed_at: t.completedAt?.toISOString() ?? null,
  };
}

/** The filter of an export's rows: one organisation over `[from, to)`. */
export interface ExportFilter {
  dataset: AnalyticsQuery["dataset"];
  orgId: string;
  from: Date;
  to: Date;
}

/** The `where` of `filter`'s rows (sandbox tasks excluded), without any page bound. */
function filterWhere(f: ExportFilter): SQL {
  if (f.dataset === "activity")
    return and(eq(activityLog.orgId, f.orgId), gte(activityLog.at, f.from), lt(activityLog.at, f.to))!;
  return and(
    eq(tasks.orgId, f.orgId),
    eq(tasks.sandbox, false),
    gte(tasks.createdAt, f.from),
    lt(tasks.createdAt, f.to),
  )!;
}

/**
 * One keyset page of an export: up to `limit` records after the key `after` (`[time, id]` as text;
 * null: from the start) in (time, id) order — activity by `(at, id)`, tasks by `(created_at, id)`,
 * each page a range of the organisation's index — and the last record's key.
 */
export async function exportPage(
  f: ExportFilter,
  after: string[] | null,
  limit: number,
): Promise<{ rows: Record<string, unknown>[]; last: string[] | null }> {
  const db = await getDb();
  if (f.dataset === "activity") {
    const rows = await db
      .select({ row: activityLog, key: timestampText(activityLog.at) })
      .from(activityLog)
      .where(
        and(filterWhere(f), after ? keyCompare([activityLog.at, activityLog.id], ">", after) : undefined),
      )
      .orderBy(asc(activityLog.at), asc(activityLog.id))
      .limit(limit);
    const last = rows.at(-1);
    return {
      rows: rows.map((r) => activityRecord(r.row)),
      last: last ? [last.key, String(last.row.id)] : null,
    };
  }
  const rows = await db
    .select({ task: tasks, key: timestampText(tasks.createdAt) })
    .from(tasks)
    .where(and(filterWhere(f), after ? keyCompare([tasks.createdAt, tasks.id], ">", after) : undefined))
    .orderBy(asc(tasks.createdAt), asc(tasks.id))
    .limit(limit);
  const last = rows.at(-1);
  return { rows: rows.map((r) => taskRecord(r.task)), last: last ? [last.key, last.task.id] : null };
}

/** The export's records, page by page ({@link exportPage} of EXPORT_PAGE_ROWS). */
async function* exportRecords(f: ExportFilter): AsyncGenerator<Record<string, unknown>> {
  let after: string[] | null = null;
  for (;;) {
    const page = await exportPage(f, after, EXPORT_PAGE_ROWS);
    yield* page.rows;
    if (page.rows.length < EXPORT_PAGE_ROWS) return;
    after = page.last;
  }
}

/**
 * Whether the export of `f` has more than `threshold` records, read as a capped count (at most
 * `threshold + 1` index entries, whatever the organisation's size).
 */
export async function exportExceeds(f: ExportFilter, threshold: number): Promise<boolean> {
  const db = await getDb();
  const table = f.dataset === "activity" ? activityLog : tasks;
  const inner = db
    .select({ one: sql`1` })
    .from(table)
    .where(filterWhere(f))
    .limit(threshold + 1);
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(inner.as("capped"));
  return (row?.n ?? 0) > threshold;
}

/**
 * An export past EXPORT_JOB_THRESHOLD_ROWS: answered 202 by the HTTP adapter, which queues it as
 * an export job (lib/exports/jobs.ts) instead of answering the file in this request.
 */
export class LargeExport {
  constructor(
    readonly filter: ExportFilter,
    readonly format: "csv" | "json",
  ) {}
}

/** The CSV text of `records` with a header of `columns` (every string cell through `neutralizeFormula`). */
export function csvText(
  records: Record<string, unknown>[],
  columns: readonly string[],
  header: boolean,
): string {
  return stringifySync(records, {
    header,
    columns: [...columns],
    cast: { boolean: (v) => String(v), string: neutralizeFormula },
  });
}

/**
 * The export of `query` for organisation `orgId` over `[from, to)`: past `threshold` records a
 * {@link LargeExport} (the adapter queues a job, docs/decisions.md 48); below it, JSON is streamed
 * with its `count` and `complete: true` last (a reader of a body cut short never sees them), and
 * CSV — which has no place for such a record — is built whole before its first byte (at most
 * `threshold` rows), so a failure is answered in the error envelope, never as a truncated 200
 * (docs/decisions.md 50).
 */
export async function exportOrg(
  query: AnalyticsQuery,
  orgId: string,
  from: Date,
  to: Date,
  threshold: number,
): Promise<CsvExport | JsonExport | LargeExport> {
  const filter: ExportFilter = { dataset: query.dataset, orgId, from, to };
  if (await exportExceeds(filter, threshold)) return new LargeExport(filter, query.format);
  if (query.format === "json") {
    const head = {
      action: "export",
      org_id: orgId,
      dataset: query.dataset,
      from: from.toISOString(),
      to: to.toISOString(),
    };
    let count = 0;
    async function* counted() {
      for await (const r of exportRecords(filter)) {
        count++;
        yield r;
      }
    }
    const pieces = jsonWithArray(head, "records", counted(), () => ({ count, complete: true }));
    return new JsonExport(
      textStream(pieces, (e) => console.error(`[analytics] export of ${orgId}: ${describeError(e)}`)),
    );
  }
  const records: Record<string, unknown>[] = [];
  for await (const r of exportRecords(filter)) records.push(r);
  return new CsvExport(exportFilename(filter, "csv"), csvText(records, EXPORT_COLUMNS[query.dataset], true));
}

/** The download name of an export of `f`: letters, digits and `_.-` only. */
export function exportFilename(f: ExportFilter, format: "csv" | "json"): string {
  const safeOrg = f.orgId.replace(/[^A-Za-z0-9_.-]/g, "_");
  return `org-${safeOrg}-${f.dataset}.${format}`;
}

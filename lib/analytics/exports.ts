/**
 * The compliance exports of GET /api/analytics (`action=export&org_id=&format=csv|json&dataset=
 * activity|tasks`; docs/accounts.md "Analytics"): an organisation's activity rows or tasks over a
 * period, read in keyset pages of {@link EXPORT_PAGE_ROWS} and streamed as they are read (issue 32
 * item 4), as CSV (csv-stringify, formula injection neutralized) or JSON.
 */
import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { and, asc, eq, gte, lt } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { keyCompare, keysetPages } from "../db/keyset-pages.js";
import { activityLog, tasks } from "../db/schema/index.js";
import { timestampText } from "../db/timestamp-text.js";
import { describeError } from "../log-error.js";
import { jsonWithArray, textStream } from "../text-stream.js";
import type { AnalyticsQuery } from "./schemas.js";

/**
 * A CSV document to download, streamed (issue 32 item 4): `filename` (letters, digits, `_.-`
 * only) and `body`, the CSV bytes as they are produced from pages of rows, so an export of any
 * size never sits whole in memory. The HTTP adapter sends it as `text/csv` with a
 * Content-Disposition attachment.
 */
export class CsvExport {
  constructor(
    readonly filename: string,
    readonly body: ReadableStream<Uint8Array>,
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

/**
 * The CSV of `records` with a header of `columns`, as a byte stream (csv-stringify's stream API;
 * every string cell through `neutralizeFormula`).
 */
function csvStream(
  records: AsyncIterable<Record<string, unknown>>,
  columns: readonly string[],
): ReadableStream<Uint8Array> {
  const stringifier = stringify({
    header: true,
    columns: [...columns],
    cast: { boolean: (v) => String(v), string: neutralizeFormula },
  });
  Readable.from(records)
    .on("error", (e) => stringifier.destroy(e))
    .pipe(stringifier);
  return Readable.toWeb(stringifier) as unknown as ReadableStream<Uint8Array>;
}

/** The rows of a keyset-paged query ({@link keysetPages} of EXPORT_PAGE_ROWS), one by one. */
async function* pages<R, K>(
  page: (after: K | null) => Promise<R[]>,
  keyOf: (row: R) => K,
): AsyncGenerator<R> {
  for await (const rows of keysetPages(page, keyOf, EXPORT_PAGE_ROWS)) yield* rows;
}

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

/**
 * The export's records, page by page in (time, id) order: activity by `(at, id)`, tasks by
 * `(created_at, id)`, each page a keyset range of the organisation's index.
 */
async function* exportRecords(
  dataset: AnalyticsQuery["dataset"],
  orgId: string,
  from: Date,
  to: Date,
): AsyncGenerator<Record<string, unknown>> {
  const db = await getDb();
  if (dataset === "activity") {
    const rows = pages(
      (after: { at: string; id: number } | null) =>
        db
          .select({ row: activityLog, key: timestampText(activityLog.at) })
          .from(activityLog)
          .where(
            and(
              eq(activityLog.orgId, orgId),
              gte(activityLog.at, from),
              lt(activityLog.at, to),
              after
                ? keyCompare([activityLog.at, activityLog.id], ">", [after.at, String(after.id)])
                : undefined,
            ),
          )
          .orderBy(asc(activityLog.at), asc(activityLog.id))
          .limit(EXPORT_PAGE_ROWS),
      (r) => ({ at: r.key, id: r.row.id }),
    );
    for await (const r of rows) yield activityRecord(r.row);
    return;
  }
  const rows = pages(
    (after: { at: string; id: string } | null) =>
      db
        .select({
          task: tasks,
          key: timestampText(tasks.createdAt),
        })
        .from(tasks)
        .where(
          and(
            eq(tasks.orgId, orgId),
            eq(tasks.sandbox, false),
            gte(tasks.createdAt, from),
            lt(tasks.createdAt, to),
            after ? keyCompare([tasks.createdAt, tasks.id], ">", [after.at, after.id]) : undefined,
          ),
        )
        .orderBy(asc(tasks.createdAt), asc(tasks.id))
        .limit(EXPORT_PAGE_ROWS),
    (r) => ({ at: r.key, id: r.task.id }),
  );
  for await (const r of rows) yield taskRecord(r.task);
}

export async function exportOrg(
  query: AnalyticsQuery,
  orgId: string,
  from: Date,
  to: Date,
): Promise<CsvExport | JsonExport> {
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
      for await (const r of exportRecords(query.dataset, orgId, from, to)) {
        count++;
        yield r;
      }
    }
    const pieces = jsonWithArray(head, "records", counted(), () => ({ count }));
    return new JsonExport(
      textStream(pieces, (e) => console.error(`[analytics] export of ${orgId}: ${describeError(e)}`)),
    );
  }
  const safeOrg = orgId.replace(/[^A-Za-z0-9_.-]/g, "_");
  return new CsvExport(
    `org-${safeOrg}-${query.dataset}.csv`,
    csvStream(exportRecords(query.dataset, orgId, from, to), EXPORT_COLUMNS[query.dataset]),
  );
}

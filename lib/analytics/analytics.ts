/**
 * Operator analytics (GET /api/analytics, admin). Sandbox tasks are excluded
 * everywhere; periods are calendar days in America/Toronto (`date_from`/`date_to`,
 * inclusive; default the last 30 days, the dashboard the last 12 weeks).
 *
 * - `agents`: requests per agent identity (`X-Agent-Identity` {model}/{agent_name}/{org_id})
 *   from the activity log's daily roll-ups (lib/db/schema/activity-rollups.ts, kept exact by
 *   triggers): requests, errors (HTTP ≥ 400), distinct keys, mean latency, first and last seen.
 * - `org` (`org_id`): the organization's requests by endpoint, its agents, its tasks by
 *   status with revenue, and the prepaid account carrying that `org_id`, if any.
 * - `export` (`org_id`, `format=csv|json`, `dataset=activity|tasks`): compliance export.
 * - `dashboard`: revenue by service and ISO week, top clients, completion rate.
 *
 * Revenue of a task = the amount received for it (its prepaid-account charge after
 * discount, else its price) less any refund granted, counted in the ISO week of payment.
 * Completion rate = completed ÷ (completed + failed + cancelled) among paid tasks that ended.
 */
import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { and, asc, count, desc, eq, gte, lt, lte, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { dayRange, OPERATOR_TIMEZONE } from "../billing/dates.js";
import { getDb } from "../db/client.js";
import {
  activityAgentsDaily,
  activityEndpointsDaily,
  activityLog,
  apiKeys,
  clientAccounts,
  ledgerEntries,
  tasks,
} from "../db/schema/index.js";
import { timestampText } from "../db/timestamp-text.js";
import { DomainError } from "../errors.js";
import { describeError } from "../log-error.js";
import { roundCad } from "../money.js";
import { jsonWithArray, textStream } from "../text-stream.js";
import type { AnalyticsQuery } from "./schemas.js";

/**
 * The period of `query`: `from`/`to` the instants bounding it (`to` exclusive), `fromDay`/`toDay`
 * its first and last calendar days in America/Toronto (YYYY-MM-DD, inclusive), the days of the
 * activity roll-ups it covers.
 */
function period(
  query: AnalyticsQuery,
  defaultDays: number,
): { from: Date; to: Date; fromDay: string; toDay: string } {
  const today = DateTime.now().setZone(OPERATOR_TIMEZONE).toISODate()!;
  const toDay = query.date_to ?? today;
  const fromDay =
    query.date_from ??
    DateTime.fromISO(toDay)
      .minus({ days: defaultDays - 1 })
      .toISODate()!;
  const range = dayRange(fromDay, toDay);
  return { from: range.from!, to: range.to!, fromDay, toDay };
}

function orgIdOf(query: AnalyticsQuery): string {
  if (!query.org_id)
    throw new DomainError("MISSING_FIELD", `org_id is required for action=${query.action}`, {
      field: "org_id",
    });
  return query.org_id;
}

/** A CAD sum (SQL numeric, as text or number) rounded to the cent by lib/money.ts's rule. */
const round2 = (n: number | string | null) => roundCad(Number(n ?? 0));

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

/**
 * The rows of a keyset-paged query, page after page: `page(after)` reads up to EXPORT_PAGE_ROWS
 * rows after the key `after` (null first), `keyOf` gives a row's key.
 */
async function* pages<R, K>(
  page: (after: K | null) => Promise<R[]>,
  keyOf: (row: R) => K,
): AsyncGenerator<R> {
  let after: K | null = null;
  for (;;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < EXPORT_PAGE_ROWS) return;
    after = keyOf(rows[rows.length - 1]!);
  }
}

/** Runs the analytics `query.action`; `export` with format csv returns a `CsvExport`, the others JSON data. */
export async function runAnalytics(query: AnalyticsQuery): Promise<unknown> {
  await flushActivityBeforeRead();
  switch (query.action) {
    case "agents":
      return agents(query);
    case "org":
      return org(query);
    case "export":
      return exportOrg(query);
    case "dashboard":
      return dashboard(query);
  }
}

/**
 * Requests per valid agent identity (model, name, org) on the days `fromDay`..`toDay` (inclusive,
 * America/Toronto) and, when given, of organization `orgId`, busiest first, at most `limit`; read
 * from the daily roll-up `activity_agents_daily` (one row per day, identity and key), which equals a
 * recount of the log (docs/decisions.md 21). `keys` counts distinct keys over those rows;
 * `avg_latency_ms` is the rounded mean latency (ms); `agent_name` is null once erased.
 */
async function agentRows(fromDay: string, toDay: string, orgId: string | undefined, limit: number) {
  const db = await getDb();
  const d = activityAgentsDaily;
  // Per identity and key first, then per identity: distinct keys are the rows of the inner
  // grouping, so no count(distinct) (a sort of every roll-up row of the period).
  const perKey = db
    .select({
      agentModel: d.agentModel,
      agentName: d.agentName,
      orgId: d.orgId,
      apiKeyId: d.apiKeyId,
      requests: sql<number>`sum(${d.requests})`.as("requests"),
      errors: sql<number>`sum(${d.errors})`.as("errors"),
      latencyMsSum: sql<number>`sum(${d.latencyMsSum})`.as("latency_ms_sum"),
      firstAt: sql<Date>`min(${d.firstAt})`.as("first_at"),
      lastAt: sql<Date>`max(${d.lastAt})`.as("last_at"),
    })
    .from(d)
    .where(and(gte(d.day, fromDay), lte(d.day, toDay), orgId === undefined ? undefined : eq(d.orgId, orgId)))
    .groupBy(d.agentModel, d.agentName, d.orgId, d.apiKeyId)
    .as("per_key");
  const requests = sql<number>`sum(${perKey.requests})`;
  const agentName = sql<string | null>`nullif(${perKey.agentName}, '')`;
  return db
    .select({
      agent_model: perKey.agentModel,
      agent_name: agentName,
      org_id: perKey.orgId,
      requests: requests.mapWith(Number),
      errors: sql<number>`sum(${perKey.errors})`.mapWith(Number),
      keys: sql<number>`count(*) filter (where ${perKey.apiKeyId} <> '')`.mapWith(Number),
      avg_latency_ms: sql<number>`round(sum(${perKey.latencyMsSum})::numeric / ${requests})`.mapWith(Number),
      first_seen: sql<string>`min(${perKey.firstAt})`.mapWith((v) => new Date(v).toISOString()),
      last_seen: sql<string>`max(${perKey.lastAt})`.mapWith((v) => new Date(v).toISOString()),
    })
    .from(perKey)
    .groupBy(perKey.agentModel, perKey.agentName, perKey.orgId)
    .orderBy(desc(requests), asc(agentName))
    .limit(limit);
}

async function agents(query: AnalyticsQuery) {
  const { from, to, fromDay, toDay } = period(query, 30);
  const rows = await agentRows(fromDay, toDay, undefined, query.limit ?? 100);
  return {
    action: "agents",
    from: from.toISOString(),
    to: to.toISOString(),
    agents: rows,
    count: rows.length,
  };
}

const taskRevenue = sql<string>`coalesce(-${ledgerEntries.amountCad}, ${tasks.priceCad}, 0) - case when ${tasks.refundStatus} = 'refunded' then coalesce(${tasks.refundAmountCad}, 0) else 0 end`;

async function org(query: AnalyticsQuery) {
  const orgId = orgIdOf(query);
  const { from, to, fromDay, toDay } = period(query, 30);
  const db = await getDb();
  const e = activityEndpointsDaily;
  const taskWhere = and(
    eq(tasks.orgId, orgId),
    eq(tasks.sandbox, false),
    gte(tasks.createdAt, from),
    lt(tasks.createdAt, to),
  );
  const endpointRequests = sql<number>`sum(${e.requests})`;
  const [endpoints, agentList, byStatus, [account]] = await Promise.all([
    db
      .select({
        method: e.method,
        endpoint: e.endpoint,
        requests: endpointRequests.mapWith(Number),
        errors: sql<number>`sum(${e.errors})`.mapWith(Number),
      })
      .from(e)
      .where(and(eq(e.orgId, orgId), gte(e.day, fromDay), lte(e.day, toDay)))
      .groupBy(e.method, e.endpoint)
      .orderBy(desc(endpointRequests), asc(e.endpoint)),
    agentRows(fromDay, toDay, orgId, 1000),
    db
      .select({
        status: tasks.status,
        tasks: count(),
        revenue: sql<string>`sum(case when ${tasks.paidAt} is not null then ${taskRevenue} else 0 end)`,
      })
      .from(tasks)
      .leftJoin(ledgerEntries, and(eq(ledgerEntries.taskId, tasks.id), eq(ledgerEntries.kind, "charge")))
      .where(taskWhere)
      .groupBy(tasks.status)
      .orderBy(asc(tasks.status)),
    db
      .select({ account_id: clientAccounts.id, email: clientAccounts.email, status: clientAccounts.status })
      .from(clientAccounts)
      .where(eq(clientAccounts.orgId, orgId)),
  ]);
  const requests = endpoints.reduce((s, e) => s + e.requests, 0);
  return {
    action: "org",
    org_id: orgId,
    from: from.toISOString(),
    to: to.toISOString(),
    requests: {
      total: requests,
      errors: endpoints.reduce((s, e) => s + e.errors, 0),
      by_endpoint: endpoints,
    },
    agents: agentList,
    tasks: {
      total: byStatus.reduce((s, r) => s + r.tasks, 0),
      by_status: Object.fromEntries(byStatus.map((r) => [r.status, r.tasks])),
      revenue_cad: round2(byStatus.reduce((s, r) => s + Number(r.revenue ?? 0), 0)),
    },
    account: account ?? null,
  };
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
                ? sql`(${activityLog.at}, ${activityLog.id}) > (${after.at}::timestamptz, ${after.id})`
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
            after
              ? sql`(${tasks.createdAt}, ${tasks.id}) > (${after.at}::timestamptz, ${after.id})`
              : undefined,
          ),
        )
        .orderBy(asc(tasks.createdAt), asc(tasks.id))
        .limit(EXPORT_PAGE_ROWS),
    (r) => ({ at: r.key, id: r.task.id }),
  );
  for await (const r of rows) yield taskRecord(r.task);
}

async function exportOrg(query: AnalyticsQuery): Promise<unknown> {
  const orgId = orgIdOf(query);
  const { from, to } = period(query, 30);
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

async function dashboard(query: AnalyticsQuery) {
  const { from, to } = period(query, 84);
  const db = await getDb();
  const paidWhere = and(
    eq(tasks.sandbox, false),
    sql`${tasks.paidAt} is not null`,
    gte(tasks.paidAt, from),
    lt(tasks.paidAt, to),
  );
  const chargeJoin = and(eq(ledgerEntries.taskId, tasks.id), eq(ledgerEntries.kind, "charge"));
  // The zone is a constant inlined (not a parameter), so that GROUP BY matches the select list.
  const week = sql<string>`to_char(${tasks.paidAt} at time zone ${sql.raw(`'${OPERATOR_TIMEZONE}'`)}, 'IYYY-"W"IW')`;
  const client = sql<string>`coalesce(${apiKeys.contact}, ${tasks.requesterContact})`;
  const [revenue, clients, outcomes, created] = await Promise.all([
    db
      .select({
        week,
        service_type: tasks.serviceType,
        tasks: count(),
        revenue: sql<string>`sum(${taskRevenue})`,
      })
      .from(tasks)
      .leftJoin(ledgerEntries, chargeJoin)
      .where(paidWhere)
      .groupBy(week, tasks.serviceType)
      .orderBy(week, tasks.serviceType),
    db
      .select({ client, tasks: count(), revenue: sql<string>`sum(${taskRevenue})` })
      .from(tasks)
      .leftJoin(ledgerEntries, chargeJoin)
      .leftJoin(apiKeys, eq(apiKeys.id, tasks.apiKeyId))
      .where(paidWhere)
      .groupBy(client)
      .orderBy(sql`sum(${taskRevenue}) desc`, client)
      .limit(10),
    db.select({ status: tasks.status, n: count() }).from(tasks).where(paidWhere).groupBy(tasks.status),
    db
      .select({ status: tasks.status, n: count() })
      .from(tasks)
      .where(and(eq(tasks.sandbox, false), gte(tasks.createdAt, from), lt(tasks.createdAt, to)))
      .groupBy(tasks.status),
  ]);
  const ended = Object.fromEntries(outcomes.map((o) => [o.status, o.n])) as Record<string, number>;
  const completed = ended.completed ?? 0;
  const denominator = completed + (ended.failed ?? 0) + (ended.cancelled ?? 0);
  const accounts = await db
    .select({ email: clientAccounts.email, id: clientAccounts.id })
    .from(clientAccounts);
  const accountOf = new Map(accounts.map((a) => [a.email, a.id]));
  return {
    action: "dashboard",
    from: from.toISOString(),
    to: to.toISOString(),
    currency: "CAD",
    revenue_by_service_week: revenue.map((r) => ({
      iso_week: r.week,
      service_type: r.service_type,
      tasks: r.tasks,
      revenue_cad: round2(r.revenue),
    })),
    revenue_total_cad: round2(revenue.reduce((s, r) => s + Number(r.revenue ?? 0), 0)),
    top_clients: clients.map((c) => ({
      client: c.client,
      account_id: accountOf.get(c.client) ?? null,
      tasks: c.tasks,
      revenue_cad: round2(c.revenue),
    })),
    completion_rate: {
      completed,
      failed: ended.failed ?? 0,
      cancelled: ended.cancelled ?? 0,
      rate: denominator === 0 ? null : Math.round((completed / denominator) * 10_000) / 10_000,
    },
    tasks_created_by_status: Object.fromEntries(created.map((c) => [c.status, c.n])),
  };
}

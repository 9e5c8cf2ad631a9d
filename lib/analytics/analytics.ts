import { and, asc, count, desc, eq, gte, lt, lte, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { dayRange, OPERATOR_TIMEZONE } from "../billing/dates.js";
import { getDb } from "../db/client.js";
import {
  activityAgentsDaily,
  activityEndpointsDaily,
  apiKeys,
  clientAccounts,
  ledgerEntries,
  tasks,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { roundCad } from "../money.js";
import { exportOrg } from "./exports.js";
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

/** Runs the analytics `query.action`; `export` with format csv returns a `CsvExport`, the others JSON data. */
export async function runAnalytics(query: AnalyticsQuery): Promise<unknown> {
  await flushActivityBeforeRead();
  switch (query.action) {
    case "agents":
      return agents(query);
    case "org":
      return org(query);
    case "export": {
      const { from, to } = period(query, 30);
      return exportOrg(query, orgIdOf(query), from, to);
    }
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

import { and, asc, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import { DateTime } from "luxon";
import { flushActivityBeforeRead } from "../activity/record-activity.js";
import { dayRange } from "../billing/dates.js";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import {
  activityAgentsDaily,
  activityAgentsWeekly,
  activityEndpointsDaily,
  clientAccounts,
  tasksCreatedDaily,
  tasksOrgDaily,
  tasksPaidDaily,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { roundCad } from "../money.js";
import { exportOrg } from "./exports.js";
import { splitPeriod, today, wholeWeeks } from "./periods.js";
import type { AnalyticsQuery } from "./schemas.js";
import { topClients } from "./top-clients.js";

export { wholeWeeks } from "./periods.js";

/**
 * The period of `query`: `from`/`to` the instants bounding it (`to` exclusive), `fromDay`/`toDay`
 * its first and last calendar days in America/Toronto (YYYY-MM-DD, inclusive), the days of the
 * activity roll-ups it covers.
 */
function period(
  query: AnalyticsQuery,
  defaultDays: number,
): { from: Date; to: Date; fromDay: string; toDay: string } {
  const toDay = query.date_to ?? today();
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
  // The actions that read the activity log (or its roll-ups) see this instance's queued rows;
  // the dashboard reads only the task roll-ups.
  if (query.action !== "dashboard") await flushActivityBeforeRead();
  switch (query.action) {
    case "agents":
      return agents(query);
    case "org":
      return org(query);
    case "export": {
      const { from, to } = period(query, 30);
      return exportOrg(query, orgIdOf(query), from, to, getConfig().EXPORT_JOB_THRESHOLD_ROWS);
    }
    case "dashboard":
      return dashboard(query);
  }
}

/**
 * Requests per valid agent identity (model, name, org) on the days `fromDay`..`toDay` (inclusive,
 * America/Toronto) and, when given, of organization `orgId`, busiest first, at most `limit`; read
 * from the roll-ups (docs/decisions.md 21 and 24): the whole weeks of the period from
 * `activity_agents_weekly`, the days around them from `activity_agents_daily` (one row per day,
 * identity and key); both equal a recount of the log. `keys` counts distinct keys over those rows;
 * `avg_latency_ms` is the rounded mean latency (ms); `agent_name` is null once erased.
 */
async function agentRows(fromDay: string, toDay: string, orgId: string | undefined, limit: number) {
  const db = await getDb();
  const d = activityAgentsDaily;
  const w = activityAgentsWeekly;
  const columns = (t: typeof d | typeof w) => ({
    agentModel: t.agentModel,
    agentName: t.agentName,
    orgId: t.orgId,
    apiKeyId: t.apiKeyId,
    requests: t.requests,
    errors: t.errors,
    latencyMsSum: t.latencyMsSum,
    firstAt: t.firstAt,
    lastAt: t.lastAt,
  });
  const split = splitPeriod(d.day, w.week, { fromDay, toDay, ...wholeWeeks(fromDay, toDay, today()) });
  const days = db
    .select(columns(d))
    .from(d)
    .where(and(split.days, orgId === undefined ? undefined : eq(d.orgId, orgId)));
  const rows = split.weeks
    ? unionAll(
        days,
        db
          .select(columns(w))
          .from(w)
          .where(and(split.weeks, orgId === undefined ? undefined : eq(w.orgId, orgId))),
      ).as("rows")
    : days.as("rows");
  // Per identity and key first, then per identity: distinct keys are the rows of the inner
  // grouping, so no count(distinct) (a sort of every roll-up row of the period).
  const perKey = db
    .select({
      agentModel: rows.agentModel,
      agentName: rows.agentName,
      orgId: rows.orgId,
      apiKeyId: rows.apiKeyId,
      requests: sql<number>`sum(${rows.requests})`.as("requests"),
      errors: sql<number>`sum(${rows.errors})`.as("errors"),
      latencyMsSum: sql<number>`sum(${rows.latencyMsSum})`.as("latency_ms_sum"),
      firstAt: sql<Date>`min(${rows.firstAt})`.as("first_at"),
      lastAt: sql<Date>`max(${rows.lastAt})`.as("last_at"),
    })
    .from(rows)
    .groupBy(rows.agentModel, rows.agentName, rows.orgId, rows.apiKeyId)
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

async function org(query: AnalyticsQuery) {
  const orgId = orgIdOf(query);
  const { from, to, fromDay, toDay } = period(query, 30);
  const db = await getDb();
  const e = activityEndpointsDaily;
  const o = tasksOrgDaily;
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
        status: o.status,
        tasks: sql<number>`sum(${o.tasks})`.mapWith(Number),
        revenue: sql<string>`sum(${o.paidRevenueCad})`,
      })
      .from(o)
      .where(and(eq(o.orgId, orgId), gte(o.day, fromDay), lte(o.day, toDay)))
      .groupBy(o.status)
      .having(sql`sum(${o.tasks}) <> 0`)
      .orderBy(asc(o.status)),
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

/**
 * The operator dashboard over the days `fromDay`..`toDay` (default the last 84 days, America/Toronto),
 * read from the task roll-ups (lib/db/schema/task-rollups.ts; docs/decisions.md 23), never from
 * `tasks` itself: revenue per service type and ISO week of payment, the ten clients (API key's
 * contact, or the requester's contact for tasks without a key) with the most revenue, the outcome of
 * the tasks paid in the period, and the tasks created in it by current status. Amounts in CAD.
 */
async function dashboard(query: AnalyticsQuery) {
  const { from, to, fromDay, toDay } = period(query, 84);
  const db = await getDb();
  const p = tasksPaidDaily;
  const week = sql<string>`to_char(${p.day}, 'IYYY-"W"IW')`;
  const [paid, clients, created] = await Promise.all([
    db
      .select({
        week,
        service_type: p.serviceType,
        status: p.status,
        tasks: sql<number>`sum(${p.tasks})`.mapWith(Number),
        revenue: sql<string>`sum(${p.revenueCad})`,
      })
      .from(p)
      .where(and(gte(p.day, fromDay), lte(p.day, toDay)))
      .groupBy(week, p.serviceType, p.status)
      // An append-only counter: a key whose rows sum to 0 has no task left.
      .having(sql`sum(${p.tasks}) <> 0`)
      .orderBy(week, p.serviceType, p.status),
    topClients(fromDay, toDay),
    db
      .select({
        status: tasksCreatedDaily.status,
        n: sql<number>`sum(${tasksCreatedDaily.tasks})`.mapWith(Number),
      })
      .from(tasksCreatedDaily)
      .where(and(gte(tasksCreatedDaily.day, fromDay), lte(tasksCreatedDaily.day, toDay)))
      .groupBy(tasksCreatedDaily.status)
      .having(sql`sum(${tasksCreatedDaily.tasks}) <> 0`),
  ]);
  // Per week and service (statuses summed), in the rows' order; and per status (weeks summed).
  const revenue = new Map<string, { week: string; service_type: string; tasks: number; revenue: number }>();
  const ended: Record<string, number> = {};
  for (const r of paid) {
    const key = `${r.week} ${r.service_type}`;
    const row = revenue.get(key) ?? { week: r.week, service_type: r.service_type, tasks: 0, revenue: 0 };
    row.tasks += r.tasks;
    row.revenue += Number(r.revenue);
    revenue.set(key, row);
    ended[r.status] = (ended[r.status] ?? 0) + r.tasks;
  }
  const completed = ended.completed ?? 0;
  const denominator = completed + (ended.failed ?? 0) + (ended.cancelled ?? 0);
  // The prepaid accounts of the top clients (at most 10 addresses).
  const emails = clients.map((c) => c.client).filter((e): e is string => e !== null);
  const accounts =
    emails.length === 0
      ? []
      : await db
          .select({ email: clientAccounts.email, id: clientAccounts.id })
          .from(clientAccounts)
          .where(inArray(clientAccounts.email, emails));
  const accountOf = new Map(accounts.map((a) => [a.email, a.id]));
  return {
    action: "dashboard",
    from: from.toISOString(),
    to: to.toISOString(),
    currency: "CAD",
    revenue_by_service_week: [...revenue.values()].map((r) => ({
      iso_week: r.week,
      service_type: r.service_type,
      tasks: r.tasks,
      revenue_cad: round2(r.revenue),
    })),
    revenue_total_cad: round2([...revenue.values()].reduce((s, r) => s + r.revenue, 0)),
    top_clients: clients.map((c) => ({
      client: c.client,
      account_id: (c.client !== null && accountOf.get(c.client)) || null,
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

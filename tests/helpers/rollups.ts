/**
 * The check of the activity roll-ups (docs/decisions.md 21 and 24): how far `activity_agents_daily`,
 * `activity_agents_weekly` and `activity_endpoints_daily` are from a recount of the raw `activity_log`, for the tests of the
 * roll-ups themselves and of what deletes log rows (retention, partitions dropped, erasure).
 */
import { type SQL, sql } from "drizzle-orm";
import { getDb } from "../../lib/db/client.js";
import { rowsOf } from "../../lib/db/rows.js";

export { rowsOf };

/**
 * The number of rows that differ between the queries named `raw` and `roll` (CTE names of the
 * same statement), in both directions, as a multiset difference: 0 when they hold the same rows.
 */
const rowsDiffering = (raw: string, roll: string): SQL =>
  sql.raw(`(select count(*) from ((select * from ${raw} except all select * from ${roll})
    union all (select * from ${roll} except all select * from ${raw})) x)::int`);

/** Rows of the roll-ups that differ from a recount of the log (both directions), and their sizes. */
export async function rollupDiff(): Promise<{
  agents: number;
  weeks: number;
  endpoints: number;
  agentRows: number;
}> {
  const db = await getDb();
  const [r] = rowsOf<{ agents: number; weeks: number; endpoints: number; agent_rows: number }>(
    await db.execute(sql`
    with raw_agents as (
      select (a.at at time zone 'America/Toronto')::date as day, a.agent_model, coalesce(a.agent_name, '') as agent_name,
             a.org_id, coalesce(a.api_key_id, '') as api_key_id, count(*)::int as requests,
             (count(*) filter (where a.status >= 400))::int as errors, sum(a.latency_ms)::bigint as latency_ms_sum,
             min(a.at) as first_at, max(a.at) as last_at
      from activity_log a where a.identity_valid and a.agent_model is not null and a.org_id is not null
      group by 1, 2, 3, 4, 5),
    roll_agents as (
      select day, agent_model, agent_name, org_id, api_key_id, requests, errors, latency_ms_sum, first_at, last_at
      from activity_agents_daily),
    raw_weeks as (
      select date_trunc('week', a.at at time zone 'America/Toronto')::date as week, a.agent_model,
             coalesce(a.agent_name, '') as agent_name, a.org_id, coalesce(a.api_key_id, '') as api_key_id,
             count(*)::int as requests, (count(*) filter (where a.status >= 400))::int as errors,
             sum(a.latency_ms)::bigint as latency_ms_sum, min(a.at) as first_at, max(a.at) as last_at
      from activity_log a where a.identity_valid and a.agent_model is not null and a.org_id is not null
      group by 1, 2, 3, 4, 5),
    roll_weeks as (
      select week, agent_model, agent_name, org_id, api_key_id, requests, errors, latency_ms_sum, first_at, last_at
      from activity_agents_weekly),
    raw_endpoints as (
      select a.org_id, (a.at at time zone 'America/Toronto')::date as day, a.method, a.endpoint, count(*)::int as requests,
             (count(*) filter (where a.status >= 400))::int as errors
      from activity_log a where a.org_id is not null group by 1, 2, 3, 4),
    roll_endpoints as (select org_id, day, method, endpoint, requests, errors from activity_endpoints_daily)
    select
      ${rowsDiffering("raw_agents", "roll_agents")} as agents,
      ${rowsDiffering("raw_weeks", "roll_weeks")} as weeks,
      ${rowsDiffering("raw_endpoints", "roll_endpoints")} as endpoints,
      (select count(*) from activity_agents_daily)::int as agent_rows`),
  );
  return { agents: r!.agents, weeks: r!.weeks, endpoints: r!.endpoints, agentRows: r!.agent_rows };
}

/**
 * The non-sandbox tasks recounted for the task roll-ups, as a subquery: every column of `tasks`,
 * `paid_day` and `created_day` (America/Toronto) and `revenue` (CAD: the charge, else the price,
 * less a refund). The one statement of the revenue rule the recounts below and the tests share.
 */
export const recountedTasks: SQL = sql`
  select t.*, (t.paid_at at time zone 'America/Toronto')::date as paid_day,
         (t.created_at at time zone 'America/Toronto')::date as created_day,
         coalesce(-l.amount_cad, t.price_cad, 0)
           - case when t.refund_status = 'refunded' then coalesce(t.refund_amount_cad, 0) else 0 end as revenue
  from tasks t left join ledger_entries l on l.task_id = t.id and l.kind = 'charge'
  where not t.sandbox`;

/**
 * How far the task roll-ups (`tasks_paid_daily`, `tasks_paid_clients_daily` and its weekly sums, `tasks_created_daily`,
 * `tasks_org_daily`; docs/decisions.md 23) are from a recount of the non-sandbox `tasks` joined with
 * their `charge` ledger row: the rows that differ, both directions, per roll-up (0 everywhere when
 * they agree; the append-only counters summed per key first), and how many roll-up rows there are.
 */
export async function taskRollupDiff(): Promise<{
  paid: number;
  clients: number;
  weeks: number;
  created: number;
  org: number;
  rows: number;
}> {
  const db = await getDb();
  const [r] = rowsOf<{
    paid: number;
    clients: number;
    weeks: number;
    created: number;
    org: number;
    rows: number;
  }>(
    await db.execute(sql`
    with t as (${recountedTasks}),
    raw_paid as (
      select paid_day as day, service_type, status, count(*)::int as tasks, sum(revenue)::numeric(12,2) as revenue_cad
      from t where paid_at is not null group by 1, 2, 3),
    roll_paid as (
      select day, service_type, status, sum(tasks)::int as tasks, sum(revenue_cad)::numeric(12,2) as revenue_cad
      from tasks_paid_daily group by 1, 2, 3 having sum(tasks) <> 0 or sum(revenue_cad) <> 0),
    raw_clients as (
      select paid_day as day, coalesce(api_key_id, '') as api_key_id,
             case when api_key_id is null then requester_contact else '' end as requester_contact,
             count(*)::int as tasks, sum(revenue)::numeric(12,2) as revenue_cad
      from t where paid_at is not null group by 1, 2, 3),
    roll_clients as (select day, api_key_id, requester_contact, tasks, revenue_cad from tasks_paid_clients_daily),
    raw_weeks as (
      select date_trunc('week', day)::date as week, api_key_id, requester_contact, sum(tasks)::int as tasks,
             sum(revenue_cad)::numeric(12,2) as revenue_cad
      from raw_clients group by 1, 2, 3),
    roll_weeks as (select week, api_key_id, requester_contact, tasks, revenue_cad from tasks_paid_clients_weekly),
    raw_created as (select created_day as day, status, count(*)::int as tasks from t group by 1, 2),
    roll_created as (
      select day, status, sum(tasks)::int as tasks from tasks_created_daily group by 1, 2 having sum(tasks) <> 0),
    raw_org as (
      select org_id, created_day as day, status, count(*)::int as tasks,
             coalesce(sum(revenue) filter (where paid_at is not null), 0)::numeric(12,2) as paid_revenue_cad
      from t where coalesce(org_id, '') <> '' group by 1, 2, 3),
    roll_org as (
      select org_id, day, status, sum(tasks)::int as tasks, sum(paid_revenue_cad)::numeric(12,2) as paid_revenue_cad
      from tasks_org_daily group by 1, 2, 3 having sum(tasks) <> 0 or sum(paid_revenue_cad) <> 0)
    select
      ${rowsDiffering("raw_paid", "roll_paid")} as paid,
      ${rowsDiffering("raw_clients", "roll_clients")} as clients,
      ${rowsDiffering("raw_weeks", "roll_weeks")} as weeks,
      ${rowsDiffering("raw_created", "roll_created")} as created,
      ${rowsDiffering("raw_org", "roll_org")} as org,
      ((select count(*) from tasks_paid_daily) + (select count(*) from tasks_paid_clients_daily)
        + (select count(*) from tasks_paid_clients_weekly) + (select count(*) from tasks_created_daily) + (select count(*) from tasks_org_daily))::int as rows`),
  );
  return {
    paid: r!.paid,
    clients: r!.clients,
    weeks: r!.weeks,
    created: r!.created,
    org: r!.org,
    rows: r!.rows,
  };
}

/**
 * The dashboard's top clients recounted from `tasks` (not the roll-ups): per client (the key's
 * contact, or the requester's contact), the non-sandbox tasks paid on the days `from`..`to`
 * (YYYY-MM-DD, America/Toronto) and their revenue (CAD: the charge, else the price, less a refund),
 * ranked as the dashboard ranks (revenue, then client), `limit` rows at most.
 */
export async function recountTopClients(
  from: string,
  to: string,
  limit = 1_000,
): Promise<{ client: string | null; tasks: number; revenue_cad: number }[]> {
  const db = await getDb();
  const rows = rowsOf<{ client: string | null; tasks: number; revenue: string }>(
    await db.execute(sql`
      select coalesce(k.contact, nullif(t.requester_contact, '')) as client, count(*)::int as tasks,
             sum(t.revenue) as revenue
      from (${recountedTasks}) t left join api_keys k on k.id = t.api_key_id
      where t.paid_at is not null and t.paid_day between ${from}::date and ${to}::date
      group by 1 order by 3 desc, 1 limit ${limit}`),
  );
  return rows.map((r) => ({
    client: r.client,
    tasks: r.tasks,
    revenue_cad: Number(Number(r.revenue).toFixed(2)),
  }));
}

/**
 * The check of the activity roll-ups (docs/decisions.md 21): how far `activity_agents_daily` and
 * `activity_endpoints_daily` are from a recount of the raw `activity_log`, for the tests of the
 * roll-ups themselves and of what deletes log rows (retention, partitions dropped, erasure).
 */
import { sql } from "drizzle-orm";
import { getDb } from "../../lib/db/client.js";

/** Rows of `db.execute`, whichever driver answered. */
export const rowsOf = <T>(result: unknown): T[] =>
  ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];

/** Rows of the roll-ups that differ from a recount of the log (both directions), and their sizes. */
export async function rollupDiff(): Promise<{ agents: number; endpoints: number; agentRows: number }> {
  const db = await getDb();
  const [r] = rowsOf<{ agents: number; endpoints: number; agent_rows: number }>(
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
    raw_endpoints as (
      select a.org_id, (a.at at time zone 'America/Toronto')::date as day, a.method, a.endpoint, count(*)::int as requests,
             (count(*) filter (where a.status >= 400))::int as errors
      from activity_log a where a.org_id is not null group by 1, 2, 3, 4),
    roll_endpoints as (select org_id, day, method, endpoint, requests, errors from activity_endpoints_daily)
    select
      (select count(*) from ((select * from raw_agents except all select * from roll_agents)
        union all (select * from roll_agents except all select * from raw_agents)) x)::int as agents,
      (select count(*) from ((select * from raw_endpoints except all select * from roll_endpoints)
        union all (select * from roll_endpoints except all select * from raw_endpoints)) y)::int as endpoints,
      (select count(*) from activity_agents_daily)::int as agent_rows`),
  );
  return { agents: r!.agents, endpoints: r!.endpoints, agentRows: r!.agent_rows };
}

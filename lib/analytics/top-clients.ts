/**
 * The dashboard's ten clients with the most revenue over a period (docs/decisions.md 23 and 25),
 * from the per-client task roll-ups `tasks_paid_clients_daily` and `tasks_paid_clients_weekly`.
 *
 * A top ten over any period reads one row per client and week at least (decision 23): about 1,600
 * clients × 12 weeks at 1,000,000 tasks. Most of it never changes: the weeks that ended. So the
 * per-client sums of the period's **closed part** (the days up to the last Sunday at least two days
 * ago) are kept in memory, with the version of `rollup_versions.tasks_paid_clients` read in the
 * same statement; each call reads only the weeks after it (one or two) and the current version,
 * in one statement that also ranks. A change to a closed week (a refund, an erasure, a charge of
 * an older task) raises the version (triggers of migration 0033), and the next call sums the
 * closed part again: the answer always equals a recount of the tasks (tests/analytics).
 */
import { type SQL, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { getDb, getRootDb } from "../db/client.js";
import { rowsOf } from "../db/rows.js";
import {
  apiKeys,
  rollupVersions,
  tasksPaidClientsDaily,
  tasksPaidClientsWeekly,
} from "../db/schema/index.js";
import { splitPeriod, today, wholeWeeks } from "./periods.js";

/** One of the ten: the client (key contact, or requester contact), its paid tasks and revenue (CAD, numeric text). */
export interface TopClient {
  client: string | null;
  tasks: number;
  revenue: string;
}

/** The closed part's per-client sums as JSON text (`k` key, `c` contact, `t` tasks, `r` revenue), and their version. */
interface ClosedSums {
  version: number;
  rows: string;
}

/**
 * Closed parts kept per database handle (a process of the benchmarks or tests switches between
 * databases), by `from..until`; a day's default period makes one, so a few suffice.
 */
const closedSumsByDb = new WeakMap<object, Map<string, ClosedSums>>();
const CLOSED_SUMS_KEPT = 8;

/** The version name the triggers raise (migration 0033). */
const VERSION = "tasks_paid_clients";

/**
 * The last day the closed part may reach on `day` (YYYY-MM-DD): the Sunday on or before two days
 * earlier. Writers raise the version for any week that ended before their today, so a day of
 * margin either way covers a transaction open across midnight and clocks some hours apart.
 */
export function closedUntil(day: string): string {
  const margin = DateTime.fromISO(day).minus({ days: 2 });
  return (margin.weekday === 7 ? margin : margin.startOf("week").minus({ days: 1 })).toISODate()!;
}

/** The rows (key, contact, tasks, revenue) of the days `fromDay`..`toDay`, whole weeks from the weekly table. */
function periodRows(fromDay: string, toDay: string, currentDay: string) {
  const d = tasksPaidClientsDaily;
  const w = tasksPaidClientsWeekly;
  const split = splitPeriod(d.day, w.week, { fromDay, toDay, ...wholeWeeks(fromDay, toDay, currentDay) });
  const days = sql`select ${d.apiKeyId} as api_key_id, ${d.requesterContact} as requester_contact, ${d.tasks} as tasks, ${d.revenueCad} as revenue_cad from ${d} where ${split.days}`;
  if (!split.weeks) return days;
  return sql`${days} union all select ${w.apiKeyId}, ${w.requesterContact}, ${w.tasks}, ${w.revenueCad} from ${w} where ${split.weeks}`;
}

/** The current version (read in the statement that uses it). */
const versionNow = sql`(select ${rollupVersions.version} from ${rollupVersions} where ${rollupVersions.name} = ${VERSION})`;

/** Sums the closed part `fromDay`..`until` per key and contact, with the version it was read at. */
async function sumClosed(fromDay: string, until: string, currentDay: string): Promise<ClosedSums> {
  const db = await getDb();
  const [row] = rowsOf<{ rows: string; version: number | string }>(
    await db.execute(sql`
      select coalesce(json_agg(json_build_object('k', api_key_id, 'c', requester_contact, 't', tasks, 'r', revenue)), '[]')::text as rows,
             ${versionNow} as version
      from (select api_key_id, requester_contact, sum(tasks)::int as tasks, sum(revenue_cad) as revenue
            from (${periodRows(fromDay, until, currentDay)}) r group by 1, 2) s`),
  );
  return { rows: row!.rows, version: Number(row!.version) };
}

/**
 * The ten clients with the most revenue (CAD) from tasks paid on the days `fromDay`..`toDay`
 * (YYYY-MM-DD, inclusive): the API key's contact, or the requester's contact for tasks without a
 * key; ties by client. Sums per key or contact first (the closed part from memory, see the module
 * comment), then the key's contact is joined.
 */
export async function topClients(fromDay: string, toDay: string): Promise<TopClient[]> {
  const currentDay = today();
  const until = closedUntil(currentDay) < toDay ? closedUntil(currentDay) : toDay;
  if (until < fromDay) return rank(periodRows(fromDay, toDay, currentDay), false);
  const key = `${fromDay}..${until}`;
  const root = await getRootDb();
  let closedSums = closedSumsByDb.get(root);
  if (!closedSums) {
    closedSums = new Map();
    closedSumsByDb.set(root, closedSums);
  }
  const openFrom = DateTime.fromISO(until).plus({ days: 1 }).toISODate()!;
  const open = openFrom <= toDay ? periodRows(openFrom, toDay, currentDay) : undefined;
  for (let attempt = 0; ; attempt++) {
    let closed = closedSums.get(key);
    if (!closed) {
      closed = await sumClosed(fromDay, until, currentDay);
      if (closedSums.size >= CLOSED_SUMS_KEPT) closedSums.delete(closedSums.keys().next().value!);
      closedSums.set(key, closed);
    }
    const rows = sql`select k as api_key_id, c as requester_contact, t as tasks, r as revenue_cad
      from json_to_recordset(${closed.rows}::json) as x(k text, c text, t int, r numeric)${open ? sql` union all ${open}` : sql``}`;
    const { clients, version } = await rank(rows, true);
    // Sums of a version since raised: a closed week changed; sum it again (once is enough).
    if (version === closed.version || attempt > 0) return clients;
    closedSums.delete(key);
  }
}

/**
 * Ranks the per-row sums of `rows` (api_key_id, requester_contact, tasks, revenue_cad): the top ten
 * clients, and with `withVersion` the version current in the same statement.
 */
async function rank(rows: SQL, withVersion: true): Promise<{ clients: TopClient[]; version: number }>;
async function rank(rows: SQL, withVersion: false): Promise<TopClient[]>;
async function rank(
  rows: SQL,
  withVersion: boolean,
): Promise<TopClient[] | { clients: TopClient[]; version: number }> {
  const db = await getDb();
  const top = sql`
    select coalesce(${apiKeys.contact}, nullif(p.requester_contact, '')) as client, sum(p.tasks)::int as tasks,
           sum(p.revenue) as revenue
    from (select api_key_id, requester_contact, sum(tasks) as tasks, sum(revenue_cad) as revenue
          from (${rows}) r group by 1, 2) p
    left join ${apiKeys} on ${apiKeys.id} = p.api_key_id
    group by 1 order by sum(p.revenue) desc, 1 limit 10`;
  const result = rowsOf<{
    client: string | null;
    tasks: number | null;
    revenue: string | null;
    version: string;
  }>(
    await db.execute(
      withVersion
        ? sql`select v.version, t.* from (select ${versionNow} as version) v left join lateral (${top}) t on true`
        : top,
    ),
  );
  const clients = result
    .filter((r) => r.tasks !== null)
    .map((r) => ({ client: r.client, tasks: Number(r.tasks), revenue: String(r.revenue) }));
  return withVersion ? { clients, version: Number(result[0]?.version) } : clients;
}

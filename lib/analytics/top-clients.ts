/**
 * The dashboard's ten clients with the most revenue over a period (docs/decisions.md 23, 25 and 26),
 * from the per-client task roll-ups `tasks_paid_clients_daily` and `tasks_paid_clients_weekly`.
 *
 * A top ten over any period reads one row per client and week at least (decision 23): about 1,600
 * clients × 12 weeks at 1,000,000 tasks. Most of it never changes: the weeks that ended. So the
 * per-client sums of the period's **closed part** (the days up to the last Sunday at least two days
 * ago) are kept in memory, ranked, with the version of `rollup_versions.tasks_paid_clients` read in
 * the same statement (decision 25). Each call reads only the weeks after them (the **open part**,
 * one or two weeks) and ranks in one statement that also reads the current version.
 *
 * Only the kept clients that can still reach the top ten go back into that statement (decision
 * 26): those whose closed revenue is at least the tenth one's less a margin (learnt from the
 * open revenues the previous call saw, `marginFor`). The statement proves the cut right: every
 * client left out has a closed revenue of at most `bound` (the first one left out), so it is in the
 * top ten only if `bound + its open revenue` reaches the tenth revenue among those sent. If one
 * could, the call is made again with every kept client. A change to a closed week (a refund, an
 * erasure, a charge of an older task) or to a key's contact raises the version (triggers of
 * migrations 0033 and 0034), and the next call sums the closed part again: the answer always equals
 * a recount of the tasks (tests/analytics).
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

/** A client's sums inside the statements: revenue in cents (CAD × 100, exact in a bigint and a double). */
interface ClientCents {
  client: string | null;
  tasks: number;
  cents: number;
}

/** The closed part: per-client sums by revenue (highest first, then client), their version, the margin learnt. */
interface ClosedSums {
  version: number;
  clients: ClientCents[];
  /** Cents; undefined until a call has seen the open part: every client is sent. */
  margin: number | undefined;
}

/**
 * Closed parts kept per database handle (a process of the benchmarks or tests switches between
 * databases), by `from..until`; a day's default period makes one, so a few suffice.
 */
const closedSumsByDb = new WeakMap<object, Map<string, ClosedSums>>();
const CLOSED_SUMS_KEPT = 8;
const TOP = 10;
/** The share of the largest open revenue of one client added to the margin for what is still to come. */
const MARGIN_SLACK = 0.25;

/** The version name the triggers raise (migrations 0033 and 0034). */
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

/**
 * The roll-up rows (client, tasks, cents) of the days `fromDay`..`toDay`, whole weeks from
 * the weekly table, not summed: the client is the key's contact, or the requester's contact.
 */
function clientRows(fromDay: string, toDay: string, currentDay: string): SQL {
  const d = tasksPaidClientsDaily;
  const w = tasksPaidClientsWeekly;
  const split = splitPeriod(d.day, w.week, { fromDay, toDay, ...wholeWeeks(fromDay, toDay, currentDay) });
  const days = sql`select ${d.apiKeyId} as api_key_id, ${d.requesterContact} as requester_contact, ${d.tasks} as tasks, ${d.revenueCad} as revenue_cad from ${d} where ${split.days}`;
  const rows = split.weeks
    ? sql`${days} union all select ${w.apiKeyId}, ${w.requesterContact}, ${w.tasks}, ${w.revenueCad} from ${w} where ${split.weeks}`
    : days;
  // Cents: a bigint sums several times faster than a numeric.
  return sql`select coalesce(${apiKeys.contact}, nullif(r.requester_contact, '')) as client, r.tasks,
      (r.revenue_cad * 100)::bigint as cents
    from (${rows}) r left join ${apiKeys} on ${apiKeys.id} = r.api_key_id`;
}

/** No rows, in the shape of `clientRows`. */
const noRows = sql`select null::text as client, 0 as tasks, 0::bigint as cents where false`;

/** The current version (read in the statement that uses it). */
const versionNow = sql`(select ${rollupVersions.version} from ${rollupVersions} where ${rollupVersions.name} = ${VERSION})`;

/** A version read; NaN when its row is missing, so that kept sums never match it and are not trusted. */
const versionOf = (value: string | number | null | undefined) =>
  value === null || value === undefined ? Number.NaN : Number(value);

/** Sums the closed part `fromDay`..`until` per client, ranked, with the version it was read at. */
async function sumClosed(fromDay: string, until: string, currentDay: string): Promise<ClosedSums> {
  const db = await getDb();
  const rows = rowsOf<{
    client: string | null;
    tasks: number | null;
    cents: string | null;
    version: string;
  }>(
    await db.execute(sql`
      select v.version, c.client, c.tasks, c.cents::text as cents
      from (select ${versionNow} as version) v
      left join lateral (select client, sum(tasks)::int as tasks, sum(cents) as cents
                         from (${clientRows(fromDay, until, currentDay)}) r
                         group by client order by cents desc, client) c on true`),
  );
  return {
    version: versionOf(rows[0]?.version),
    clients: rows
      .filter((r) => r.tasks !== null)
      .map((r) => ({ client: r.client, tasks: Number(r.tasks), cents: Number(r.cents) })),
    margin: undefined,
  };
}

/**
 * How many of the kept clients (ranked) to send: all without a margin; else the top ten and every
 * one whose revenue is at least the tenth one's less the margin.
 */
function sentCount(closed: ClosedSums): number {
  const { clients, margin } = closed;
  if (margin === undefined || clients.length <= TOP) return clients.length;
  const floor = clients[TOP - 1]!.cents - margin;
  let n = TOP;
  while (n < clients.length && clients[n]!.cents >= floor) n++;
  return n;
}

/**
 * The margin (cents) for the next call, from what this one saw: a client left out (closed revenue
 * below the tenth one's less the margin) reaches the tenth total only with an open revenue above
 * the margin plus what the tenth total gained over the tenth closed revenue; so the margin is the
 * largest open revenue less that gain, plus a quarter of it for the open weeks still to come.
 */
function marginFor(closed: ClosedSums, ranked: { openMax: number; tenth: number | null }): number {
  const tenthClosed = closed.clients[TOP - 1]?.cents;
  const gain =
    ranked.tenth === null || tenthClosed === undefined ? 0 : Math.max(0, ranked.tenth - tenthClosed);
  return Math.max(0, ranked.openMax - gain) + MARGIN_SLACK * ranked.openMax;
}

/**
 * The ten clients with the most revenue (CAD) from tasks paid on the days `fromDay`..`toDay`
 * (YYYY-MM-DD, inclusive): the API key's contact, or the requester's contact for tasks without a
 * key; ties by client. The closed part comes from memory (see the module comment).
 */
export async function topClients(fromDay: string, toDay: string): Promise<TopClient[]> {
  const currentDay = today();
  const lastClosed = closedUntil(currentDay);
  const until = lastClosed < toDay ? lastClosed : toDay;
  if (until < fromDay) {
    return (await rank([], null, clientRows(fromDay, toDay, currentDay))).clients;
  }
  const key = `${fromDay}..${until}`;
  const root = await getRootDb();
  let closedSums = closedSumsByDb.get(root);
  if (!closedSums) {
    closedSums = new Map();
    closedSumsByDb.set(root, closedSums);
  }
  const openFrom = DateTime.fromISO(until).plus({ days: 1 }).toISODate()!;
  const open = openFrom <= toDay ? clientRows(openFrom, toDay, currentDay) : noRows;
  let resummed = false;
  let everyone = false;
  for (;;) {
    let closed = closedSums.get(key);
    if (!closed) {
      closed = await sumClosed(fromDay, until, currentDay);
      resummed = true;
      if (closedSums.size >= CLOSED_SUMS_KEPT) closedSums.delete(closedSums.keys().next().value!);
      closedSums.set(key, closed);
    }
    const n = everyone ? closed.clients.length : sentCount(closed);
    const bound = n < closed.clients.length ? closed.clients[n]!.cents : null;
    const ranked = await rank(closed.clients.slice(0, n), bound, open);
    if (ranked.version !== closed.version && !resummed) {
      // A closed week or a key's contact changed since these sums: sum them again (once is enough).
      closedSums.delete(key);
      continue;
    }
    closed.margin = marginFor(closed, ranked);
    if (ranked.valid) return ranked.clients;
    // A client left out could reach the top ten with its open revenue: send every one.
    everyone = true;
  }
}

/**
 * Ranks `sent` (kept per-client sums) with `open` (the open part's rows, as made by `clientRows`)
 * in one statement. `bound` (cents) is the highest revenue of the kept clients not sent, or null
 * when all were sent. Returns the top ten, whether they are proven exact
 * (`valid`: no client left out can reach them), the largest open revenue of one client (cents, 0
 * when none) and the version current in the statement.
 */
async function rank(
  sent: ClientCents[],
  bound: number | null,
  open: SQL,
): Promise<{ clients: TopClient[]; valid: boolean; openMax: number; tenth: number | null; version: number }> {
  const db = await getDb();
  const kept = JSON.stringify(sent.map((c) => ({ c: c.client, t: c.tasks, r: c.cents })));
  const result = rowsOf<{
    version: string;
    valid: boolean | null;
    open_max: string | null;
    tenth: string | null;
    client: string | null;
    tasks: number | null;
    revenue: string | null;
  }>(
    await db.execute(sql`
      with merged as (
        select client, sum(tasks)::int as tasks, sum(cents) as cents, bool_or(sent) as sent,
               sum(cents) filter (where not sent) as open_cents
        from (select c as client, t as tasks, r as cents, true as sent
              from json_to_recordset(${kept}::json) as x(c text, t int, r bigint)
              union all select client, tasks, cents, false from (${open}) o) u
        group by client),
      tenth as (select cents from merged where sent order by cents desc limit 1 offset ${TOP - 1})
      select ${versionNow} as version,
             (select max(open_cents) from merged)::text as open_max,
             (select cents from tenth)::text as tenth,
             ${bound}::bigint is null or (
               (select cents from tenth) > ${bound}::bigint
               and not exists (select 1 from merged where not sent
                               and cents + greatest(${bound}::bigint, 0) >= (select cents from tenth))
             ) as valid,
             t.client, t.tasks, round(t.cents / 100.0, 2)::text as revenue
      from (select 1) one
      left join lateral (select client, tasks, cents from merged order by cents desc, client limit ${TOP}) t on true`),
  );
  const first = result[0];
  return {
    clients: result
      .filter((r) => r.tasks !== null)
      .map((r) => ({ client: r.client, tasks: Number(r.tasks), revenue: String(r.revenue) })),
    valid: first?.valid === true,
    openMax: Math.max(0, Number(first?.open_max ?? 0)),
    tenth: first?.tenth == null ? null : Number(first.tenth),
    version: versionOf(first?.version),
  };
}

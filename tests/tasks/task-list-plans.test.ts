/**
 * Plans that do not depend on luck (issue 45 item 2): over 100,000 tasks whose statuses follow their
 * age as in production (the newest waiting for review, a few hundred in the active states, the old
 * ones finished), every (filter, sort) pair the staff console's task views ask GET /api/task-list
 * for (public/operator/views/lists.js: the review queue, the task index with each status, service
 * and search, the refunds view) is planned with an index that holds its filter: no plan node of the
 * page's statement removes more than page size × 10 rows by filter, nor the capped count's more than
 * (cap + 1) × 10. Reads `EXPLAIN (ANALYZE, FORMAT JSON)` of the statements lib/tasks/list-tasks.ts
 * runs (`taskListQueries`). PostgreSQL only: PGlite's planner and statistics are not the server's.
 */
import { type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { SERVICE_TYPES, TASK_STATUSES } from "../../lib/db/schema/enums.js";
import { taskListQueries } from "../../lib/tasks/list-tasks.js";
import { taskListQuerySchema } from "../../lib/tasks/state/admin-schemas.js";
import { POSTGRES_ONLY, useTestDatabase } from "../helpers/db.js";

const TASKS = 100_000;
const SEED_CHUNK = 5_000;
/** The console's page sizes: the task index, and the review queue and refunds views. */
const INDEX_PAGE = 50;
const VIEW_PAGE = 200;

/** One request of the console: its query string's parameters and the page size it asks for. */
interface ConsoleRequest {
  name: string;
  params: Record<string, string>;
}

/** Every (filter, sort) pair the console offers (public/operator/views/lists.js). */
function consoleRequests(): ConsoleRequest[] {
  const index = (name: string, extra: Record<string, string>) => ({
    name,
    params: { sort: "-created_at", limit: String(INDEX_PAGE), ...extra },
  });
  return [
    {
      name: "review queue",
      params: { status: "received", sort: "review_deadline", limit: String(VIEW_PAGE) },
    },
    { name: "refunds", params: { status: "cancelled", sort: "-updated_at", limit: String(VIEW_PAGE) } },
    index("all tasks", {}),
    index("all tasks with sandbox", { include_sandbox: "true" }),
    ...TASK_STATUSES.map((status) => index(`status ${status}`, { status })),
    ...SERVICE_TYPES.map((service_type) => index(`service ${service_type}`, { service_type })),
    index("search by id", { q: "TASK-PLAN-004242" }),
    index("search by rare text", { q: "freight elevator" }),
  ];
}

/** A plan node of EXPLAIN's JSON, as far as this test reads it. */
interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** The rows every node of `node` removed by filter (its per-loop figure times its loops), worst first. */
function removedByFilter(node: PlanNode, out: { node: string; removed: number }[] = []) {
  const removed = (node["Rows Removed by Filter"] ?? 0) * (node["Actual Loops"] ?? 1);
  out.push({ node: `${node["Node Type"]} ${node["Index Name"] ?? node["Relation Name"] ?? ""}`, removed });
  for (const child of node.Plans ?? []) removedByFilter(child, out);
  return out.sort((a, b) => b.removed - a.removed);
}

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  `task-list plans at ${TASKS} tasks skewed by age${POSTGRES_ONLY}`,
  () => {
    useTestDatabase();

    beforeAll(async () => {
      const db = await getDb();
      // g = 1 is the newest task (one minute apart, about 70 days in all). The newest 300 wait
      // for review, the next 450 are in the other active states, the rest are finished: mostly
      // completed, every 20th cancelled, 30th payment expired, 50th failed, 70th rejected. 1 % are
      // sandbox tasks. One in 40 descriptions names a loading dock, one in 1,000 a freight elevator (the searched word).
      // In statements of SEED_CHUNK tasks, each well inside the pool's query timeout.
      for (let from = 1; from <= TASKS; from += SEED_CHUNK) {
        await db.execute(sql`
        insert into tasks (id, sandbox, service_type, status, location_address, task_description,
                           requester_contact, review_deadline, execution_deadline, created_at, updated_at)
        select 'TASK-PLAN-' || lpad(g::text, 6, '0'), g % 100 = 7, 'SVC-0' || (1 + g % 5),
               case when g <= 300 then 'received'
                    when g <= 400 then 'accepted_pending_payment'
                    when g <= 450 then 'counter_offered'
                    when g <= 600 then 'paid'
                    when g <= 700 then 'dispatched'
                    when g <= 750 then 'on_site'
                    when g % 20 = 0 then 'cancelled'
                    when g % 30 = 0 then 'payment_expired'
                    when g % 50 = 0 then 'failed'
                    when g % 70 = 0 then 'rejected'
                    else 'completed' end,
               g || ' rue Principale, Laval',
               case when g % 40 = 0 then 'Photograph the loading dock'
                    when g % 1000 = 500 then 'Photograph the freight elevator' else 'Photograph the storefront' end,
               'client' || (g % 997) || '@example.com',
               now() - g * interval '1 minute' + interval '4 hours',
               now() - g * interval '1 minute' + interval '2 days',
               now() - g * interval '1 minute',
               now() - g * interval '1 minute' + case when g > 750 then interval '3 hours' else interval '0' end
        from generate_series(${from}::int, ${from + SEED_CHUNK - 1}::int) as g`);
      }
      await db.execute(sql`analyze tasks`);
    }, 300_000);

    it.each(consoleRequests().map((r) => [r.name, r] as const))(
      "%s: every plan node removes at most page size × 10 rows by filter",
      async (_name, request) => {
        const db = await getDb();
        const query = taskListQuerySchema.parse(request.params);
        const { page, count, cap } = taskListQueries(db, query);
        const explain = async (statement: { getSQL(): SQL }) => {
          const rows = (await db.execute(
            sql`explain (analyze, format json) ${statement.getSQL()}`,
          )) as unknown as { rows?: { "QUERY PLAN": [{ Plan: PlanNode }] }[] };
          const list = rows.rows ?? (rows as unknown as { "QUERY PLAN": [{ Plan: PlanNode }] }[]);
          return list[0]!["QUERY PLAN"][0].Plan;
        };
        const pagePlan = await explain(page);
        const pageWorst = removedByFilter(pagePlan)[0]!;
        expect(pageWorst.removed, `${request.name}: ${JSON.stringify(pageWorst)}`).toBeLessThanOrEqual(
          query.limit * 10,
        );
        const countWorst = removedByFilter(await explain(count))[0]!;
        expect(
          countWorst.removed,
          `${request.name} count: ${JSON.stringify(countWorst)}`,
        ).toBeLessThanOrEqual((cap + 1) * 10);
      },
      60_000,
    );
  },
);

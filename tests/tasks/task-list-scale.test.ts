/**
 * GET /api/task-list over a history larger than its caps (issue 32 item 3): `total` stops counting
 * at TASK_LIST_TOTAL_CAP and says so (`total_capped`), a filter that matches fewer gets the exact
 * count, and an offset past TASK_LIST_MAX_OFFSET is refused.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as taskList } from "../../api/task-list.js";
import { getDb } from "../../lib/db/client.js";
import { TASK_SEARCH_TEXT } from "../../lib/db/schema/index.js";
import {
  TASK_LIST_MAX_OFFSET,
  TASK_LIST_SEARCH_TOTAL_CAP,
  TASK_LIST_TOTAL_CAP,
} from "../../lib/tasks/state/admin-schemas.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";

useTestDatabase();

let admin: string;
/** More tasks than the total counts and than the deepest offset reaches. */
const SEEDED = Math.max(TASK_LIST_TOTAL_CAP, TASK_LIST_MAX_OFFSET) + 5;

beforeAll(async () => {
  admin = await makeKey(["admin"]);
  const db = await getDb();
  // SEEDED completed tasks, 3 of them failed instead; one more second apart each.
  await db.execute(sql`
    insert into tasks (id, service_type, status, location_address, task_description, requester_contact,
                       review_deadline, execution_deadline, created_at)
    select 'TASK-LIST-' || g, 'SVC-01', case when g <= 3 then 'failed' else 'completed' end,
           '1 rue Principale, Laval', 'Photograph the storefront', 'agent@example.com', now(), now(),
           now() - (g || ' seconds')::interval
    from generate_series(1, ${SEEDED}::int) as g`);
}, 120_000);

describe("GET /api/task-list at scale (issue 32 item 3)", () => {
  it("caps total at TASK_LIST_TOTAL_CAP and says so; a narrower filter gets the exact count", async () => {
    const all = await call(taskList, "/api/task-list?limit=2", { headers: keyHeaders(admin) });
    expect(all.res.status).toBe(200);
    expect(all.body).toMatchObject({ total: TASK_LIST_TOTAL_CAP, total_capped: true, limit: 2, offset: 0 });
    expect(all.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual(["TASK-LIST-1", "TASK-LIST-2"]);
    const failed = await call(taskList, "/api/task-list?status=failed", { headers: keyHeaders(admin) });
    expect(failed.body).toMatchObject({ total: 3, total_capped: false });
  });

  it("serves the last allowed offset and refuses one past it", async () => {
    const last = await call(
      taskList,
      `/api/task-list?limit=1&offset=${TASK_LIST_MAX_OFFSET}&sort=-created_at`,
      {
        headers: keyHeaders(admin),
      },
    );
    expect(last.res.status).toBe(200);
    expect(last.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([
      `TASK-LIST-${TASK_LIST_MAX_OFFSET + 1}`,
    ]);
    const past = await call(taskList, `/api/task-list?offset=${TASK_LIST_MAX_OFFSET + 1}`, {
      headers: keyHeaders(admin),
    });
    expectEnvelope(past.body, past.res, 422, "VALIDATION_ERROR");
  });

  it("pages by cursor past the offset cap: every task once, in order, each page a keyset range", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url = `/api/task-list?limit=200&sort=created_at${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await call(taskList, url, { headers: keyHeaders(admin) });
      expect(page.res.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.tasks.map((t: { task_id: string }) => t.task_id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toHaveLength(SEEDED);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen[0]).toBe(`TASK-LIST-${SEEDED}`); // oldest first
    expect(seen.at(-1)).toBe("TASK-LIST-1");
    // Newest first, a filter kept: the failed ones in two pages.
    const first = await call(taskList, "/api/task-list?status=failed&limit=2", {
      headers: keyHeaders(admin),
    });
    expect(first.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([
      "TASK-LIST-1",
      "TASK-LIST-2",
    ]);
    const second = await call(
      taskList,
      `/api/task-list?status=failed&limit=2&cursor=${first.body.next_cursor}`,
      {
        headers: keyHeaders(admin),
      },
    );
    expect(second.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual(["TASK-LIST-3"]);
    expect(second.body.next_cursor).toBeNull();
  });

  it("refuses a cursor it did not make, one made for another sort, and a cursor with an offset", async () => {
    const first = await call(taskList, "/api/task-list?limit=1", { headers: keyHeaders(admin) });
    const cursor = first.body.next_cursor as string;
    for (const url of [
      "/api/task-list?cursor=bm90LWEtY3Vyc29y",
      `/api/task-list?cursor=${cursor}&sort=updated_at`,
      `/api/task-list?cursor=${cursor}&offset=5`,
    ]) {
      const res = await call(taskList, url, { headers: keyHeaders(admin) });
      expect(expectEnvelope(res.body, res.res, 422, "VALIDATION_ERROR").field).toBe("cursor");
    }
  });

  it("q is a trigram search: its condition can use tasks_search_trgm_idx and finds any field", async () => {
    const db = await getDb();
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return tx.execute(
        sql`explain select id from tasks where ${TASK_SEARCH_TEXT} ilike ${"%rincipale, Lav%"}`,
      );
    });
    expect(JSON.stringify(plan)).toContain("tasks_search_trgm_idx");
    const byAddress = await call(taskList, "/api/task-list?q=rue%20principale&limit=1", {
      headers: keyHeaders(admin),
    });
    expect(byAddress.body).toMatchObject({ total: TASK_LIST_SEARCH_TOTAL_CAP, total_capped: true });
    const byId = await call(taskList, "/api/task-list?q=task-list-1234&limit=5", {
      headers: keyHeaders(admin),
    });
    expect(byId.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual(["TASK-LIST-1234"]);
    const percent = await call(taskList, "/api/task-list?q=100%25", { headers: keyHeaders(admin) });
    expect(percent.body.total).toBe(0); // % is a literal, not a wildcard
  });
});

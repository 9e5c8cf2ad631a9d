/**
 * The dashboard's top clients with the closed weeks kept in memory and only the clients that can
 * still reach the top ten sent back (docs/decisions.md 25 and 26; lib/analytics/top-clients.ts):
 * after each change the answer equals a recount of the tasks, ranked. A client left out of the
 * statement whose payment this week lifts it into the top ten is found (the statement proves the
 * cut, and the call is made again with every client); a key's contact changed behind the kept
 * per-client sums raises the version, and the next answer names the new contact.
 */
import { sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as analyticsGet } from "../../api/analytics.js";
import { getDb } from "../../lib/db/client.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { recountTopClients, rowsOf } from "../helpers/rollups.js";

useTestDatabase();

let admin: string;

/**
 * The period of a comparison: the 40 days up to today (America/Toronto), taken when the comparison
 * is made, after the payments it counts. Taken once for the file, a run across midnight would leave
 * the payments made "now" after its last day (the recount too, but not the expected values).
 */
function period(): { from: string; to: string } {
  const today = DateTime.now().setZone("America/Toronto");
  return { from: today.minus({ days: 40 }).toISODate()!, to: today.toISODate()! };
}

/** Inserts a task paid `daysAgo` days ago (0: now) for `contact` (or for the key `keyId`), at `price` CAD. */
async function paidTask(
  id: string,
  contact: string,
  price: number,
  daysAgo: number,
  keyId: string | null = null,
) {
  const db = await getDb();
  await db.execute(sql`
    insert into tasks (id, service_type, status, location_address, task_description, requester_contact, price_cad,
                       paid_at, api_key_id, review_deadline, execution_deadline)
    values (${id}, 'SVC-01', 'paid', 'Laval', 'Top clients test', ${contact}, ${price},
            now() - (interval '1 day') * ${daysAgo}, ${keyId}, now() + interval '1 day', now() + interval '3 days')`);
}

const topTen = async ({ from, to } = period()) => {
  const { res, body } = await call(
    analyticsGet,
    `/api/analytics?action=dashboard&date_from=${from}&date_to=${to}`,
    {
      headers: { "x-api-key": admin },
    },
  );
  expect(res.status, JSON.stringify(body)).toBe(200);
  return (body.top_clients as { client: string | null; tasks: number; revenue_cad: number }[]).map(
    ({ client, tasks, revenue_cad }) => ({ client, tasks, revenue_cad }),
  );
};

/** The dashboard's top ten and a recount of the tasks, over the same period. */
const bothCounts = async () => {
  const p = period();
  return { served: await topTen(p), recount: await recountTopClients(p.from, p.to, 10) };
};

const version = async () =>
  Number(
    rowsOf<{ v: string }>(
      await (await getDb()).execute(
        sql`select version as v from rollup_versions where name = 'tasks_paid_clients'`,
      ),
    )[0]!.v,
  );

beforeAll(async () => {
  admin = await makeKey(["admin"], "top-clients-ops@example.com");
  // Thirty clients paid 20 days ago (a week that ended), 10 CAD apart: 1,010 ... 1,300 CAD.
  for (let i = 1; i <= 30; i++)
    await paidTask(`TASK-TOP-${i}`, `client-${String(i).padStart(2, "0")}@example.com`, 1000 + 10 * i, 20);
  // One payment this week, so that the first call learns a margin (the largest open revenue).
  await paidTask("TASK-TOP-OPEN", "client-30@example.com", 5, 0);
});

describe("dashboard top clients", () => {
  it("equal the recount, and stay exact when a client left out of the statement reaches the top ten this week", async () => {
    const first = await bothCounts(); // sums the closed part, sends all
    expect(first.served).toEqual(first.recount);
    const second = await bothCounts(); // sends the top ten (margin 6.25 CAD)
    expect(second.served).toEqual(second.recount);
    const v0 = await version();

    // The lowest client (1,010 CAD, far below the cut) pays 5,000 CAD now: first of all.
    await paidTask("TASK-TOP-LIFT", "client-01@example.com", 5000, 0);
    const lifted = await bothCounts();
    expect(lifted.served[0]).toEqual({ client: "client-01@example.com", tasks: 2, revenue_cad: 6010 });
    expect(lifted.served).toEqual(lifted.recount);
    expect(await version(), "a payment this week leaves the kept weeks be").toBe(v0);

    // A client just below the cut pays a little: not enough, and the answer stays exact.
    await paidTask("TASK-TOP-SMALL", "client-19@example.com", 3, 0);
    const small = await bothCounts();
    expect(small.served).toEqual(small.recount);
  });

  it("follow a key's contact changed behind the kept per-client sums", async () => {
    const db = await getDb();
    await makeKey(["task_create"], "top-clients-key@example.com");
    const [key] = rowsOf<{ id: string }>(
      await db.execute(sql`select id from api_keys where contact = 'top-clients-key@example.com'`),
    );
    await paidTask("TASK-TOP-KEY", "requester@example.com", 9000, 20, key!.id);
    expect((await topTen())[0]!.client).toBe("top-clients-key@example.com");
    expect((await topTen())[0]!.client).toBe("top-clients-key@example.com"); // from the kept sums
    const v0 = await version();

    await db.execute(
      sql`update api_keys set contact = 'top-clients-renamed@example.com' where id = ${key!.id}`,
    );
    expect(await version()).toBeGreaterThan(v0);
    const renamed = await bothCounts();
    expect(renamed.served[0]).toEqual({
      client: "top-clients-renamed@example.com",
      tasks: 1,
      revenue_cad: 9000,
    });
    expect(renamed.served).toEqual(renamed.recount);

    // Other updates of a key (its last use) leave the version alone.
    const v1 = await version();
    await db.execute(sql`update api_keys set last_used_at = now() where id = ${key!.id}`);
    expect(await version()).toBe(v1);
  });
});

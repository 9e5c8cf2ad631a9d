/**
 * The task roll-ups the dashboard and `action=org` read (issue 32 item 4; docs/decisions.md 23):
 * after real submissions, approvals, prepaid charges, manual payments, cancellations with refunds,
 * writes by SQL (status, payment day, contact, charges added and removed, a task deleted),
 * concurrent updates, a Law 25 erasure and the housekeeping job's folding of the append-only
 * counters, every roll-up equals a recount of `tasks` with its charge; the dashboard and
 * `action=org` answer what the tasks answer; sandbox tasks are left out; a roll-up tampered with is
 * caught by the recount (the check can fail).
 */
import { sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as analyticsGet } from "../../api/analytics.js";
import { wholeWeeks } from "../../lib/analytics/analytics.js";
import { closedUntil } from "../../lib/analytics/top-clients.js";
import { getDb } from "../../lib/db/client.js";
import { expirePayments } from "../../lib/jobs/expire-payments.js";
import { processErasureEarly } from "../../lib/privacy/erasure.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { recountedTasks, recountTopClients, rowsOf, taskRollupDiff } from "../helpers/rollups.js";
import { cancelTask, recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const ORG = "task-rollup-org";
const ERASED_EMAIL = "task-rollup-erased@example.com";
let admin: string;
let prepaid: string;
let usdcKey: string;
let erasedAccount: string;
const taskIds: string[] = [];

async function submitted(headers: Record<string, string>, body: Record<string, unknown> = validTask) {
  const { res, body: out } = await submitTask(body, headers);
  expect(res.status, JSON.stringify(out)).toBe(201);
  taskIds.push(out.task_id as string);
  return out.task_id as string;
}

const expectConsistent = async () =>
  expect(await taskRollupDiff()).toMatchObject({ paid: 0, clients: 0, weeks: 0, created: 0, org: 0 });

const analytics = async (query: string) => {
  const { res, body } = await call(analyticsGet, `/api/analytics?${query}`, {
    headers: { "x-api-key": admin },
  });
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
};

beforeAll(async () => {
  admin = await makeKey(["admin"], "task-rollup-ops@example.com");
  prepaid = await makeKey(["audit_only", "task_create", "task_cancel"], "task-rollup-prepaid@example.com");
  await openLinkedAccount(prepaid);
  await accountAdmin(admin, {
    action: "deposit",
    email: "task-rollup-prepaid@example.com",
    amount_cad: 5000,
  });
  usdcKey = await makeKey(["audit_only", "task_create"], "task-rollup-usdc@example.com");
  const erasedKey = await makeKey(["audit_only", "task_create"], ERASED_EMAIL);
  erasedAccount = (await openLinkedAccount(erasedKey)).body.account.account_id as string;

  const identity = { "x-agent-identity": `gpt/rollup-agent/${ORG}` };
  // Prepaid: approved → charged and paid at once; one of them cancelled before dispatch (refunded).
  for (let i = 0; i < 3; i++) {
    const id = await submitted(keyHeaders(prepaid, identity));
    const approved = await reviewTask(admin, { task_id: id, action: "approve", price_cad: 200 + i });
    expect(approved.body.status).toBe("paid");
  }
  expect((await cancelTask(taskIds[2]!, keyHeaders(prepaid))).res.status).toBe(200);
  // USDC key: approved and paid manually; one left awaiting payment; one rejected.
  for (let i = 0; i < 3; i++) await submitted(keyHeaders(usdcKey, identity));
  await reviewTask(admin, { task_id: taskIds[3], action: "approve" });
  expect((await recordPayment(admin, { task_id: taskIds[3], note: "e-transfer" })).body.status).toBe("paid");
  await reviewTask(admin, { task_id: taskIds[4], action: "approve" });
  await reviewTask(admin, { task_id: taskIds[5], action: "reject", reason: "outside the area we serve" });
  // Without a key, named by an e-mail that is erased below; paid manually.
  const anonymous = await submitted({}, { ...validTask, requester_contact: ERASED_EMAIL });
  await reviewTask(admin, { task_id: anonymous, action: "approve" });
  await recordPayment(admin, { task_id: anonymous, note: "cash" });
  // A sandbox task never counts.
  await submitTask(validTask, keyHeaders(usdcKey, { "x-service-mode": "sandbox", ...identity }));
});

describe("task roll-ups", () => {
  it("equal a recount after submissions, charges, payments, a refund and a rejection; sandbox left out", async () => {
    await expectConsistent();
    const db = await getDb();
    const [{ n }] = rowsOf<{ n: number }>(
      await db.execute(sql`select coalesce(sum(tasks), 0)::int as n from tasks_created_daily`),
    ) as [{ n: number }];
    expect(n).toBe(taskIds.length); // the sandbox task is not among them
  });

  it("the dashboard and action=org answer what the tasks answer", async () => {
    const db = await getDb();
    const dashboard = await analytics("action=dashboard");
    const [raw] = rowsOf<{ revenue: string; paid: number }>(
      await db.execute(sql`
        select coalesce(sum(t.revenue), 0) as revenue, count(*)::int as paid
        from (${recountedTasks}) t where t.paid_at is not null`),
    );
    expect(dashboard.revenue_total_cad).toBeCloseTo(Number(raw!.revenue), 2);
    expect(dashboard.revenue_total_cad).toBeGreaterThan(0);
    const paidTasks = dashboard.revenue_by_service_week.reduce(
      (s: number, r: { tasks: number }) => s + r.tasks,
      0,
    );
    expect(paidTasks).toBe(raw!.paid);
    expect(dashboard.top_clients.map((c: { client: string }) => c.client)).toEqual(
      expect.arrayContaining([
        "task-rollup-prepaid@example.com",
        "task-rollup-usdc@example.com",
        ERASED_EMAIL,
      ]),
    );
    const created = Object.values(dashboard.tasks_created_by_status as Record<string, number>).reduce(
      (a, b) => a + b,
    );
    expect(created).toBe(taskIds.length);

    const org = await analytics(`action=org&org_id=${ORG}`);
    const rawOrg = rowsOf<{ status: string; n: number }>(
      await db.execute(
        sql`select status, count(*)::int as n from tasks where org_id = ${ORG} and not sandbox group by status`,
      ),
    );
    expect(org.tasks.by_status).toEqual(Object.fromEntries(rawOrg.map((r) => [r.status, r.n])));
    // Two prepaid tasks charged (one refunded in full) and one paid manually.
    expect(org.tasks.revenue_cad).toBeGreaterThan(0);
  });

  it("top clients over whole weeks and the days around them equal the tasks' sums", async () => {
    const db = await getDb();
    // Spread the paid tasks over five weeks, then ask for periods cutting weeks in different places.
    await db.execute(sql`
      update tasks set paid_at = now() - (interval '1 day') * (3 + (abs(hashtext(id)) % 33))
      where paid_at is not null and not sandbox`);
    await expectConsistent();
    const today = DateTime.now().setZone("America/Toronto");
    for (const [back, span] of [
      [36, 34],
      [30, 9],
      [12, 3],
      [20, 14],
    ] as const) {
      const from = today.minus({ days: back }).toISODate()!;
      const to = today.minus({ days: back - span }).toISODate()!;
      const dashboard = await analytics(`action=dashboard&date_from=${from}&date_to=${to}`);
      const expected = Object.fromEntries(
        (await recountTopClients(from, to)).map((r) => [r.client, [r.tasks, r.revenue_cad]]),
      );
      const got = Object.fromEntries(
        dashboard.top_clients.map((c: { client: string; tasks: number; revenue_cad: number }) => [
          c.client,
          [c.tasks, c.revenue_cad],
        ]),
      );
      expect(got, `${from}..${to}`).toEqual(expected);
    }
  });

  it("the closed weeks the dashboard keeps in memory follow a change to a closed week; a payment now leaves them be", async () => {
    const db = await getDb();
    const version = async () =>
      Number(
        rowsOf<{ v: string }>(
          await db.execute(sql`select version as v from rollup_versions where name = 'tasks_paid_clients'`),
        )[0]!.v,
      );
    // The 40 days up to today (America/Toronto), taken at each call: taken once, a run across midnight
    // would leave the payment made "now" below after the period's last day.
    const period = () => {
      const today = DateTime.now().setZone("America/Toronto");
      return `date_from=${today.minus({ days: 40 }).toISODate()}&date_to=${today.toISODate()}`;
    };
    const revenueOf = async (client: string) =>
      (await analytics(`action=dashboard&${period()}`)).top_clients.find(
        (c: { client: string }) => c.client === client,
      )?.revenue_cad as number;
    // A task paid without a charge (its revenue is its price), moved to a week that ended.
    const [old] = rowsOf<{ id: string; client: string }>(
      await db.execute(sql`
        select t.id, k.contact as client from tasks t join api_keys k on k.id = t.api_key_id
        where not t.sandbox and t.paid_at is not null
          and not exists (select 1 from ledger_entries l where l.task_id = t.id and l.kind = 'charge')
        order by t.id limit 1`),
    );
    expect(old, "a paid task without a charge").toBeDefined();
    await db.execute(sql`update tasks set paid_at = now() - interval '20 days' where id = ${old!.id}`);
    const usdcBefore = await revenueOf("task-rollup-usdc@example.com"); // the closed weeks are now kept
    const v0 = await version();

    // A payment now lands in the current week: the version stays, and the answer counts it.
    const fresh = await submitted(keyHeaders(usdcKey));
    await reviewTask(admin, { task_id: fresh, action: "approve", price_cad: 111 });
    await recordPayment(admin, { task_id: fresh });
    expect(await version()).toBe(v0);
    expect(await revenueOf("task-rollup-usdc@example.com")).toBeCloseTo(usdcBefore + 111, 2);

    // A closed week changes behind the kept sums: the version rises, the next answer follows.
    const before = await revenueOf(old!.client);
    await db.execute(sql`update tasks set price_cad = price_cad + 1000 where id = ${old!.id}`);
    expect(await version()).toBeGreaterThan(v0);
    expect(await revenueOf(old!.client)).toBeCloseTo(before + 1000, 2);
    await expectConsistent();
  });

  it("closedUntil: the Sunday on or before two days ago", () => {
    expect(closedUntil("2026-11-27")).toBe("2026-11-22"); // a Friday
    expect(closedUntil("2026-11-24")).toBe("2026-11-22"); // a Tuesday: Sunday is two days back
    expect(closedUntil("2026-11-23")).toBe("2026-11-15"); // a Monday: last week is still open
  });

  it("wholeWeeks: the Monday-to-Sunday weeks inside a period, none in a short one", () => {
    expect(wholeWeeks("2026-11-02", "2026-11-29")).toEqual({
      weeksFrom: "2026-11-02",
      weeksTo: "2026-11-29",
    });
    expect(wholeWeeks("2026-11-03", "2026-11-28")).toEqual({
      weeksFrom: "2026-11-09",
      weeksTo: "2026-11-22",
    });
    expect(wholeWeeks("2026-11-03", "2026-11-15")).toEqual({
      weeksFrom: "2026-11-09",
      weeksTo: "2026-11-15",
    });
    expect(wholeWeeks("2026-11-03", "2026-11-14")).toEqual({ weeksFrom: null, weeksTo: null });
    expect(wholeWeeks("2026-12-28", "2027-01-10")).toEqual({
      weeksFrom: "2026-12-28",
      weeksTo: "2027-01-10",
    });
    // A period that ends today (a Thursday) or later: the current week is whole, as no roll-up
    // holds a day after today; before today it is not.
    expect(wholeWeeks("2026-11-03", "2026-11-26", "2026-11-26")).toEqual({
      weeksFrom: "2026-11-09",
      weeksTo: "2026-11-29",
    });
    expect(wholeWeeks("2026-11-03", "2026-11-27", "2026-11-26")).toEqual({
      weeksFrom: "2026-11-09",
      weeksTo: "2026-11-29",
    });
    expect(wholeWeeks("2026-11-03", "2026-11-26", "2026-11-27")).toEqual({
      weeksFrom: "2026-11-09",
      weeksTo: "2026-11-22",
    });
    expect(wholeWeeks("2026-11-24", "2026-11-26", "2026-11-26")).toEqual({ weeksFrom: null, weeksTo: null });
    expect(wholeWeeks("2026-11-23", "2026-11-23", "2026-11-23")).toEqual({
      weeksFrom: "2026-11-23",
      weeksTo: "2026-11-29",
    });
  });

  it("follow writes made by SQL: status, payment day, contact, key, charges added and removed, a task deleted", async () => {
    const db = await getDb();
    const [paidId, , , manualId, awaitingId] = taskIds;
    const steps = [
      sql`update tasks set status = 'completed' where id = ${paidId}`,
      sql`update tasks set paid_at = paid_at - interval '9 days' where id = ${manualId}`,
      sql`update tasks set requester_contact = 'someone-else@example.com', api_key_id = null where id = ${manualId}`,
      sql`update tasks set refund_status = 'refunded', refund_amount_cad = 12.5 where id = ${manualId}`,
      sql`update tasks set updated_at = now() where id = ${paidId}`,
      sql`update tasks set status = 'paid', paid_at = now() where id = ${awaitingId}`,
      sql`insert into ledger_entries (id, account_id, kind, amount_cad, task_id)
          select 'le_rollup_test', account_id, 'charge', -77.25, ${awaitingId} from ledger_entries limit 1`,
      sql`update ledger_entries set amount_cad = -70 where id = 'le_rollup_test'`,
      sql`delete from ledger_entries where id = 'le_rollup_test'`,
      sql`update tasks set org_id = 'another-org', created_at = created_at - interval '3 days' where id = ${awaitingId}`,
      sql`delete from tasks where id = ${awaitingId}`,
    ];
    for (const step of steps) {
      await db.execute(step);
      await expectConsistent();
    }
  });

  it("stay exact under concurrent updates of tasks sharing roll-up rows", async () => {
    const db = await getDb();
    const ids = Array.from({ length: 8 }, (_, i) => `TASK-ROLLUP-${i}`);
    await db.execute(sql`
      insert into tasks (id, service_type, status, location_address, task_description, requester_contact, price_cad,
                         paid_at, org_id, review_deadline, execution_deadline)
      select id, 'SVC-01', 'paid', 'Laval', 'Concurrent roll-up test', 'concurrent@example.com', 100, now(), ${ORG},
             now() + interval '1 day', now() + interval '3 days'
      from unnest(${sql.raw(`array[${ids.map((i) => `'${i}'`).join(",")}]`)}::text[]) id`);
    // Each moves its task through two statuses in its own transaction, all at once.
    await Promise.all(
      ids.map((id) =>
        db.transaction(async (tx) => {
          await tx.execute(sql`update tasks set status = 'dispatched' where id = ${id}`);
          await tx.execute(
            sql`update tasks set status = ${id.endsWith("1") ? "failed" : "completed"} where id = ${id}`,
          );
        }),
      ),
    );
    await expectConsistent();
  });

  it("Law 25 erasure: the erased e-mail leaves the client roll-up with the tasks it named", async () => {
    const db = await getDb();
    const named = () =>
      db.execute(
        sql`select count(*)::int as n from tasks_paid_clients_daily where requester_contact = ${ERASED_EMAIL}`,
      );
    expect(rowsOf<{ n: number }>(await named())[0]!.n).toBe(1);
    // Requester contacts are replaced once a task is terminal.
    await db.execute(sql`update tasks set status = 'completed' where requester_contact = ${ERASED_EMAIL}`);
    await processErasureEarly(erasedAccount, "admin_test", "test: erasure follows the task roll-ups");
    expect(rowsOf<{ n: number }>(await named())[0]!.n).toBe(0);
    await expectConsistent();
  });

  it("the housekeeping job folds each counter key's appended rows into one; the sums stay", async () => {
    const db = await getDb();
    const appended = async () =>
      rowsOf<{ n: number }>(
        await db.execute(sql`select ((select count(*) from tasks_paid_daily where not compacted)
          + (select count(*) from tasks_created_daily where not compacted)
          + (select count(*) from tasks_org_daily where not compacted))::int as n`),
      )[0]!.n;
    expect(await appended()).toBeGreaterThan(0);
    const run = await expirePayments();
    expect(run.details?.task_rollup_rows_folded).toBeGreaterThan(0);
    expect(await appended()).toBe(0);
    const [keys] = rowsOf<{ extra: number }>(
      await db.execute(sql`select
        ((select count(*) - count(distinct (day, service_type, status)) from tasks_paid_daily)
        + (select count(*) - count(distinct (day, status)) from tasks_created_daily)
        + (select count(*) - count(distinct (org_id, day, status)) from tasks_org_daily))::int as extra`),
    );
    expect(keys!.extra).toBe(0); // one row per key
    await expectConsistent();
    // Changes after the fold append again, and the sums stay exact.
    await db.execute(sql`update tasks set status = 'failed' where id = ${taskIds[0]}`);
    expect(await appended()).toBeGreaterThan(0);
    await expectConsistent();
    expect((await expirePayments()).details?.task_rollup_rows_folded).toBeGreaterThan(0);
    await expectConsistent();
  });

  it("a roll-up changed behind the triggers' back is caught by the recount", async () => {
    const db = await getDb();
    const first = sql`(select day, api_key_id, requester_contact from tasks_paid_clients_daily order by 1, 2, 3 limit 1)`;
    await db.execute(
      sql`update tasks_paid_clients_daily set tasks = tasks + 1 where (day, api_key_id, requester_contact) = ${first}`,
    );
    expect((await taskRollupDiff()).clients).toBe(2); // the roll-up row, and the recount's row it no longer matches
    await db.execute(
      sql`update tasks_paid_clients_daily set tasks = tasks - 1 where (day, api_key_id, requester_contact) = ${first}`,
    );
    await db.execute(
      sql`insert into tasks_created_daily (day, status, tasks) values ('2000-01-01', 'completed', 1)`,
    );
    expect((await taskRollupDiff()).created).toBe(1);
    await db.execute(sql`delete from tasks_created_daily where day = '2000-01-01'`);
    await expectConsistent();
  });
});

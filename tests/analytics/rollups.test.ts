/**
 * The activity roll-ups the analytics read (issue 32 item 4; docs/decisions.md 21): after a mix of
 * real requests, rows written by SQL, deletions (retention) and rewrites (Law 25 erasure), both
 * roll-ups equal a recount of the raw log; the open day counts; `action=agents` and `action=org`
 * answer what the raw log answers.
 */
import { sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as analyticsGet } from "../../api/analytics.js";
import { GET as estimateGet } from "../../api/estimate.js";
import { flushActivity } from "../../lib/activity/record-activity.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { processErasureEarly } from "../../lib/privacy/erasure.js";
import { purgeExpiredPersonalData } from "../../lib/privacy/retention.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { rollupDiff, rowsOf } from "../helpers/rollups.js";

useTestDatabase();

const ORG = "rollup-org";
let admin: string;
let key: string;
let accountId: string;

/** The same answer as `action=agents` before the roll-ups: the raw log, grouped. */
async function rawAgents(orgId?: string) {
  const db = await getDb();
  return rowsOf<Record<string, unknown>>(
    await db.execute(sql`
    select agent_model, agent_name, org_id, count(*)::int as requests,
           (count(*) filter (where status >= 400))::int as errors, count(distinct api_key_id)::int as keys,
           round(avg(latency_ms))::int as avg_latency_ms, min(at) as first_seen, max(at) as last_seen
    from activity_log
    where identity_valid = true and at >= now() - interval '29 days'
      ${orgId ? sql`and org_id = ${orgId}` : sql``}
    group by agent_model, agent_name, org_id
    order by count(*) desc, agent_name asc`),
  ).map(
    (r): Record<string, unknown> => ({
      ...r,
      first_seen: new Date(r.first_seen as string).toISOString(),
      last_seen: new Date(r.last_seen as string).toISOString(),
    }),
  );
}

const byIdentity = (rows: Record<string, unknown>[]) =>
  Object.fromEntries(rows.map((r) => [`${r.agent_model}/${r.agent_name}/${r.org_id}`, r]));

beforeAll(async () => {
  admin = await makeKey(["admin"], "rollup-ops@example.com");
  key = await makeKey(["audit_only", "task_create"], "rollup-client@example.com");
  accountId = (await openLinkedAccount(key)).body.account.account_id as string;
  const other = await makeKey(["task_create"], "rollup-other@example.com");
  const requests: [string | undefined, string, string][] = [
    [key, `gpt/rollup-bot/${ORG}`, "/api/estimate?hours=1"],
    [key, `gpt/rollup-bot/${ORG}`, "/api/estimate?hours=999"], // an error
    [other, `gpt/rollup-bot/${ORG}`, "/api/estimate?hours=2"],
    [undefined, `claude/anon-bot/${ORG}`, "/api/estimate?hours=1"],
    [undefined, "bad identity", "/api/estimate?hours=1"], // invalid: not an agent, no org
    [other, "m/other-bot/other-org", "/api/estimate?hours=3"],
  ];
  for (const [k, identity, path] of requests) {
    await call(estimateGet, path, { headers: { ...(k ? keyHeaders(k) : {}), "x-agent-identity": identity } });
  }
  await flushActivity();
  // Older rows written by SQL: two days ago, 28 days ago (in the days before the period's first
  // whole week, read from the daily roll-up) and 40 days ago (outside the default 30 days).
  const db = await getDb();
  await db.execute(sql`
    insert into activity_log (at, api_key_id, method, endpoint, status, latency_ms, agent_model, agent_name, org_id, identity_valid)
    select now() - (case when g % 4 = 0 then interval '2 days' when g % 2 = 0 then interval '28 days'
                      else interval '40 days' end) - (g || ' seconds')::interval,
           case when g % 3 = 0 then null else 'key_rollup_' || (g % 4) end, case when g % 5 = 0 then 'POST' else 'GET' end,
           '/api/e' || (g % 3), case when g % 7 = 0 then 503 else 200 end, g % 90, 'gpt', 'sql-bot-' || (g % 2),
           ${ORG}, g % 11 <> 0
    from generate_series(1, 300) as g`);
});

describe("activity roll-ups", () => {
  it("equal a recount of the log after requests and SQL inserts", async () => {
    expect(await rollupDiff()).toMatchObject({ agents: 0, weeks: 0, endpoints: 0 });
  });

  it("count the open day: a request made now is in today's roll-up and in action=agents", async () => {
    // Today's date (America/Toronto) before the request and after the checks: the same day unless the
    // test runs across midnight, when the request's day is either.
    const todayNow = () => DateTime.now().setZone("America/Toronto").toISODate()!;
    const before = todayNow();
    await call(estimateGet, "/api/estimate?hours=1", {
      headers: { ...keyHeaders(key), "x-agent-identity": "gpt/just-now/now-org" },
    });
    const { body } = await call(analyticsGet, "/api/analytics?action=agents", { headers: keyHeaders(admin) });
    expect(body.agents.find((a: { agent_name: string }) => a.agent_name === "just-now")).toMatchObject({
      requests: 1,
      keys: 1,
      org_id: "now-org",
    });
    const db = await getDb();
    const rows = rowsOf<{ day: string }>(
      await db.execute(sql`select day::text as day from activity_agents_daily where agent_name = 'just-now'`),
    );
    const after = todayNow();
    expect(rows).toHaveLength(1);
    expect([before, after]).toContain(rows[0]!.day);
  });

  it("action=agents and action=org answer what a raw recount answers", async () => {
    const { body } = await call(analyticsGet, "/api/analytics?action=agents&limit=1000", {
      headers: keyHeaders(admin),
    });
    expect(byIdentity(body.agents)).toEqual(byIdentity(await rawAgents()));
    expect(body.agents.map((a: { requests: number }) => a.requests)).toEqual(
      (await rawAgents()).map((a) => a.requests as number),
    );
    const org = await call(analyticsGet, `/api/analytics?action=org&org_id=${ORG}`, {
      headers: keyHeaders(admin),
    });
    expect(byIdentity(org.body.agents)).toEqual(byIdentity(await rawAgents(ORG)));
    const db = await getDb();
    const [raw] = rowsOf<{ n: number; errors: number }>(
      await db.execute(sql`select count(*)::int as n, (count(*) filter (where status >= 400))::int as errors
        from activity_log where org_id = ${ORG} and at >= now() - interval '29 days'`),
    );
    expect(org.body.requests).toMatchObject({ total: raw!.n, errors: raw!.errors });
    expect(
      org.body.requests.by_endpoint.reduce((s: number, e: { requests: number }) => s + e.requests, 0),
    ).toBe(raw!.n);
  });

  it("follow the retention purge: rows deleted from the log leave the roll-ups", async () => {
    process.env.ACTIVITY_LOG_RETENTION_DAYS = "30";
    resetConfig();
    try {
      const purged = await purgeExpiredPersonalData(new Date(), { batchRows: 7 });
      expect(purged.activity_rows_deleted).toBeGreaterThan(100);
    } finally {
      delete process.env.ACTIVITY_LOG_RETENTION_DAYS;
      resetConfig();
    }
    expect(await rollupDiff()).toMatchObject({ agents: 0, weeks: 0, endpoints: 0 });
    const db = await getDb();
    const [old] = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from activity_agents_daily
        where day < (now() at time zone 'America/Toronto')::date - 31`),
    );
    expect(old!.n).toBe(0);
  });

  it("follow Law 25 erasure: the subject's agent names are cleared in the roll-up too", async () => {
    const db = await getDb();
    const [{ id: keyId } = { id: "" }] = rowsOf<{ id: string }>(
      await db.execute(
        sql`select distinct api_key_id as id from activity_log where agent_name = 'rollup-bot' and status >= 400`,
      ),
    );
    expect(keyId).toMatch(/./);
    await processErasureEarly(accountId, "admin_test", "test: erasure follows the roll-ups");
    const named = rowsOf<{ agent_name: string }>(
      await db.execute(
        sql`select agent_name from activity_agents_daily where api_key_id = ${keyId} and agent_name <> ''`,
      ),
    );
    expect(named).toEqual([]);
    expect(await rollupDiff()).toMatchObject({ agents: 0, weeks: 0, endpoints: 0 });
    const { body } = await call(analyticsGet, `/api/analytics?action=org&org_id=${ORG}`, {
      headers: keyHeaders(admin),
    });
    expect(byIdentity(body.agents)).toEqual(byIdentity(await rawAgents(ORG)));
    expect(body.agents.some((a: { agent_name: string | null }) => a.agent_name === null)).toBe(true);
  });
});

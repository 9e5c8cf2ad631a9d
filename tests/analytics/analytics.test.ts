/**
 * Admin analytics over real requests and tasks: activity by agent identity, one
 * organization, the compliance export (CSV escaping of commas, quotes and newlines;
 * formula-like cells quoted) and the dashboard (revenue by service and ISO week, top
 * clients, completion rate). Sandbox tasks never count.
 */
import { sql } from "drizzle-orm";
import { DateTime } from "luxon";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as analyticsGet } from "../../api/analytics.js";
import { GET as estimateGet } from "../../api/estimate.js";
import { flushActivity } from "../../lib/activity/record-activity.js";
import { EXPORT_PAGE_ROWS } from "../../lib/analytics/exports.js";
import { getDb } from "../../lib/db/client.js";
import { accountAdmin, openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { completeTask, recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const ORG = "acme-corp";
const TRICKY = 'Inspect unit 4, then say "hello"\nsecond line; =cmd';
let admin: string;
let key: string;
let charged: string;
let manual: string;

const analytics = (query: string, who = admin) =>
  call(analyticsGet, `/api/analytics?${query}`, { headers: keyHeaders(who) });

/** The ISO week of now in America/Toronto, e.g. 2026-W07. */
const isoWeekNow = () => DateTime.now().setZone("America/Toronto").toFormat("kkkk-'W'WW");
/** The week when the file began, before the payments below (a run across Sunday midnight moves on). */
const weekAtStart = isoWeekNow();

beforeAll(async () => {
  admin = await makeKey(["admin"], "ops@example.com");
  key = await makeKey(["audit_only", "task_create"], "client@example.com");
  await openLinkedAccount(key);
  await accountAdmin(admin, { action: "deposit", email: "client@example.com", amount_cad: 1000 });
  await accountAdmin(admin, { action: "set_discount", email: "client@example.com", discount_percent: 10 });
  const identity = { "x-agent-identity": `gpt-5/buyer-bot/${ORG}` };
  charged = (await submitTask({ ...validTask, task_description: TRICKY }, keyHeaders(key, identity))).body
    .task_id;
  await reviewTask(admin, { task_id: charged, action: "approve", price_cad: 200 });
  await completeTask(admin, {
    task_id: charged,
    action: "complete",
    no_visit_reason: "Test: completed without a site visit",
    operator_notes: "done",
  });
  const other = await makeKey(["audit_only", "task_create"], "other@example.com");
  manual = (await submitTask({ ...validTask, service_type: "SVC-05" }, keyHeaders(other, identity))).body
    .task_id;
  await reviewTask(admin, { task_id: manual, action: "approve", price_cad: 80 });
  await recordPayment(admin, { task_id: manual, note: "wire" });
  await completeTask(admin, { task_id: manual, action: "fail", reason: "closed" });
  const sandbox = (await submitTask(validTask, keyHeaders(key, { ...identity, "x-service-mode": "sandbox" })))
    .body.task_id;
  await reviewTask(admin, { task_id: sandbox, action: "approve", price_cad: 999 });
  await recordPayment(admin, { task_id: sandbox });
  for (let i = 0; i < 2; i++) {
    await call(estimateGet, "/api/estimate?hours=1", {
      headers: { "x-agent-identity": `claude/agent,"x"/${ORG}` },
    });
  }
  await call(estimateGet, "/api/estimate?hours=999", {
    headers: { "x-agent-identity": "m/other-agent/other-org" },
  });
  await flushActivity();
});

describe("GET /api/analytics", () => {
  it("counts requests this instance answered whose rows were still queued (flushed before the read)", async () => {
    await call(estimateGet, "/api/estimate?hours=1", {
      headers: { "x-agent-identity": "m/fresh-agent/fresh-org" },
    });
    const { body } = await analytics("action=agents");
    const fresh = body.agents.find((a: { agent_name: string }) => a.agent_name === "fresh-agent");
    expect(fresh).toMatchObject({ org_id: "fresh-org", requests: 1 });
  });

  it("action=agents counts requests per agent identity", async () => {
    const { res, body } = await analytics("action=agents");
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(body.agents.map((a: { agent_name: string }) => [a.agent_name, a]));
    expect(byName['agent,"x"']).toMatchObject({
      agent_model: "claude",
      org_id: ORG,
      requests: 2,
      errors: 0,
      keys: 0,
    });
    expect(byName["buyer-bot"]).toMatchObject({ agent_model: "gpt-5", org_id: ORG, requests: 3, keys: 2 });
    expect(byName["other-agent"]).toMatchObject({ requests: 1, errors: 1 });
  });

  it("action=org summarizes one organization without sandbox tasks", async () => {
    const { body } = await analytics(`action=org&org_id=${ORG}`);
    expect(body.requests.total).toBe(5);
    expect(body.agents.map((a: { agent_name: string }) => a.agent_name).sort()).toEqual([
      'agent,"x"',
      "buyer-bot",
    ]);
    expect(body.tasks).toEqual({ total: 2, by_status: { completed: 1, failed: 1 }, revenue_cad: 260 });
    expect(body.account).toBeNull();
  });

  it("action=export&format=csv escapes commas, quotes and newlines (RFC 4180)", async () => {
    const tasksCsv = await call(
      analyticsGet,
      `/api/analytics?action=export&org_id=${ORG}&format=csv&dataset=tasks`,
      {
        headers: keyHeaders(admin),
      },
    );
    expect(tasksCsv.res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(tasksCsv.res.headers.get("content-disposition")).toContain(`org-${ORG}-tasks.csv`);
    const text: string = tasksCsv.body;
    expect(text.split("\n")[0]).toBe(
      "task_id,created_at,service_type,status,urgency,location_address,task_description,requester_contact,agent_identity,estimate_cad,price_cad,payment_method,paid_at,completed_at",
    );
    expect(text).toContain('"Inspect unit 4, then say ""hello""\nsecond line; =cmd"');
    expect(text).toContain('"1000 Rue Sherbrooke O, Montréal, QC H3A 3G4"');
    expect(text).not.toContain("SANDBOX-");
    expect(text).toContain(`${charged},`);

    const activity = await call(analyticsGet, `/api/analytics?action=export&org_id=${ORG}`, {
      headers: keyHeaders(admin),
    });
    const lines = (activity.body as string).trim().split("\n");
    expect(lines).toHaveLength(6);
    expect(lines.filter((l) => l.includes(',"agent,""x""",'))).toHaveLength(2);

    const json = await analytics(`action=export&org_id=${ORG}&format=json&dataset=tasks`);
    expect(json.body.count).toBe(2);
    expect(json.body.records[0].task_description).toBe(TRICKY);
  });

  it("an export larger than a page streams every row once, in order, in CSV and in JSON", async () => {
    const big = "bigcorp-stream";
    const db = await getDb();
    const n = EXPORT_PAGE_ROWS * 2 + 7;
    await db.execute(sql`
      insert into activity_log (request_id, at, method, endpoint, status, latency_ms, org_id)
      select 'req_stream_' || lpad(g::text, 6, '0'), now() - interval '2 days' + (g || ' milliseconds')::interval,
             'GET', '/api/status', 200, 1, ${big}
      from generate_series(1, ${n}::int) as g`);
    const res = await analyticsGet(
      new Request(`http://localhost:3000/api/analytics?action=export&org_id=${big}`, {
        headers: keyHeaders(admin),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toBeInstanceOf(ReadableStream);
    expect(res.headers.get("content-length")).toBeNull(); // streamed, not built whole
    const lines = (await res.text()).trim().split("\n").slice(1);
    expect(lines).toHaveLength(n);
    const ids = lines.map((l) => l.split(",")[1]);
    expect(new Set(ids).size).toBe(n);
    expect(ids[0]).toBe("req_stream_000001");
    expect(ids.at(-1)).toBe(`req_stream_${String(n).padStart(6, "0")}`);

    // The same export in JSON streams too: many chunks, one document, its count at the end.
    const json = await analyticsGet(
      new Request(`http://localhost:3000/api/analytics?action=export&org_id=${big}&format=json`, {
        headers: keyHeaders(admin),
      }),
    );
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json.headers.get("content-length")).toBeNull();
    const reader = json.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(chunks.length).toBeGreaterThan(1);
    const doc = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    expect(doc).toMatchObject({ action: "export", org_id: big, dataset: "activity", count: n });
    expect(doc.records).toHaveLength(n);
    expect(doc.records[0].request_id).toBe("req_stream_000001");
  });

  it("action=dashboard: revenue by service and ISO week, top clients, completion rate", async () => {
    const { body } = await analytics("action=dashboard");
    // The payments' week: this one, or the one the file began in if it ran across Sunday midnight.
    const week = expect.toBeOneOf([weekAtStart, isoWeekNow()]);
    expect(body.revenue_by_service_week).toEqual([
      { iso_week: week, service_type: "SVC-01", tasks: 1, revenue_cad: 180 },
      { iso_week: week, service_type: "SVC-05", tasks: 1, revenue_cad: 80 },
    ]);
    expect(body.revenue_total_cad).toBe(260);
    expect(body.top_clients[0]).toMatchObject({ client: "client@example.com", tasks: 1, revenue_cad: 180 });
    expect(body.top_clients[0].account_id).toMatch(/^acct_/);
    expect(body.top_clients[1]).toMatchObject({
      client: "other@example.com",
      account_id: null,
      revenue_cad: 80,
    });
    expect(body.completion_rate).toEqual({ completed: 1, failed: 1, cancelled: 0, rate: 0.5 });
    const past = await analytics("action=dashboard&date_from=2020-01-01&date_to=2020-01-31");
    expect(past.body).toMatchObject({
      revenue_by_service_week: [],
      top_clients: [],
      completion_rate: { rate: null },
    });
  });

  it.each([
    ["action=org", 400, "MISSING_FIELD", "org_id"],
    ["action=export", 400, "MISSING_FIELD", "org_id"],
    ["", 400, "MISSING_FIELD", "action"],
    ["action=revenue", 422, "VALIDATION_ERROR", "action"],
    [`action=export&org_id=${ORG}&format=xlsx`, 422, "VALIDATION_ERROR", "format"],
    ["action=agents&date_from=2025-13-01", 422, "VALIDATION_ERROR", "date_from"],
    ["action=agents&date_from=2025-02-01&date_to=2025-01-01", 422, "VALIDATION_ERROR", "date_from"],
    ["action=agents&limit=5000", 422, "VALIDATION_ERROR", "limit"],
  ])("refuses %s", async (query, status, code, field) => {
    const { res, body } = await analytics(query);
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });

  it("is admin-only", async () => {
    const { res, body } = await analytics("action=agents", key);
    expectEnvelope(body, res, 403, "FORBIDDEN");
  });
});

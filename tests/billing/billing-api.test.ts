/**
 * GET /api/billing (balance, transactions with filters and pagination) and POST
 * /api/billing pre_authorize (5-minute holds, 402 denials, consumption by a charge),
 * spending levels and their events, with the bad inputs.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as billingGet } from "../../api/billing.js";
import { getDb } from "../../lib/db/client.js";
import { ledgerEntries, preauthorizations, taskEvents } from "../../lib/db/schema/index.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";
import { accountAdmin, billing, openLinkedAccount, preAuthorize } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

useLedgerCheck();

const SCOPES = ["audit_only", "task_create", "billing_read"] as const;
let admin: string;
let key: string;
let accountId: string;
const taskIds: string[] = [];
/** The day (America/Toronto, YYYY-MM-DD) of `at`, as the billing filters read dates. */
const torontoDay = (at: Date) => at.toLocaleDateString("en-CA", { timeZone: "America/Toronto" });
/** The Toronto day before the ledger entries were written (they are of this day or the next). */
let firstDay: string;

beforeAll(async () => {
  firstDay = torontoDay(new Date());
  admin = await makeKey(["admin"], "ops@example.com");
  key = await makeKey([...SCOPES], "payer@example.com");
  accountId = (await openLinkedAccount(key)).body.account.account_id;
  await accountAdmin(admin, { action: "deposit", email: "payer@example.com", amount_cad: 2000 });
  for (const [service, price] of [
    ["SVC-01", 100],
    ["SVC-02", 200],
    ["SVC-01", 300],
  ] as const) {
    const { body } = await submitTask({ ...validTask, service_type: service }, keyHeaders(key));
    taskIds.push(body.task_id);
    await reviewTask(admin, { task_id: body.task_id, action: "approve", price_cad: price });
  }
});

describe("GET /api/billing", () => {
  it("reports the balance by e-mail or the name of a key linked to the account", async () => {
    const { res, body } = await billing(key, "action=balance&agent_id=Payer@Example.com");
    expect(res.status).toBe(200);
    expect(body).toEqual({
      agent_id: "Payer@Example.com",
      account_id: accountId,
      account_status: "active",
      balance_cad: 1400,
      held_cad: 0,
      available_balance_cad: 1400,
      spending_level: "ok",
      currency: "CAD",
    });
    const named = await createApiKey({
      name: "payer-agent",
      contact: "payer@example.com",
      scopes: ["billing_read"],
      trusted: true,
      accountId,
    });
    const byName = await billing(named.api_key, "action=balance&agent_id=payer-agent");
    expect(byName.body).toMatchObject({
      agent_id: "payer-agent",
      account_id: accountId,
      available_balance_cad: 1400,
    });
    const adminByName = await billing(admin, "action=balance&agent_id=payer-agent");
    expect(adminByName.body.account_id).toBe(accountId);
    const unknownName = await billing(admin, "action=balance&agent_id=no-such-agent");
    expectEnvelope(unknownName.body, unknownName.res, 404, "NOT_FOUND");
  });

  it("lists transactions newest first, filtered and paginated, with total", async () => {
    const all = await billing(key, "action=transactions&agent_id=payer@example.com");
    expect(all.body.total).toBe(4);
    expect(all.body.limit).toBe(50);
    expect(all.body.offset).toBe(0);
    expect(all.body.transactions.map((t: { amount_cad: number }) => t.amount_cad)).toEqual([
      -300, -200, -100, 2000,
    ]);
    expect(all.body.transactions[0]).toMatchObject({
      kind: "charge",
      task_id: taskIds[2],
      service_type: "SVC-01",
    });
    expect(all.body.transactions[3]).toMatchObject({ kind: "deposit", task_id: null, service_type: null });
    const svc = await billing(
      key,
      "action=transactions&agent_id=payer@example.com&service_type=SVC-01&limit=1&offset=1",
    );
    expect(svc.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(svc.body.transactions.map((t: { task_id: string }) => t.task_id)).toEqual([taskIds[0]]);
    // From the day the entries were written to today: one day, unless midnight in Toronto
    // passed since (a single "today" would then miss the entries of the day before).
    const today = torontoDay(new Date());
    const dated = await billing(
      key,
      `action=transactions&agent_id=payer@example.com&date_from=${firstDay}&date_to=${today}`,
    );
    expect(dated.body.total).toBe(4);
    const past = await billing(key, "action=transactions&agent_id=payer@example.com&date_to=2020-01-01");
    expect(past.body).toMatchObject({ total: 0, transactions: [] });
  });

  it.each([
    ["agent_id=payer@example.com", 400, "MISSING_FIELD", "action"],
    ["action=balance", 400, "MISSING_FIELD", "agent_id"],
    // spec "GET /api/billing": "400 missing/invalid action or agent_id" (docs/spec-precedence.md)
    ["action=refund&agent_id=payer@example.com", 400, "INVALID_FORMAT", "action"],
    ["action=BALANCE&agent_id=payer@example.com", 400, "INVALID_FORMAT", "action"],
    ["action=&agent_id=payer@example.com", 400, "MISSING_FIELD", "action"],
    [`action=balance&agent_id=${"x".repeat(255)}`, 400, "INVALID_FORMAT", "agent_id"],
    ["action=transactions&agent_id=payer@example.com&limit=201", 422, "VALIDATION_ERROR", "limit"],
    ["action=transactions&agent_id=payer@example.com&limit=0", 422, "VALIDATION_ERROR", "limit"],
    ["action=transactions&agent_id=payer@example.com&offset=-1", 422, "VALIDATION_ERROR", "offset"],
    ["action=transactions&agent_id=payer@example.com&limit=abc", 400, "INVALID_FORMAT", "limit"],
    [
      "action=transactions&agent_id=payer@example.com&date_from=2025-02-30",
      422,
      "VALIDATION_ERROR",
      "date_from",
    ],
    [
      "action=transactions&agent_id=payer@example.com&date_from=31/01/2025",
      422,
      "VALIDATION_ERROR",
      "date_from",
    ],
    [
      "action=transactions&agent_id=payer@example.com&date_from=2025-02-02&date_to=2025-02-01",
      422,
      "VALIDATION_ERROR",
      "date_from",
    ],
    [
      "action=transactions&agent_id=payer@example.com&service_type=SVC-09",
      422,
      "VALIDATION_ERROR",
      "service_type",
    ],
    ["action=balance&agent_id=someone@example.com", 403, "FORBIDDEN", "agent_id"],
    ["action=balance&agent_id=another-key-name", 403, "FORBIDDEN", "agent_id"],
  ])("refuses %s", async (query, status, code, field) => {
    const { res, body } = await billing(key, query);
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });

  it("admins read any account; 404 when none; a key without billing_read or a JWT is 401", async () => {
    const asAdmin = await billing(admin, "action=balance&agent_id=payer@example.com");
    expect(asAdmin.body.available_balance_cad).toBe(1400);
    const none = await billing(admin, "action=balance&agent_id=nobody@example.com");
    expectEnvelope(none.body, none.res, 404, "NOT_FOUND");
    const plain = await makeKey(["audit_only", "task_create"], "payer@example.com");
    const noScope = await billing(plain, "action=balance&agent_id=payer@example.com");
    expectEnvelope(noScope.body, noScope.res, 401, "UNAUTHORIZED");
    const jwtLike = await call(billingGet, "/api/billing?action=balance&agent_id=payer@example.com", {
      headers: { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln" },
    });
    expectEnvelope(jwtLike.body, jwtLike.res, 401, "UNAUTHORIZED");
  });
});

describe("POST /api/billing pre_authorize", () => {
  it("holds the amount for 5 minutes and lowers the available balance", async () => {
    const before = Date.now();
    const { res, body } = await preAuthorize(key, { agent_id: "payer@example.com", max_cost_cad: 1200 });
    const after = Date.now();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      authorized: true,
      max_cost_cad: 1200,
      available_balance_cad: 200,
      spending_level: "warning",
    });
    expect(body.preauthorization_id).toMatch(/^pa_/);
    // 5 minutes from the moment it was granted, somewhere inside the call (± 1 s of rounding),
    // however long the call took.
    const validUntil = Date.parse(body.valid_until);
    expect(validUntil).toBeGreaterThan(before + 299_000);
    expect(validUntil).toBeLessThanOrEqual(after + 301_000);
    const balance = await billing(key, "action=balance&agent_id=payer@example.com");
    expect(balance.body).toMatchObject({ balance_cad: 1400, held_cad: 1200, available_balance_cad: 200 });
    const db = await getDb();
    const low = await db
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.accountId, accountId), eq(taskEvents.type, "billing.low_balance")));
    expect(low.map((e) => e.payload.reason)).toContain("pre_authorization");
  });

  it("denies more than is available with 402, reason, balance and suggestions, and emits billing.payment_required", async () => {
    const { res, body } = await preAuthorize(key, { agent_id: "payer@example.com", max_cost_cad: 250.5 });
    const error = expectEnvelope(body, res, 402, "PAYMENT_REQUIRED");
    expect(error).toMatchObject({
      authorized: false,
      reason: "insufficient_funds",
      available_balance_cad: 200,
      max_cost_cad: 250.5,
      shortfall_cad: 50.5,
    });
    expect(error.suggestions.length).toBeGreaterThan(0);
    const db = await getDb();
    const required = await db
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.type, "billing.payment_required"), isNull(taskEvents.taskId)));
    expect(required.some((e) => e.payload.required_cad === 250.5 && e.apiKeyId !== null)).toBe(true);
  });

  it("a task submitted while the hold is live consumes it when charged", async () => {
    const { body } = await submitTask(validTask, keyHeaders(key));
    const reviewed = await reviewTask(admin, { task_id: body.task_id, action: "approve", price_cad: 1000 });
    expect(reviewed.body.status).toBe("paid");
    const db = await getDb();
    const holds = await db.select().from(preauthorizations).where(eq(preauthorizations.accountId, accountId));
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({ consumedByTaskId: body.task_id });
    const balance = await billing(key, "action=balance&agent_id=payer@example.com");
    expect(balance.body).toMatchObject({ balance_cad: 400, held_cad: 0, available_balance_cad: 400 });
  });

  it("says why a pending account is refused", async () => {
    const other = await makeKey([...SCOPES], "newbie@example.com");
    await openLinkedAccount(other);
    const { res, body } = await preAuthorize(other, { agent_id: "newbie@example.com", max_cost_cad: 10 });
    expect(expectEnvelope(body, res, 402, "PAYMENT_REQUIRED").reason).toBe("account_pending_deposit");
  });

  // spec "POST /api/billing": 400 (it lists no 422) for a bad pre-authorization (docs/spec-precedence.md)
  it.each([
    [{ agent_id: "payer@example.com", max_cost_cad: 0 }, 400, "INVALID_FORMAT", "max_cost_cad"],
    [{ agent_id: "payer@example.com", max_cost_cad: -5 }, 400, "INVALID_FORMAT", "max_cost_cad"],
    [{ agent_id: "payer@example.com", max_cost_cad: 1e9 }, 400, "INVALID_FORMAT", "max_cost_cad"],
    [{ agent_id: "payer@example.com", max_cost_cad: 1.234 }, 400, "INVALID_FORMAT", "max_cost_cad"],
    [{ agent_id: "payer@example.com", max_cost_cad: 0.001 }, 400, "INVALID_FORMAT", "max_cost_cad"],
    [{ agent_id: "payer@example.com", max_cost_cad: "5" }, 400, "INVALID_FORMAT", "max_cost_cad"],
    [{ agent_id: "payer@example.com", max_cost_cad: 5, extra: 1 }, 422, "VALIDATION_ERROR", "extra"],
    [{ agent_id: "payer@example.com" }, 400, "MISSING_FIELD", "max_cost_cad"],
    [{ max_cost_cad: 5 }, 400, "MISSING_FIELD", "agent_id"],
    // spec "POST /api/billing": 400 for an invalid action or agent_id (docs/spec-precedence.md)
    [{ agent_id: "x".repeat(255), max_cost_cad: 5 }, 400, "INVALID_FORMAT", "agent_id"],
    [{ action: "balance", agent_id: "payer@example.com", max_cost_cad: 5 }, 400, "INVALID_FORMAT", "action"],
    [{ action: "", agent_id: "payer@example.com", max_cost_cad: 5 }, 400, "MISSING_FIELD", "action"],
    [{ action: null, agent_id: "payer@example.com", max_cost_cad: 5 }, 400, "MISSING_FIELD", "action"],
    [{ agent_id: "someone@example.com", max_cost_cad: 5 }, 403, "FORBIDDEN", "agent_id"],
  ])("refuses %j", async (json, status, code, field) => {
    const { res, body } = await preAuthorize(key, json);
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });

  it("keeps the ledger balanced: sum of entries equals the reported balance", async () => {
    const db = await getDb();
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
    const sum = Math.round(rows.reduce((s, e) => s + e.amountCad * 100, 0)) / 100;
    const { body } = await billing(key, "action=balance&agent_id=payer@example.com");
    expect(body.balance_cad).toBe(sum);
    expect(sum).toBe(400);
  });

  it("caps the transactions total at offset + 1,000 and says so (a long history is not counted whole)", async () => {
    const bigKey = await makeKey([...SCOPES], "long-history@example.com");
    const big = (await openLinkedAccount(bigKey)).body.account.account_id as string;
    const db = await getDb();
    // 1,010 adjustments of +0.01 and -0.01: the balance stays 0, the history is long.
    await db.execute(sql`
      insert into ledger_entries (id, account_id, kind, amount_cad, description, created_at)
      select 'le_cap_' || g, ${big}, 'adjustment', case when g % 2 = 0 then 0.01 else -0.01 end,
             'test entry', now() - g * interval '1 second'
      from generate_series(1, 1010) as g`);
    const first = await billing(bigKey, "action=transactions&agent_id=long-history@example.com&limit=5");
    expect(first.res.status).toBe(200);
    expect(first.body).toMatchObject({ total: 1000, total_capped: true });
    expect(first.body.transactions).toHaveLength(5);
    const deep = await billing(
      bigKey,
      "action=transactions&agent_id=long-history@example.com&limit=5&offset=100",
    );
    expect(deep.body).toMatchObject({ total: 1010, total_capped: false });
    const small = await billing(key, "action=transactions&agent_id=payer@example.com");
    expect(small.body.total_capped).toBe(false);
  });
});

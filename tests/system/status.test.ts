import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as checkPayments } from "../../api/cron/check-payments.js";
import { GET } from "../../api/status.js";
import { resetConfig } from "../../lib/config.js";
import { getDb, openPg, setDatabase } from "../../lib/db/client.js";
import { jobRuns, tasks } from "../../lib/db/schema/index.js";
import { getPlatformStatus, queueCountsQuery } from "../../lib/system/status.js";
import { useTestDatabase } from "../helpers/db.js";
import { call } from "../helpers/request.js";

const test = useTestDatabase();

function task(id: string, status: string, sandbox = false, createdAt = new Date()) {
  return {
    id,
    sandbox,
    serviceType: "SVC-01" as const,
    status: status as never,
    locationAddress: "1 rue Principale, Laval",
    taskDescription: "Photograph the storefront",
    requesterContact: "agent@example.com",
    reviewDeadline: new Date(Date.now() + 3600_000),
    executionDeadline: new Date(Date.now() + 7200_000),
    createdAt,
  };
}

describe("GET /api/status", () => {
  it("reports never_run before the payment checker has run", async () => {
    const { res, body } = await call(GET, "/api/status");
    expect(res.status).toBe(200);
    expect(body.status).toBe("operational");
    expect(body.services.storage).toBe("operational");
    expect(body.services.payment_checker).toEqual({
      status: "never_run",
      last_run_at: null,
      minutes_ago: null,
      pending_checked: null,
    });
    // No payment network is configured in tests (tests/payments configure local chains).
    expect(body.blockchain).toEqual({ networks: [], payment_currency: "USDC" });
    expect(body.issues).toBeNull();
    expect(Number.isInteger(body.latency_ms)).toBe(true);
  });

  it("reports degraded when the production profile runs without e-mail (MAIL_DISABLED=true)", async () => {
    // getPlatformStatus directly: the HTTP wrapper would refuse to serve this incomplete profile.
    const saved = { ...process.env };
    process.env.NODE_ENV = "production";
    process.env.MAIL_DISABLED = "true";
    resetConfig();
    try {
      const status = await getPlatformStatus();
      expect(status.status).toBe("degraded");
      expect(status.issues).toEqual([expect.stringMatching(/E-mail is disabled \(MAIL_DISABLED=true\)/)]);
      expect(status.suggested_action).toMatch(/no e-mail is sent/);
    } finally {
      process.env = saved;
      resetConfig();
    }
    // A development run without a mail provider is not degraded: the outbox is its mailbox.
    expect((await getPlatformStatus()).status).toBe("operational");
  });

  it("counts the queue from real tasks, excluding sandbox", async () => {
    const db = await getDb();
    const inserted = Date.now();
    const hourAgo = new Date(inserted - 60 * 60_000);
    await db
      .insert(tasks)
      .values([
        task("TASK-Q-1", "received", false, hourAgo),
        task("TASK-Q-2", "received", false, new Date(inserted - 30 * 60_000)),
        task("TASK-Q-3", "accepted_pending_payment"),
        task("TASK-Q-4", "counter_offered"),
        task("TASK-Q-5", "paid"),
        task("TASK-Q-6", "dispatched"),
        task("TASK-Q-7", "completed"),
        task("SANDBOX-Q-8", "received", true),
      ]);
    const { body } = await call(GET, "/api/status");
    // Waits of 60 and 30 minutes when inserted, each grown by the time the status took since.
    const grown = Math.ceil((Date.now() - inserted) / 60_000);
    expect(body.queue).toEqual({
      pending_review: 2,
      pending_payment: 2,
      in_progress: 2,
      total_active: 6,
      avg_wait_minutes: expect.any(Number),
    });
    expect(body.queue.avg_wait_minutes).toBeGreaterThanOrEqual(45);
    expect(body.queue.avg_wait_minutes).toBeLessThanOrEqual(45 + grown);
  });

  it("reads the checker's last run after the cron ran", async () => {
    const run = await call(checkPayments, "/api/cron/check-payments");
    expect(run.res.status).toBe(200);
    expect(run.body).toMatchObject({ job: "check-payments", ok: true, details: { pending_checked: 2 } });
    const { body } = await call(GET, "/api/status");
    expect(body.services.payment_checker).toMatchObject({
      status: "healthy",
      minutes_ago: 0,
      pending_checked: 2,
    });
    expect(Date.parse(body.services.payment_checker.last_run_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("reports stale and degraded checkers with an issue", async () => {
    const db = await getDb();
    // The status at a given time: 30 minutes after the run exactly, however long the update takes.
    const now = new Date();
    await db
      .update(jobRuns)
      .set({ lastRunAt: new Date(now.getTime() - 30 * 60_000) })
      .where(eq(jobRuns.job, "check-payments"));
    let status = await getPlatformStatus(now);
    expect(status.services.payment_checker.status).toBe("stale");
    expect(status.services.payment_checker.minutes_ago).toBe(30);
    expect(status.status).toBe("degraded");
    expect(status.issues?.[0]).toMatch(/not run for 30 minutes/);

    await db
      .update(jobRuns)
      .set({ lastRunAt: new Date(), lastStatus: "error", lastError: "RPC timeout" })
      .where(eq(jobRuns.job, "check-payments"));
    status = await getPlatformStatus();
    expect(status.services.payment_checker.status).toBe("degraded");
    expect(status.issues?.[0]).toContain("RPC timeout");
  });

  it("reports partial_outage when storage is unreachable, without failing", async () => {
    const dead = await openPg("postgres://nobody@127.0.0.1:1/none", 1);
    setDatabase(dead);
    try {
      const { res, body } = await call(GET, "/api/status");
      expect(res.status).toBe(200);
      expect(body.status).toBe("partial_outage");
      expect(body.services.storage).toBe("down");
      expect(body.services.payment_checker.status).toBe("unavailable");
      expect(body.issues[0]).toMatch(/Storage unreachable/);
      // A cron that needs the database answers 503 STORAGE_ERROR rather than a stack trace.
      const cron = await call(checkPayments, "/api/cron/check-payments");
      expect(cron.res.status).toBe(503);
      expect(cron.body.error.code).toBe("STORAGE_ERROR");
    } finally {
      await dead.close();
      setDatabase(test.handle());
    }
  });
});

describe("GET /api/status at scale (issue 32 item 2)", () => {
  /** Every index the plan of `query` reads (EXPLAIN, FORMAT JSON). */
  async function indexesRead(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string[]> {
    const db = await getDb();
    const { sql: text, params } = query.toSQL();
    const explained = (await db.execute(
      sql.join([sql.raw("explain (format json) "), sql.raw(inlineParams(text, params))]),
    )) as unknown as { rows: Record<string, unknown>[] };
    const out: string[] = [];
    const walk = (node: unknown) => {
      if (!node || typeof node !== "object") return;
      const n = node as Record<string, unknown>;
      if (typeof n["Index Name"] === "string") out.push(n["Index Name"]);
      for (const v of Object.values(n)) if (typeof v === "object") walk(v);
    };
    const first = Object.values(explained.rows[0]!)[0];
    walk(typeof first === "string" ? JSON.parse(first) : first);
    return out;
  }

  /** `text` with its `$n` placeholders replaced by the quoted `params` (test-only: EXPLAIN takes no bind). */
  function inlineParams(text: string, params: unknown[]): string {
    return text.replace(/\$(\d+)/g, (_, i) => `'${String(params[Number(i) - 1]).replace(/'/g, "''")}'`);
  }

  it("counts the queue through the partial index of active tasks, whatever the history's size", async () => {
    const db = await getDb();
    // A history of 20,000 finished tasks and 2,000 active sandbox tasks, none of them in the queue.
    await db.execute(sql`
      insert into tasks (id, sandbox, service_type, status, location_address, task_description,
                         requester_contact, review_deadline, execution_deadline)
      select 'TASK-HIST-' || g, g <= 2000, 'SVC-01',
             case when g <= 2000 then 'received' else 'completed' end,
             '1 rue Principale, Laval', 'Photograph the storefront', 'agent@example.com', now(), now()
      from generate_series(1, 22000) as g`);
    await db.execute(sql`analyze tasks`);
    const { query } = await queueCountsQuery(new Date());
    expect(await indexesRead(query)).toContain("tasks_active_status_created_at_idx");
    const { body } = await call(GET, "/api/status");
    // The queue of the first suite, unchanged by the history and the sandbox tasks.
    expect(body.queue).toMatchObject({
      pending_review: 2,
      pending_payment: 2,
      in_progress: 2,
      total_active: 6,
    });
  });
});

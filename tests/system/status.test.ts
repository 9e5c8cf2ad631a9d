import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as checkPayments } from "../../api/cron/check-payments.js";
import { GET } from "../../api/status.js";
import { resetConfig } from "../../lib/config.js";
import { getDb, openPg, setDatabase } from "../../lib/db/client.js";
import { jobRuns, tasks } from "../../lib/db/schema/index.js";
import { getPlatformStatus } from "../../lib/system/status.js";
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
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    await db
      .insert(tasks)
      .values([
        task("TASK-Q-1", "received", false, hourAgo),
        task("TASK-Q-2", "received", false, new Date(Date.now() - 30 * 60_000)),
        task("TASK-Q-3", "accepted_pending_payment"),
        task("TASK-Q-4", "counter_offered"),
        task("TASK-Q-5", "paid"),
        task("TASK-Q-6", "dispatched"),
        task("TASK-Q-7", "completed"),
        task("SANDBOX-Q-8", "received", true),
      ]);
    const { body } = await call(GET, "/api/status");
    expect(body.queue).toEqual({
      pending_review: 2,
      pending_payment: 2,
      in_progress: 2,
      total_active: 6,
      avg_wait_minutes: 45,
    });
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
    await db
      .update(jobRuns)
      .set({ lastRunAt: new Date(Date.now() - 30 * 60_000) })
      .where(eq(jobRuns.job, "check-payments"));
    let status = await getPlatformStatus();
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

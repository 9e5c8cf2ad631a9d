import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as services } from "../../api/services.js";
import { GET as status } from "../../api/status.js";
import { parseAgentIdentity } from "../../lib/activity/agent-identity.js";
import { flushActivity } from "../../lib/activity/record-activity.js";
import { checkSubject, checkVolumeAlerts, resetVolumeThrottle } from "../../lib/activity/volume-alert.js";
import { getDb } from "../../lib/db/client.js";
import { activityLog, alerts, emails } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { call } from "../helpers/request.js";

useTestDatabase();

describe("X-Agent-Identity", () => {
  it.each([
    [
      "claude-sonnet-4/inspector/org_42",
      { model: "claude-sonnet-4", agent_name: "inspector", org_id: "org_42" },
    ],
    ["gpt-4.1/agent@home/acme-co", { model: "gpt-4.1", agent_name: "agent@home", org_id: "acme-co" }],
  ])("parses %s", (value, identity) => {
    expect(parseAgentIdentity(value)).toEqual({ kind: "valid", identity });
  });

  it.each(["", "a/b", "a/b/c/d", "a//c", "a b/c/d", `${"m".repeat(101)}/a/o`, "modèle/a/o", "\u0000/a/b"])(
    "ignores %j",
    (value) => {
      expect(parseAgentIdentity(value).kind).toBe("invalid");
    },
  );

  it("logs every request with the identity parts, and never fails on a garbage identity", async () => {
    const ok = await call(services, "/api/services?contract=false", {
      headers: { "x-agent-identity": "claude/scout/org_a" },
    });
    expect(ok.res.status).toBe(200);
    expect(ok.res.headers.get("warning")).toBeNull();
    const garbage = await call(services, "/api/services?contract=false", {
      headers: { "x-agent-identity": "this is / not valid" },
    });
    expect(garbage.res.status).toBe(200);
    expect(garbage.res.headers.get("warning")).toMatch(/^199 - "X-Agent-Identity ignored: /);
    await flushActivity();
    const db = await getDb();
    const rows = await db.select().from(activityLog).orderBy(desc(activityLog.id)).limit(2);
    expect(rows[1]).toMatchObject({
      endpoint: "/api/services",
      method: "GET",
      status: 200,
      agentModel: "claude",
      agentName: "scout",
      orgId: "org_a",
      identityValid: true,
      requestId: ok.res.headers.get("x-request-id"),
    });
    expect(rows[0]).toMatchObject({ identityValid: false, agentModel: null, orgId: null });
    expect(rows[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });
});

describe("volume alert", () => {
  async function seed(org: string, baselinePerHour: number, lastHour: number, now: Date) {
    const db = await getDb();
    const rows: (typeof activityLog.$inferInsert)[] = [];
    for (let h = 2; h <= 24; h++) {
      for (let i = 0; i < baselinePerHour; i++) {
        rows.push({
          at: new Date(now.getTime() - h * 3600_000 + i * 1000),
          method: "GET",
          endpoint: "/api/x",
          status: 200,
          latencyMs: 1,
          orgId: org,
        });
      }
    }
    for (let i = 0; i < lastHour; i++) {
      rows.push({
        at: new Date(now.getTime() - i * 10_000),
        method: "GET",
        endpoint: "/api/x",
        status: 200,
        latencyMs: 1,
        orgId: org,
      });
    }
    await db.insert(activityLog).values(rows);
  }

  it("stays quiet at normal volume and below the floor", async () => {
    const now = new Date();
    await seed("org_calm", 20, 35, now); // 35 < 2 × ~19
    expect(await checkSubject({ kind: "org", id: "org_calm" }, now)).toBeUndefined();
    await seed("org_tiny", 0, 10, now); // above 2× average but under the 30-request floor
    expect(await checkSubject({ kind: "org", id: "org_tiny" }, now)).toBeUndefined();
  });

  it("alerts once per hour above 2× the trailing hourly average, e-mails the operator and shows in /api/status", async () => {
    const now = new Date();
    await seed("org_spike", 10, 60, now);
    const id = await checkSubject({ kind: "org", id: "org_spike" }, now);
    expect(id).toMatch(/^alert_/);
    expect(await checkSubject({ kind: "org", id: "org_spike" }, now)).toBeUndefined(); // deduplicated
    const db = await getDb();
    const [alert] = await db.select().from(alerts).where(eq(alerts.id, id!));
    expect(alert).toMatchObject({ kind: "volume_spike", subject: "organization org_spike" });
    expect(alert!.details).toMatchObject({ last_hour: 60 });
    const [mail] = await db
      .select()
      .from(emails)
      .where(eq(emails.dedupeKey, `alert:${id}`));
    expect(mail).toMatchObject({
      toAddress: "operator@example.com",
      status: "queued",
      template: "volume_alert",
    });
    const { body } = await call(status, "/api/status");
    expect(body.issues.some((i: string) => i.includes("org_spike"))).toBe(true);
  });

  it("is checked after activity is flushed, at most once a minute per subject", async () => {
    resetVolumeThrottle();
    const now = new Date();
    await seed("org_flush", 0, 40, now);
    const entry = { method: "GET", endpoint: "/api/x", status: 200, latencyMs: 1, orgId: "org_flush" };
    expect(await checkVolumeAlerts([entry], now)).toHaveLength(1);
    resetVolumeThrottle();
    await seed("org_flush2", 0, 40, now);
    await checkVolumeAlerts([{ ...entry, orgId: "org_flush2" }], now); // alerts
    await seed("org_flush3", 0, 40, now);
    const throttled = await checkVolumeAlerts(
      [
        { ...entry, orgId: "org_flush2" },
        { ...entry, orgId: "org_flush3" },
      ],
      now,
    );
    expect(throttled).toHaveLength(1); // org_flush2 skipped by the throttle, org_flush3 checked
  });
});

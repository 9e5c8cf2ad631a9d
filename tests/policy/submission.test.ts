/**
 * The policy screen in the submission path: the 422 POLICY_VIOLATION envelope over HTTP and MCP
 * (real MCP SDK client over real HTTP), nothing stored but the counter, the `review` outcome in
 * the status and the task list, and the operator's override at approval.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { policyCounters, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { POLICY_VERSION } from "../../lib/policy/screen.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import { getStatus, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let admin: string;
let agent: string;
beforeAll(async () => {
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create"]);
});
afterAll(() => host.close());

async function counts() {
  const db = await getDb();
  const taskCount = (await db.select({ id: tasks.id }).from(tasks)).length;
  const counters = await db.select().from(policyCounters);
  return { taskCount, counters };
}

const abusive = {
  ...validTask,
  task_description: "Follow my ex-girlfriend after work and tell me where she goes.",
};

describe("refusal", () => {
  it("answers 422 POLICY_VIOLATION with the reason codes over HTTP, stores no task and counts it", async () => {
    const before = await counts();
    const { res, body } = await submitTask(abusive, keyHeaders(agent));
    const error = expectEnvelope(body, res, 422, "POLICY_VIOLATION");
    expect(error.reason_codes).toEqual(["PERSON_SURVEILLANCE"]);
    expect(error.policy_version).toBe(POLICY_VERSION);
    expect(error.field).toBe("task_description");
    expect(error.message).toMatch(/PERSON_SURVEILLANCE/);
    const after = await counts();
    expect(after.taskCount).toBe(before.taskCount);
    const row = after.counters.find((c) => c.reasonCode === "PERSON_SURVEILLANCE");
    expect(row).toMatchObject({ version: POLICY_VERSION, count: 1 });
  });

  it("refuses sandbox submissions too, and special_instructions are screened", async () => {
    const { res, body } = await submitTask(
      { ...validTask, special_instructions: "Pick the lock of the back door if nobody answers." },
      { "x-service-mode": "sandbox" },
    );
    expectEnvelope(body, res, 422, "POLICY_VIOLATION");
    expect(body.error.reason_codes).toEqual(["TRESPASS"]);
  });

  it("returns the same error from the MCP submit_task tool", async () => {
    const client = new Client({ name: "policy-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), {
        requestInit: { headers: { "x-api-key": agent } },
      }),
    );
    const result: any = await client.callTool({ name: "submit_task", arguments: abusive });
    await client.close();
    expect(result.isError).toBe(true);
    expect(result._meta.error).toMatchObject({
      code: "POLICY_VIOLATION",
      reason_codes: ["PERSON_SURVEILLANCE"],
      policy_version: POLICY_VERSION,
    });
    expect(result.content[0].text).toMatch(/^POLICY_VIOLATION: /);
    const row = (await counts()).counters.find((c) => c.reasonCode === "PERSON_SURVEILLANCE");
    expect(row?.count).toBe(2);
  });
});

describe("review outcome and override", () => {
  it("stores a review task with its reasons, shows them in the status, and records the operator's override", async () => {
    const { res, body } = await submitTask(
      {
        ...validTask,
        task_description: "Climb onto the roof of the barn and photograph the damaged sheet metal.",
      },
      keyHeaders(agent),
    );
    expect(res.status).toBe(201);
    expect(body.policy).toEqual({
      version: POLICY_VERSION,
      outcome: "review",
      reason_codes: ["DANGEROUS_ACT"],
    });
    const status = await getStatus(body.task_id, keyHeaders(agent));
    expect(status.body.policy).toEqual({
      version: POLICY_VERSION,
      outcome: "review",
      reason_codes: ["DANGEROUS_ACT"],
      overridden: false,
      // the owner (or an admin) also sees what matched
      matches: [
        {
          rule_id: "danger-review",
          reason_code: "DANGEROUS_ACT",
          outcome: "review",
          matched_text: "climb onto the roof",
        },
      ],
      override: null,
    });
    expect((await getStatus(body.task_id)).body.policy).toBeUndefined(); // not to others (the public status)
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, body.task_id));
    expect(row!.policy!.matches).toEqual([
      {
        rule_id: "danger-review",
        reason_code: "DANGEROUS_ACT",
        outcome: "review",
        matched_text: "climb onto the roof",
      },
    ]);
    const [created] = await db.select().from(taskEvents).where(eq(taskEvents.taskId, body.task_id));
    expect(created!.payload.policy).toMatchObject({ outcome: "review", reason_codes: ["DANGEROUS_ACT"] });

    const approved = await reviewTask(admin, {
      task_id: body.task_id,
      action: "approve",
      operator_notes: "Ladder and harness available on site; safe.",
    });
    expect(approved.res.status).toBe(200);
    const [after] = await db.select().from(tasks).where(eq(tasks.id, body.task_id));
    expect(after!.policy!.override).toEqual({
      at: expect.any(String),
      action: "approve",
      operator_notes: "Ladder and harness available on site; safe.",
    });
    const events = await db.select().from(taskEvents).where(eq(taskEvents.taskId, body.task_id));
    expect(events.find((e) => e.type === "task.accepted")?.payload.policy_override).toBe(true);
    expect((await getStatus(body.task_id, keyHeaders(agent))).body.policy.overridden).toBe(true);
  });

  it("records no override for an allowed task", async () => {
    const { body } = await submitTask(validTask, keyHeaders(agent));
    expect((await getStatus(body.task_id, keyHeaders(agent))).body.policy).toMatchObject({
      outcome: "allow",
      reason_codes: [],
    });
    await reviewTask(admin, { task_id: body.task_id, action: "approve" });
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, body.task_id));
    expect(row!.policy!.override).toBeUndefined();
  });
});

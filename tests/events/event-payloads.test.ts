/**
 * Every emitted event payload matches the event registry (issue 46 item 2): a representative set
 * of flows through the real handlers, then every row of the `task_events` outbox (as stored, after
 * the jsonb round trip) parsed by its type's schema (lib/db/schema/event-registry.ts). The unit
 * cases prove the check can fail: a wrong payload is reported, and refused at emission outside the
 * production profile.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { WebhookPayload } from "../../clients/typescript/index.js";
import { getDb } from "../../lib/db/client.js";
import {
  BILLING_EVENT_TYPES,
  EVENT_TYPES,
  EVENTS,
  eventPayloadProblems,
  TASK_EVENT_TYPES,
} from "../../lib/db/schema/event-registry.js";
import { taskEvents } from "../../lib/db/schema/index.js";
import { taskEventRow } from "../../lib/tasks/state/task-events.js";
import { completedTask, openDispute, resolve } from "../disputes/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import {
  cancelTask,
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

useTestDatabase();

describe("the event registry", () => {
  it("derives the type lists and has a valid example for every type", () => {
    expect(EVENT_TYPES).toEqual([...TASK_EVENT_TYPES, ...BILLING_EVENT_TYPES]);
    expect(Object.keys(EVENTS).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      expect(EVENTS[type].description.length, type).toBeGreaterThan(10);
      expect(eventPayloadProblems(type, EVENTS[type].example), type).toEqual([]);
    }
  });

  it("reports a wrong payload: a missing member, a wrong type, an unknown event", () => {
    const { sandbox: _gone, ...noSandbox } = EVENTS["task.created"].example;
    expect(eventPayloadProblems("task.created", noSandbox)).toEqual([expect.stringMatching(/^sandbox: /)]);
    const wrongType = { ...EVENTS["task.cancelled"].example, refund_amount_cad: "329.67" };
    expect(eventPayloadProblems("task.cancelled", wrongType)).toEqual([
      expect.stringMatching(/^refund_amount_cad: /),
    ]);
    expect(eventPayloadProblems("task.teleported", {})).toEqual(['unknown event type "task.teleported"']);
  });

  it("refuses to build a row whose payload breaks its schema (tests and development)", () => {
    const task = {
      id: "TASK-X",
      status: "received" as const,
      apiKeyId: null,
      serviceType: "SVC-01" as const,
      sandbox: false,
    };
    expect(() =>
      taskEventRow(
        task,
        "task.created",
        { estimate_cad: "a lot" },
        { taskStatus: "received", now: new Date() },
      ),
    ).toThrow(/task\.created breaks its schema .*estimate_cad/);
    const row = taskEventRow(
      task,
      "task.created",
      { estimate_cad: 75 },
      { taskStatus: "received", now: new Date() },
    );
    expect(row.payload).toMatchObject({ task_id: "TASK-X", status: "received", estimate_cad: 75 });
  });
});

describe("every event a representative run emits", () => {
  let admin: string;
  let owner: string;
  beforeAll(async () => {
    admin = await makeKey(["admin"]);
    owner = await makeKey(["audit_only", "task_create", "task_cancel"], "owner@example.com");
  });

  it("parses with its registry schema, as stored in the outbox", async () => {
    const headers = keyHeaders(owner);
    // Rejected at once (max_cost_cad), rejected at review, counter-offered, expired-free cancel.
    expect((await submitTask({ ...validTask, max_cost_cad: 100 }, headers)).body.status).toBe("rejected");
    const rejected = (await submitTask(validTask, headers)).body.task_id;
    await reviewTask(admin, { task_id: rejected, action: "reject", reason: "Outside our scope" });
    const countered = (await submitTask(validTask, headers)).body.task_id;
    expect(
      (await reviewTask(admin, { task_id: countered, action: "counter_offer", counter_offer_amount: 400 }))
        .res.status,
    ).toBe(200);
    expect((await cancelTask(countered, headers)).res.status).toBe(200);
    // Approved, paid, dispatched, on site, failed.
    const failed = (await submitTask(validTask, headers)).body.task_id;
    await reviewTask(admin, { task_id: failed, action: "approve", price_cad: 150 });
    expect((await recordPayment(admin, { task_id: failed, note: "e-transfer" })).res.status).toBe(200);
    await completeTask(admin, { task_id: failed, action: "dispatch" });
    await completeTask(admin, { task_id: failed, action: "on_site" });
    expect(
      (await completeTask(admin, { task_id: failed, action: "fail", reason: "Closed" })).res.status,
    ).toBe(200);
    // Paid then cancelled (a refund owed).
    const refunded = (await submitTask(validTask, headers)).body.task_id;
    await reviewTask(admin, { task_id: refunded, action: "approve", price_cad: 150 });
    await recordPayment(admin, { task_id: refunded, note: "e-transfer" });
    expect((await cancelTask(refunded, headers)).res.status).toBe(200);
    // Completed with a proof, disputed, resolved with a redo (a new task's created and paid events).
    const done = await completedTask(admin, owner);
    const opened = await openDispute(
      {
        task_id: done,
        reason: "incomplete",
        details: "Only half of it.",
        evidence_files: [pngProof("half.png")],
      },
      headers,
    );
    expect(opened.res.status).toBe(201);
    const resolved = await resolve(admin, { dispute_id: opened.body.dispute.dispute_id, resolution: "redo" });
    expect(resolved.res.status).toBe(200);

    const rows = await (await getDb()).select().from(taskEvents);
    const seen = new Set(rows.map((r) => r.type));
    for (const type of [
      "task.created",
      "task.rejected",
      "task.counter_offered",
      "task.accepted",
      "task.paid",
      "task.dispatched",
      "task.on_site",
      "task.failed",
      "task.cancelled",
      "task.completed",
      "task.disputed",
      "task.dispute_resolved",
    ]) {
      expect(seen.has(type as never), type).toBe(true);
    }
    const broken = rows
      .map((r) => ({ id: r.id, type: r.type, problems: eventPayloadProblems(r.type, r.payload) }))
      .filter((r) => r.problems.length > 0);
    expect(broken).toEqual([]);
  });
});

describe("the typed client", () => {
  it("exports each event's payload type (a type-level check, compiled by npm run typecheck)", () => {
    const created: WebhookPayload<"task.created"> = {
      task_id: "TASK-X",
      status: "received",
      service_type: "SVC-01",
      sandbox: false,
      estimate_cad: 75,
    };
    // @ts-expect-error estimate_cad is a number in the published schema
    const wrong: WebhookPayload<"task.created"> = { ...created, estimate_cad: "75" };
    expect(eventPayloadProblems("task.created", created)).toEqual([]);
    expect(eventPayloadProblems("task.created", wrong)).not.toEqual([]);
  });
});

import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { type NewTask, type NewTaskEvent, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { insertTaskWithEvents } from "../../lib/tasks/state/insert-task.js";
import { useTestDatabase } from "../helpers/db.js";

useTestDatabase();

const at = new Date("2026-03-09T14:15:16.789Z");

function task(id: string, overrides: Partial<NewTask> = {}): NewTask {
  return {
    id,
    sandbox: false,
    serviceType: "SVC-01",
    status: "received",
    locationAddress: "1000 Rue Sherbrooke O, Montréal",
    taskDescription: "Photograph the storefront — «heures d'ouverture».",
    requesterContact: "agent@example.com",
    urgency: "standard",
    budgetLimit: 123.45,
    maxCostCad: null,
    specialInstructions: null,
    preferredOutput: "photos",
    callbackUrl: null,
    lang: "fr",
    apiKeyId: null,
    accessTokenHash: "ab".repeat(32),
    agentIdentity: null,
    orgId: null,
    estimateCad: 379.67,
    estimate: { hours: 2.5, transport_cad: 12.3 },
    location: { matched: "Montréal", lat: 45.5, lng: -73.57, nested: { ok: true, none: null } },
    needsCounterOffer: true,
    reviewReason: null,
    reviewedAt: null,
    reviewDeadline: new Date(at.getTime() + 86_400_000),
    executionDeadline: new Date(at.getTime() + 4 * 86_400_000),
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

function event(taskId: string, n: number, overrides: Partial<NewTaskEvent> = {}): NewTaskEvent {
  return {
    id: `evt_insert_test_${taskId}_${n}`,
    taskId,
    type: "task.created",
    taskStatus: "received",
    apiKeyId: null,
    payload: { task_id: taskId, n, note: null, list: [1, "two"] },
    createdAt: at,
    ...overrides,
  };
}

async function read(taskId: string) {
  const db = await getDb();
  const [row] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  const events = await db
    .select()
    .from(taskEvents)
    .where(eq(taskEvents.taskId, taskId))
    .orderBy(asc(taskEvents.seq));
  return {
    row: { ...row!, id: "X" },
    events: events.map((e) => ({
      ...e,
      id: e.id.replace(taskId, "X"),
      taskId: "X",
      seq: 0,
      payload: { ...e.payload, task_id: "X" },
    })),
  };
}

describe("insertTaskWithEvents", () => {
  it.each([
    ["one event, nulls and JSON", {}, 1],
    [
      "two events, every nullable column set",
      { maxCostCad: 10, reviewReason: "too dear", reviewedAt: at, status: "rejected" as const },
      2,
    ],
  ])("writes what drizzle's own insert writes: %s", async (_, overrides, eventCount) => {
    const db = await getDb();
    const plainId = `TASK-PLAIN-${eventCount}`;
    const preparedId = `TASK-PREP-${eventCount}`;
    const plainEvents = Array.from({ length: eventCount }, (_, i) => event(plainId, i));
    await db.transaction(async (tx) => {
      await tx.insert(tasks).values(task(plainId, overrides));
      await tx.insert(taskEvents).values(plainEvents);
    });
    // Twice with the same shape: the second run reuses the prepared statement.
    for (const suffix of ["", "-AGAIN"]) {
      const id = `${preparedId}${suffix}`;
      await insertTaskWithEvents(
        task(id, overrides),
        Array.from({ length: eventCount }, (_, i) => event(id, i)),
      );
      expect(await read(id)).toEqual(await read(plainId));
    }
  });

  it("writes nothing when one of the rows cannot be written", async () => {
    const id = "TASK-ATOMIC";
    await expect(
      insertTaskWithEvents(task(id), [event(id, 0), event(id, 0)]), // same event id twice
    ).rejects.toThrow();
    const db = await getDb();
    expect(await db.select().from(tasks).where(eq(tasks.id, id))).toEqual([]);
  });

  it("refuses events of different columns and an empty event list", async () => {
    await expect(insertTaskWithEvents(task("TASK-NONE"), [])).rejects.toThrow(/at least one event/);
    const { apiKeyId: _, ...withoutKey } = event("TASK-MIXED", 1);
    await expect(
      insertTaskWithEvents(task("TASK-MIXED"), [event("TASK-MIXED", 0), withoutKey]),
    ).rejects.toThrow(/same columns/);
  });
});

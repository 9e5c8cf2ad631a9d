/**
 * The base layer's "events committed" hook (lib/db/after-events.ts): the task state layer calls
 * it once a transition's transaction has committed (never on a refusal, never inside a caller's
 * transaction), and every process entry that commits events (the HTTP wrapper, MCP, the job
 * runner, the workflows) registers the outbox kick with it.
 */
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { eventsCommitted, onEventsCommitted } from "../../lib/db/after-events.js";
import { type DatabaseHandle, setDatabase } from "../../lib/db/client.js";
import { taskEvents, tasks } from "../../lib/db/schema/index.js";
import { applyTransition, applyTransitionBatch } from "../../lib/tasks/state/apply-transition.js";
import { createTestDatabase } from "../helpers/db.js";

/** What a task.accepted event must carry (lib/db/schema/event-registry.ts). */
const approvePayload = { payload: () => ({ amount_cad: 200 }) };

const HOUR = 3_600_000;
let serial = 0;

function receivedTask() {
  serial++;
  return {
    id: `TASK-HOOK-${serial}-${Math.random().toString(36).slice(2, 8)}`,
    serviceType: "SVC-01" as const,
    status: "received" as const,
    locationAddress: "Laval",
    taskDescription: "Hook test task",
    requesterContact: "agent@example.com",
    urgency: "standard" as const,
    reviewDeadline: new Date(Date.now() + 24 * HOUR),
    executionDeadline: new Date(Date.now() + 72 * HOUR),
    priceCad: 100,
  };
}

describe("events committed hook", () => {
  let handle: DatabaseHandle;
  /** What the listener saw: for each call, the committed events of the task, read from the pool. */
  const seen: Promise<number>[] = [];
  let watched = "";
  const listener = () => {
    seen.push(
      handle.db
        .select()
        .from(taskEvents)
        .where(eq(taskEvents.taskId, watched))
        .then((rows) => rows.length),
    );
  };

  beforeAll(async () => {
    handle = await createTestDatabase();
    setDatabase(handle);
    onEventsCommitted(listener);
  });
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await handle.close();
  });

  it("runs once after a transition commits, and its event is visible then", async () => {
    const task = receivedTask();
    await handle.db.insert(tasks).values(task);
    watched = task.id;
    await applyTransition(task.id, "approve", approvePayload);
    expect(seen).toHaveLength(1);
    expect(await seen[0]).toBe(1);
  });

  it("does not run when the transition is refused", async () => {
    const task = receivedTask();
    await handle.db.insert(tasks).values(task);
    watched = task.id;
    await expect(applyTransition(task.id, "pay")).rejects.toMatchObject({ code: "CONFLICT" });
    expect(seen).toHaveLength(0);
  });

  it("leaves the call to the caller whose transaction holds the transition", async () => {
    const task = receivedTask();
    await handle.db.insert(tasks).values(task);
    watched = task.id;
    await handle.db.transaction((tx) => applyTransition(task.id, "approve", approvePayload, tx));
    expect(seen).toHaveLength(0);
  });

  it("runs once per batch that applied something, not for a batch that applied nothing", async () => {
    const [a, b] = [receivedTask(), receivedTask()];
    await handle.db.insert(tasks).values([a, b]);
    watched = a.id;
    const result = await applyTransitionBatch(
      [{ taskId: a.id }, { taskId: b.id }],
      "approve",
      approvePayload,
    );
    expect(result.applied).toHaveLength(2);
    expect(seen).toHaveLength(1);
    expect(await seen[0]).toBe(1);
    await applyTransitionBatch([{ taskId: a.id }], "approve", approvePayload);
    expect(seen).toHaveLength(1);
  });

  it("keeps one entry per function and survives a failing listener", () => {
    const calls: string[] = [];
    const failing = () => {
      throw new Error("listener down");
    };
    const counting = () => calls.push("ran");
    onEventsCommitted(failing);
    onEventsCommitted(counting);
    onEventsCommitted(counting);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    eventsCommitted();
    expect(calls).toEqual(["ran"]);
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
  });
});

describe.each([
  ["the HTTP wrapper", "../../lib/http/handler.js"],
  ["the MCP server", "../../lib/mcp/server.js"],
  ["the job runner", "../../lib/jobs/run-job.js"],
  ["the submit workflow", "../../lib/tasks/submit-task.js"],
])("%s", (_name, entry) => {
  it("registers the outbox kick when loaded", async () => {
    vi.resetModules();
    const fresh = await import("../../lib/db/after-events.js");
    expect(fresh.eventsCommittedListeners()).toHaveLength(0);
    await import(entry);
    // Read before importing the outbox here, which would register it by itself.
    const registered = fresh.eventsCommittedListeners();
    const { kickOutbox } = await import("../../lib/events/kick-outbox.js");
    expect(registered).toEqual([kickOutbox]);
  });
});

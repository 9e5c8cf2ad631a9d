import { count } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { taskEvents, tasks } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { submitTask } from "../helpers/tasks.js";

// Every event gets the same id, so a second submission's event collides with the first's.
vi.mock("../../lib/ids.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../lib/ids.js")>();
  return {
    ...original,
    prefixedId: (prefix: string, length?: number) =>
      prefix === "evt" ? "evt_always_the_same" : original.prefixedId(prefix, length),
  };
});

useTestDatabase();

describe("submission is one statement", () => {
  it("records neither the task nor its event when the event cannot be written", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const first = await submitTask();
    expect(first.res.status).toBe(201);
    const second = await submitTask();
    expect(second.res.status).toBe(500);
    const db = await getDb();
    const [taskCount] = await db.select({ n: count() }).from(tasks);
    const [eventCount] = await db.select({ n: count() }).from(taskEvents);
    expect(taskCount!.n).toBe(1);
    expect(eventCount!.n).toBe(1);
  });
});

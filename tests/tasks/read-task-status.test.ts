import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { taskEvents, tasks } from "../../lib/db/schema/index.js";
import { readTaskWithHistory } from "../../lib/tasks/read-task-status.js";
import { taskHistory, taskStatusView } from "../../lib/tasks/task-view.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import { getStatus, reviewTask, submitTask } from "../helpers/tasks.js";

useTestDatabase();

describe("status read in one query", () => {
  it("returns the task row and the same history as reading the events separately", async () => {
    const key = await makeKey();
    const admin = await makeKey(["admin"]);
    const created = await submitTask(undefined, keyHeaders(key));
    const taskId = created.body.task_id as string;
    expect((await reviewTask(admin, { task_id: taskId, action: "approve" })).res.status).toBe(200);
    const db = await getDb();
    // An event stamped by the database (microseconds), as SQL-side writers would.
    await db.execute(
      sql`insert into task_events (id, task_id, type, task_status, payload, created_at)
          values ('evt_micro_test', ${taskId}, 'task.accepted', null, '{}'::jsonb, now() - interval '1.234567 second')`,
    );
    const [row] = await db.select().from(tasks).where(eq(tasks.id, taskId));
    const read = await readTaskWithHistory(taskId);
    expect(read.task).toEqual(row);
    const separate = await taskHistory(taskId);
    expect(separate).toHaveLength(3);
    expect(read.history).toEqual(separate);
    expect(await taskStatusView(read.task, "owner", read.history)).toEqual(
      await taskStatusView(row!, "owner"),
    );
  });

  it("gives an empty history for a task without events", async () => {
    const created = await submitTask();
    const taskId = created.body.task_id as string;
    const db = await getDb();
    await db.delete(taskEvents).where(eq(taskEvents.taskId, taskId));
    const read = await readTaskWithHistory(taskId);
    expect(read.task.id).toBe(taskId);
    expect(read.history).toEqual([]);
  });

  it("answers 404 NOT_FOUND on task_id for an unknown task, as before", async () => {
    const { res, body } = await getStatus("TASK-NOPE-NOPE");
    expect(expectEnvelope(body, res, 404, "NOT_FOUND")).toMatchObject({ field: "task_id" });
    expect(body.error.message).toBe("No task TASK-NOPE-NOPE");
  });

  it("shows a sandbox task's history including the step the poll just made", async () => {
    const created = await submitTask(undefined, { "x-service-mode": "sandbox" });
    const taskId = created.body.task_id as string;
    const polled = await getStatus(taskId);
    expect(polled.body.status).toBe("accepted_pending_payment");
    expect(polled.body.history.map((h: { status: string }) => h.status)).toEqual([
      "received",
      "accepted_pending_payment",
    ]);
  });
});

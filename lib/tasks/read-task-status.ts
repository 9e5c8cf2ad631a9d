/**
 * The status read (GET /api/submit-task, MCP `check_task_status`): the task row and its
 * history in one prepared query (one database round trip; the SQL is built once per
 * database handle), then the sandbox auto-advance and the view of lib/tasks/task-view.ts.
 */
import { eq, sql } from "drizzle-orm";
import { type Db, getDb } from "../db/client.js";
import type { TaskStatus } from "../db/schema/enums.js";
import type { EventType } from "../db/schema/event-registry.js";
import { type Task, tasks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { advanceSandboxTask } from "./sandbox.js";
import { type TaskAccess, type TaskCredential, taskAccess } from "./state/task-access.js";
import { type TaskHistoryEntry, type TaskViewOptions, taskStatusView } from "./task-view.js";

/** A history entry as the query's json aggregate carries it: [task_status, type, created_at]. */
type HistoryTuple = [TaskStatus | null, EventType, string];

/** Drizzle writes the outer columns unqualified (`"id"`), which inside the subquery would name `e.id`. */
function buildQuery(db: Db) {
  return db
    .select({
      task: tasks,
      history: sql<HistoryTuple[] | string>`coalesce((
        select json_agg(json_build_array(e.task_status, e.type, e.created_at) order by e.seq)
        from task_events e where e.task_id = "tasks"."id"), '[]'::json)`,
    })
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder("id")))
    .prepare("task_status_read");
}

const queries = new WeakMap<Db, ReturnType<typeof buildQuery>>();

/**
 * Task `taskId` and its history (events in `seq` order), in one query.
 * @throws DomainError NOT_FOUND (field `task_id`) for an unknown task
 */
export async function readTaskWithHistory(
  taskId: string,
): Promise<{ task: Task; history: TaskHistoryEntry[] }> {
  const db = await getDb();
  let query = queries.get(db);
  if (!query) {
    query = buildQuery(db);
    queries.set(db, query);
  }
  const [row] = await query.execute({ id: taskId });
  if (!row) throw new DomainError("NOT_FOUND", `No task ${taskId}`, { field: "task_id" });
  // node-postgres and PGlite parse json; a driver that does not hands over the text.
  const tuples = typeof row.history === "string" ? (JSON.parse(row.history) as HistoryTuple[]) : row.history;
  // created_at arrives in JSON's ISO 8601 form with the session's offset; Date keeps its millisecond,
  // as for the column read directly.
  const history = tuples.map(([status, event, at]) => ({ status, event, at: new Date(at) }));
  return { task: row.task, history };
}

/** Options of {@link readTaskStatus}: the view's, and a check of the reader. */
export interface ReadTaskStatusOptions extends TaskViewOptions {
  /**
   * Called with the task as read and the credential's access, before a sandbox task advances;
   * throws to refuse the read (e.g. paths that show nothing to the public).
   */
  authorize?: (task: Task, access: TaskAccess) => void;
}

/**
 * Reads task `taskId`, decides what `credential` may see of it (lib/tasks/state/task-access.ts),
 * advances it one step when it is a sandbox task (its history is then read again), and builds its
 * status view for that access (`options` as for taskStatusView). A sandbox task advances on a
 * public read too: its steps are simulated and the same for every reader.
 * @throws DomainError NOT_FOUND for an unknown task; whatever `options.authorize` throws
 */
export async function readTaskStatus(
  taskId: string,
  credential: TaskCredential,
  options: ReadTaskStatusOptions = {},
): Promise<{ task: Task; view: Record<string, unknown>; access: TaskAccess }> {
  const read = await readTaskWithHistory(taskId);
  const access = await taskAccess(read.task, credential);
  options.authorize?.(read.task, access);
  const task = await advanceSandboxTask(read.task);
  const view = await taskStatusView(task, access, task === read.task ? read.history : undefined, options);
  return { task, view, access };
}

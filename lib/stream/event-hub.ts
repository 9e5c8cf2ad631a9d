/**
 * One database poller per process for every open event stream: each tick (STREAM_POLL_MS,
 * default 500 ms) reads the new events of all watched tasks in one query and hands each
 * stream the rows past its own cursor. Events come from the database, never from memory,
 * so any instance serves any stream.
 *
 * Per-task `seq` order is commit order (a task's events are written under its row lock,
 * or in one transaction at submission), so a per-task cursor `seq > last` never skips an
 * event that commits late.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { jsonList } from "../db/bulk.js";
import { getDb } from "../db/client.js";
import { type TaskEvent, taskEvents } from "../db/schema/index.js";
import { describeError } from "../log-error.js";

/** An event row as streams need it. */
export type StreamEventRow = Pick<
  TaskEvent,
  "id" | "seq" | "taskId" | "type" | "taskStatus" | "payload" | "createdAt"
>;

/** One open stream. */
export interface Subscriber {
  taskId: string;
  /** Highest seq already sent. */
  cursor: number;
  /** Receives new rows (seq > cursor) in order; the hub advances `cursor`. */
  onEvents(rows: StreamEventRow[]): void;
}

const columns = {
  id: taskEvents.id,
  seq: taskEvents.seq,
  taskId: taskEvents.taskId,
  type: taskEvents.type,
  taskStatus: taskEvents.taskStatus,
  payload: taskEvents.payload,
  createdAt: taskEvents.createdAt,
};

/** Events of `taskId` after `afterSeq`, in order. */
export async function readTaskEvents(taskId: string, afterSeq: number): Promise<StreamEventRow[]> {
  const db = await getDb();
  return db
    .select(columns)
    .from(taskEvents)
    .where(and(eq(taskEvents.taskId, taskId), gt(taskEvents.seq, afterSeq)))
    .orderBy(asc(taskEvents.seq));
}

class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private failing = false;

  get size(): number {
    return this.subscribers.size;
  }

  subscribe(sub: Subscriber): () => void {
    this.subscribers.add(sub);
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), getConfig().STREAM_POLL_MS);
      this.timer.unref();
    }
    return () => {
      this.subscribers.delete(sub);
      if (this.subscribers.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private async tick(): Promise<void> {
    if (this.polling || this.subscribers.size === 0) return;
    this.polling = true;
    try {
      const subs = [...this.subscribers];
      // Per task, the lowest cursor of its streams: only rows past it are read, so a tick
      // costs the new events, not the watched tasks' whole history.
      const after = new Map<string, number>();
      for (const sub of subs)
        after.set(sub.taskId, Math.min(after.get(sub.taskId) ?? sub.cursor, sub.cursor));
      const ids = [...after.keys()];
      const pairs = JSON.stringify(ids.map((id) => ({ task_id: id, after_seq: after.get(id)! })));
      const db = await getDb();
      const rows = await db
        .select(columns)
        .from(taskEvents)
        .where(
          and(
            sql`${taskEvents.taskId} in ${jsonList(ids)}`,
            sql`exists (select 1 from jsonb_to_recordset(${pairs}::jsonb) as c(task_id text, after_seq bigint)
                        where c.task_id = ${taskEvents.taskId} and ${taskEvents.seq} > c.after_seq)`,
          ),
        )
        .orderBy(asc(taskEvents.seq));
      this.failing = false;
      if (rows.length === 0) return;
      for (const sub of subs) {
        if (!this.subscribers.has(sub)) continue;
        const mine = rows.filter((r) => r.taskId === sub.taskId && r.seq > sub.cursor);
        if (mine.length === 0) continue;
        sub.cursor = mine[mine.length - 1]!.seq;
        sub.onEvents(mine);
      }
    } catch (error) {
      if (!this.failing) console.error(`[stream] event poll failed (retrying): ${describeError(error)}`);
      this.failing = true;
    } finally {
      this.polling = false;
    }
  }
}

/** The process's hub. */
export const eventHub = new EventHub();

/**
 * Task ratings (POST/GET /api/task-score; MCP `score_task`, `get_reputation`).
 *
 * - Scoring: the task's requester (the key that submitted it or a key of the same account; the
 *   task-access rule of lib/tasks/state/task-access.ts, admins excepted; scope task_create), once per task (409),
 *   rating 1-5, after the task ended in `completed` or `failed` (409 before; other
 *   terminal statuses were never executed). Unknown task → 404.
 * - Reading one score: anyone with the task id; `feedback` only for the owner or an admin.
 *   No score → 404.
 * - Reputation (no task_id): count, average, distribution 1-5, per service and per
 *   outcome, over non-sandbox tasks.
 */
import { and, count, eq, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { taskScores, tasks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/authenticate.js";
import { getTaskOrThrow } from "../tasks/state/apply-transition.js";
import { seesContent, taskAccess } from "../tasks/state/task-access.js";
import type { ScoreQuery, SubmitScoreBody } from "./schemas.js";

/** A score as returned. */
export interface ScoreView {
  task_id: string;
  service_type: string;
  rating: number;
  outcome: string | null;
  feedback?: string | null;
  created_at: string;
}

/** Aggregate reputation. */
export interface Reputation {
  count: number;
  average_rating: number | null;
  distribution: Record<string, number>;
  by_service: { service_type: string; count: number; average_rating: number | null }[];
  by_outcome: Record<string, number>;
  service_type?: string;
}

const SCORABLE = ["completed", "failed"];

/**
 * Records `caller`'s score of a task.
 * @throws DomainError NOT_FOUND, FORBIDDEN (not the submitting key), CONFLICT (not finished, already scored)
 */
export async function submitScore(
  caller: Caller,
  body: SubmitScoreBody,
  now = new Date(),
): Promise<ScoreView> {
  const task = await getTaskOrThrow(body.task_id);
  // An admin key rates only the tasks it submitted itself: reputation is the requesters' word.
  const requester =
    task.apiKeyId === caller.keyId ||
    (await taskAccess(task, { caller: { ...caller, isAdmin: false } })) === "owner";
  if (!requester) {
    throw new DomainError(
      "FORBIDDEN",
      "Only the task's requester (its key, or a key of the same account) can score it",
      {
        field: "task_id",
      },
    );
  }
  if (!SCORABLE.includes(task.status)) {
    throw new DomainError(
      "CONFLICT",
      `Task ${task.id} can be scored once it is completed or failed (status ${task.status})`,
      {
        extra: { current_status: task.status },
      },
    );
  }
  const outcome = body.outcome ?? (task.status === "completed" ? "completed" : "not_completed");
  const db = await getDb();
  // ON CONFLICT DO NOTHING rather than catching the unique violation: a failed statement would
  // abort the request's enclosing transaction (lib/http/idempotency.ts).
  const [row] = await db
    .insert(taskScores)
    .values({
      taskId: task.id,
      apiKeyId: caller.keyId,
      rating: body.rating,
      outcome,
      feedback: body.feedback ?? null,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row)
    throw new DomainError("CONFLICT", `Task ${task.id} has already been scored`, { field: "task_id" });
  return view(row, task.serviceType, true);
}

function view(row: typeof taskScores.$inferSelect, serviceType: string, withFeedback: boolean): ScoreView {
  return {
    task_id: row.taskId,
    service_type: serviceType,
    rating: row.rating,
    outcome: row.outcome,
    ...(withFeedback ? { feedback: row.feedback } : {}),
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * One task's score, or the aggregate reputation when `query.task_id` is absent.
 * @throws DomainError NOT_FOUND (unknown task or no score)
 */
export async function getScore(caller: Caller | null, query: ScoreQuery): Promise<ScoreView | Reputation> {
  const db = await getDb();
  if (query.task_id) {
    const task = await getTaskOrThrow(query.task_id);
    const [row] = await db.select().from(taskScores).where(eq(taskScores.taskId, task.id));
    if (!row) throw new DomainError("NOT_FOUND", `Task ${task.id} has no score`, { field: "task_id" });
    return view(row, task.serviceType, seesContent(await taskAccess(task, { caller })));
  }
  const where = and(
    eq(tasks.sandbox, false),
    query.service_type ? eq(tasks.serviceType, query.service_type) : undefined,
  );
  const grouped = await db
    .select({
      service: tasks.serviceType,
      rating: taskScores.rating,
      outcome: taskScores.outcome,
      n: count(),
    })
    .from(taskScores)
    .innerJoin(tasks, eq(tasks.id, taskScores.taskId))
    .where(where)
    .groupBy(tasks.serviceType, taskScores.rating, taskScores.outcome)
    .orderBy(sql`1, 2`);
  const distribution: Record<string, number> = { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0 };
  const byOutcome: Record<string, number> = {};
  const services = new Map<string, { count: number; sum: number }>();
  let total = 0;
  let sum = 0;
  for (const g of grouped) {
    distribution[String(g.rating)] = (distribution[String(g.rating)] ?? 0) + g.n;
    const outcome = g.outcome ?? "unspecified";
    byOutcome[outcome] = (byOutcome[outcome] ?? 0) + g.n;
    const s = services.get(g.service) ?? { count: 0, sum: 0 };
    s.count += g.n;
    s.sum += g.rating * g.n;
    services.set(g.service, s);
    total += g.n;
    sum += g.rating * g.n;
  }
  const avg = (s: number, n: number) => (n === 0 ? null : Math.round((s / n) * 100) / 100);
  return {
    count: total,
    average_rating: avg(sum, total),
    distribution,
    by_service: [...services].map(([service_type, s]) => ({
      service_type,
      count: s.count,
      average_rating: avg(s.sum, s.count),
    })),
    by_outcome: byOutcome,
    ...(query.service_type ? { service_type: query.service_type } : {}),
  };
}

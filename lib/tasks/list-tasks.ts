/**
 * The operator's task index (GET /api/task-list): filters by status, service and text
 * (id, description, address, contact), sorting, pagination with `total`
 * (limit default 50, max 200; offset at most TASK_LIST_MAX_OFFSET; `total` counts at most
 * TASK_LIST_TOTAL_CAP tasks, then `total_capped` is true: issue 32 item 3). Each sort is served by
 * an index `(column, id) where not sandbox` (lib/db/schema/tasks.ts). Sandbox tasks only with include_sandbox=true. Each row carries
 * the policy screen's record (outcome, reason codes, matched rules, override) for the console.
 */
import { and, asc, desc, eq, ilike, inArray, or, type SQL, sql } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { type Task, type TaskPolicyRecord, tasks } from "../db/schema/index.js";
import { formatUsdc } from "../money.js";
import { TASK_LIST_TOTAL_CAP, type TaskListQuery } from "./state/admin-schemas.js";

/** One row of the index. */
export interface TaskListItem {
  task_id: string;
  status: string;
  service_type: string;
  sandbox: boolean;
  /** Submitted without an API key (its requester holds only the access token). */
  anonymous: boolean;
  urgency: string;
  location_address: string;
  task_description: string;
  requester_contact: string;
  estimate_cad: number | null;
  price_cad: number | null;
  counter_offer_amount: number | null;
  payment_usdc: string | null;
  needs_counter_offer: boolean;
  /** The policy screen with its matched rules and any override (lib/policy); null before the screen existed. */
  policy: TaskPolicyRecord | null;
  refund_status: string;
  created_at: string;
  updated_at: string;
  review_deadline: string;
  execution_deadline: string;
}

/** Task row `t` as the index lists it (times as ISO 8601, USDC as a decimal string). */
function taskListItem(t: Task): TaskListItem {
  return {
    task_id: t.id,
    status: t.status,
    service_type: t.serviceType,
    sandbox: t.sandbox,
    anonymous: t.apiKeyId === null,
    urgency: t.urgency,
    location_address: t.locationAddress,
    task_description: t.taskDescription,
    requester_contact: t.requesterContact,
    estimate_cad: t.estimateCad,
    price_cad: t.priceCad,
    counter_offer_amount: t.counterOfferAmount,
    payment_usdc: t.paymentUsdcMicro === null ? null : formatUsdc(t.paymentUsdcMicro),
    needs_counter_offer: t.needsCounterOffer,
    policy: t.policy,
    refund_status: t.refundStatus,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    review_deadline: t.reviewDeadline.toISOString(),
    execution_deadline: t.executionDeadline.toISOString(),
  };
}

/**
 * Lists tasks for the operator: one page of `query` and the number of matching tasks, counted up to
 * TASK_LIST_TOTAL_CAP (`total_capped` true when more match).
 */
export async function listTasks(
  query: TaskListQuery,
): Promise<{ tasks: TaskListItem[]; total: number; total_capped: boolean; limit: number; offset: number }> {
  const db = await getDb();
  const where: SQL[] = [];
  if (!query.include_sandbox) where.push(eq(tasks.sandbox, false));
  if (query.status?.length) where.push(inArray(tasks.status, query.status));
  if (query.service_type) where.push(eq(tasks.serviceType, query.service_type));
  if (query.q) {
    const pattern = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      or(
        ilike(tasks.id, pattern),
        ilike(tasks.taskDescription, pattern),
        ilike(tasks.locationAddress, pattern),
        ilike(tasks.requesterContact, pattern),
      )!,
    );
  }
  const condition = where.length ? and(...where) : undefined;
  const column = {
    created_at: tasks.createdAt,
    review_deadline: tasks.reviewDeadline,
    updated_at: tasks.updatedAt,
  }[query.sort.replace(/^-/, "") as "created_at" | "review_deadline" | "updated_at"];
  const order = query.sort.startsWith("-") ? desc(column) : asc(column);
  const [rows, [totalRow]] = await Promise.all([
    db
      .select()
      .from(tasks)
      .where(condition)
      .orderBy(order, asc(tasks.id))
      .limit(query.limit)
      .offset(query.offset),
    // Counts at most CAP + 1 rows: the inner LIMIT stops the scan there.
    db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(
      db
        .select({ one: sql`1`.as("one") })
        .from(tasks)
        .where(condition)
        .limit(TASK_LIST_TOTAL_CAP + 1)
        .as("matching"),
    ),
  ]);
  const counted = totalRow?.n ?? 0;
  return {
    tasks: rows.map(taskListItem),
    total: Math.min(counted, TASK_LIST_TOTAL_CAP),
    total_capped: counted > TASK_LIST_TOTAL_CAP,
    limit: query.limit,
    offset: query.offset,
  };
}

/**
 * The operator's task index (GET /api/task-list): filters by status, service and text
 * (id, description, address, contact), sorting, pagination with `total`
 * (limit default 50, max 200; offset at most TASK_LIST_MAX_OFFSET; `total` counts at most
 * TASK_LIST_TOTAL_CAP tasks, TASK_LIST_SEARCH_TOTAL_CAP with `q`, then `total_capped` is true: issue 32
 * item 3). Each sort is served by
 * an index `(column, id) where not sandbox` (lib/db/schema/tasks.ts), ties broken by id in the
 * sort's direction. Deep pages use `cursor` (keyset paging on `(column, id)`: each page is an index
 * range read whatever its depth; `next_cursor` is null on the last page). Sandbox tasks only with include_sandbox=true. Each row carries
 * the policy screen's record (outcome, reason codes, matched rules, override) for the console.
 */
import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type Db, getDb } from "../db/client.js";
import { keyCompare } from "../db/keyset-pages.js";
import { TASK_SEARCH_TEXT, type Task, type TaskPolicyRecord, tasks } from "../db/schema/index.js";
import { timestampText } from "../db/timestamp-text.js";
import { DomainError } from "../errors.js";
import { formatUsdc } from "../money.js";
import {
  TASK_LIST_SEARCH_TOTAL_CAP,
  TASK_LIST_TOTAL_CAP,
  type TaskListQuery,
} from "./state/admin-schemas.js";

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

/** What a keyset cursor carries: the sort it belongs to and the last row's sort value and id. */
interface TaskListCursor {
  sort: string;
  value: string;
  id: string;
}

function encodeCursor(cursor: TaskListCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.value, cursor.id])).toString("base64url");
}

/**
 * The cursor `text` of sort `sort`.
 * @throws DomainError VALIDATION_ERROR (field `cursor`): not made by this list, made for another
 *   sort, or sent with an offset
 */
function decodeCursor(text: string, sort: string, offset: number): TaskListCursor {
  const invalid = (why: string) =>
    new DomainError("VALIDATION_ERROR", `Invalid cursor: ${why}`, { field: "cursor" });
  if (offset !== 0) throw invalid("page with cursor or with offset, not both");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw invalid("pass next_cursor of the previous page unchanged");
  }
  const [madeFor, value, id] = Array.isArray(parsed) && parsed.length === 3 ? parsed : [];
  if (
    typeof madeFor !== "string" ||
    typeof value !== "string" ||
    typeof id !== "string" ||
    Number.isNaN(Date.parse(value))
  ) {
    throw invalid("pass next_cursor of the previous page unchanged");
  }
  if (madeFor !== sort) throw invalid(`it was made for sort=${madeFor}; keep the sort while paging`);
  return { sort, value, id };
}

/**
 * The two statements of one task-list request, unexecuted: `page` (up to `limit + 1` rows of
 * `{ task, sortKey }` in the sort's order, after the cursor or `offset`) and `count` (`{ n }`, the
 * matching tasks counted up to `cap + 1`). {@link listTasks} runs them; the plan test
 * (tests/tasks/task-list-plans.test.ts) reads their plans.
 * @throws DomainError VALIDATION_ERROR (a bad cursor, or a cursor with an offset)
 */
export function taskListQueries(db: Db, query: TaskListQuery) {
  const where: SQL[] = [];
  if (!query.include_sandbox) where.push(eq(tasks.sandbox, false));
  // One status (the console's filter): written as a range of one value, not `=`, so the planner keeps
  // `status` as the first ordering column (an `=` makes it a constant it drops): only the status's
  // own range of `(status, sort, id)` then gives the order without a sort, never a walk of every
  // task in time order skipping the other statuses, whatever the statistics say
  // (tasks_list_status_*_id_idx; issue 45 item 2, tests/tasks/task-list-plans.test.ts).
  const oneStatus =
    query.status?.length === 1 && !query.include_sandbox && query.sort.replace(/^-/, "") !== "review_deadline"
      ? query.status[0]!
      : undefined;
  if (oneStatus) where.push(sql`${tasks.status} between ${oneStatus} and ${oneStatus}`);
  else if (query.status?.length) where.push(inArray(tasks.status, query.status));
  if (query.service_type) where.push(eq(tasks.serviceType, query.service_type));
  if (query.q) {
    const pattern = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // One expression over the four fields, the one the trigram index holds (TASK_SEARCH_TEXT).
    where.push(sql`${TASK_SEARCH_TEXT} ilike ${pattern}`);
  }
  const condition = where.length ? and(...where) : undefined;
  const cap = query.q ? TASK_LIST_SEARCH_TOTAL_CAP : TASK_LIST_TOTAL_CAP;
  const key = query.sort.replace(/^-/, "") as "created_at" | "review_deadline" | "updated_at";
  const column = {
    created_at: tasks.createdAt,
    review_deadline: tasks.reviewDeadline,
    updated_at: tasks.updatedAt,
  }[key];
  const descending = query.sort.startsWith("-");
  const direction = descending ? desc : asc;
  const after = query.cursor ? decodeCursor(query.cursor, query.sort, query.offset) : undefined;
  const page = after
    ? and(condition, keyCompare([column, tasks.id], descending ? "<" : ">", [after.value, after.id]))
    : condition;
  return {
    cap,
    page: db
      .select({
        task: tasks,
        // The sort value at full precision (microseconds): a millisecond ISO string would cut
        // it, and the next page would start inside the last row's microsecond.
        sortKey: timestampText(column),
      })
      .from(tasks)
      .where(page)
      // One status: ordered by it first (it is fixed: the order is the same; see above).
      .orderBy(...(oneStatus ? [direction(tasks.status)] : []), direction(column), direction(tasks.id))
      .limit(query.limit + 1)
      .offset(query.offset),
    // Counts at most CAP + 1 rows: the inner LIMIT stops the scan there.
    count: db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(
      db
        .select({ one: sql`1`.as("one") })
        .from(tasks)
        .where(condition)
        .limit(cap + 1)
        .as("matching"),
    ),
  };
}

/**
 * Lists tasks for the operator: one page of `query` and the number of matching tasks, counted up to
 * TASK_LIST_TOTAL_CAP, or TASK_LIST_SEARCH_TOTAL_CAP when `q` is set (`total_capped` true when more
 * match).
 * @throws DomainError VALIDATION_ERROR (a bad cursor, or a cursor with an offset)
 */
export async function listTasks(query: TaskListQuery): Promise<{
  tasks: TaskListItem[];
  total: number;
  total_capped: boolean;
  limit: number;
  offset: number;
  next_cursor: string | null;
}> {
  const db = await getDb();
  const { cap, page, count } = taskListQueries(db, query);
  const [rows, [totalRow]] = await Promise.all([page, count]);
  const counted = totalRow?.n ?? 0;
  const shown = rows.slice(0, query.limit);
  const last = shown[shown.length - 1];
  return {
    tasks: shown.map((row) => taskListItem(row.task)),
    next_cursor:
      rows.length > query.limit && last
        ? encodeCursor({ sort: query.sort, value: last.sortKey, id: last.task.id })
        : null,
    total: Math.min(counted, cap),
    total_capped: counted > cap,
    limit: query.limit,
    offset: query.offset,
  };
}

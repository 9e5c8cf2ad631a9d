/**
 * Writes a new task row and its first events in one prepared statement: the task in a
 * data-modifying CTE, the events in the main INSERT. One statement is atomic without a
 * transaction (the events' foreign key is checked at its end, when the task row exists) and
 * one database round trip; the SQL is built once per database handle and row shape (the set
 * of columns given and the number of events), not per submission.
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { type Db, getDb } from "../../db/client.js";
import { type NewTask, type NewTaskEvent, taskEvents, tasks } from "../../db/schema/index.js";

const taskColumns = getTableColumns(tasks) as Record<string, PgColumn>;
const eventColumns = getTableColumns(taskEvents) as Record<string, PgColumn>;

/** Placeholders named `<prefix><key>`, as raw SQL so values are passed as encoded here (null stays null). */
function placeholders(keys: string[], prefix: string): Record<string, SQL> {
  const out: Record<string, SQL> = {};
  for (const key of keys) out[key] = sql`${sql.placeholder(`${prefix}${key}`)}`;
  return out;
}

/** Encodes `row` for its placeholders the way drizzle encodes inserted values (null as null). */
function encode(
  row: Record<string, unknown>,
  columns: Record<string, PgColumn>,
  prefix: string,
  out: Record<string, unknown>,
): void {
  for (const key in row) {
    const value = row[key];
    const column = columns[key];
    if (!column) throw new Error(`insertTaskWithEvents: unknown column ${key}`);
    out[`${prefix}${key}`] = value === null || value === undefined ? null : column.mapToDriverValue(value);
  }
}

function build(db: Db, name: string, taskKeys: string[], eventKeys: string[], eventCount: number) {
  const taskInsert = db
    .insert(tasks)
    .values(placeholders(taskKeys, "t_") as unknown as NewTask)
    .getSQL();
  const newTask = db.$with("new_task", {}).as(taskInsert);
  const eventRows = Array.from(
    { length: eventCount },
    (_, i) => placeholders(eventKeys, `e${i}_`) as unknown as NewTaskEvent,
  );
  return db.with(newTask).insert(taskEvents).values(eventRows).prepare(name);
}

type Prepared = ReturnType<typeof build>;
const statements = new WeakMap<Db, Map<string, Prepared>>();
/**
 * Statement name per row shape, the same on every handle: a request's transaction (a new
 * handle each time, lib/db/ambient.ts) reuses the name its pooled connection already
 * prepared, instead of preparing one more statement on that connection per request.
 */
const statementNames = new Map<string, string>();

/**
 * Inserts `task` and `events` (at least one; every event the same columns) together.
 * Undefined values are written as NULL, like null.
 * @throws the database's error (nothing is written then)
 */
export async function insertTaskWithEvents(task: NewTask, events: NewTaskEvent[]): Promise<void> {
  if (events.length === 0) throw new Error("insertTaskWithEvents: at least one event");
  const taskKeys = Object.keys(task);
  const eventKeys = Object.keys(events[0]!);
  for (const event of events) {
    if (Object.keys(event).join() !== eventKeys.join()) {
      throw new Error("insertTaskWithEvents: every event must have the same columns");
    }
  }
  const db = await getDb();
  let byShape = statements.get(db);
  if (!byShape) {
    byShape = new Map();
    statements.set(db, byShape);
  }
  const shape = `${taskKeys.join()}|${eventKeys.join()}|${events.length}`;
  let statement = byShape.get(shape);
  if (!statement) {
    let name = statementNames.get(shape);
    if (!name) {
      name = `insert_task_with_events_${statementNames.size + 1}`;
      statementNames.set(shape, name);
    }
    statement = build(db, name, taskKeys, eventKeys, events.length);
    byShape.set(shape, statement);
  }
  const values: Record<string, unknown> = {};
  encode(task, taskColumns, "t_", values);
  for (const [i, event] of events.entries()) encode(event, eventColumns, `e${i}_`, values);
  await statement.execute(values);
}

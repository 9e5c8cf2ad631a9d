/**
 * The activity log (spec "What the service does" 9): one row per request (time, key,
 * identity parts, endpoint, status, latency). Rows are buffered and written in
 * batches after the response, so logging costs the request almost nothing; on
 * Vercel the flush is handed to `waitUntil`. After each written batch the volume
 * alert is checked for the keys and organizations seen.
 *
 * Batching (see docs/performance.md, Notes): a row is stamped with its time when it is
 * queued (`at`, unless the caller set it) and written at the latest `batchDelayMs`
 * later, or as soon as `BATCH_ROWS` rows are waiting. The delay depends on the driver:
 *
 * - embedded PGlite (`PGLITE_BATCH_DELAY_MS`, 1 s): the database engine runs on the
 *   request thread, so fewer, larger writes leave more of it to requests. Rows go in
 *   with one `COPY … FROM '/dev/blob'` (CSV) per chunk of `CHUNK_ROWS`, yielding to
 *   the event loop between chunks so that queued requests are not held up.
 * - PostgreSQL / Neon (`SERVER_BATCH_DELAY_MS`, 50 ms, as short as before, since a
 *   serverless instance is kept alive by `waitUntil` until the write is done): one
 *   `INSERT … SELECT … FROM json_to_recordset($1::json)` per chunk (one parameter, the rows
 *   as JSON text, whatever the number of rows; cheaper in Node than one array per column).
 *
 * If the fast statement fails, the chunk is retried as a plain multi-row INSERT; rows
 * are lost only if that fails too (logged on stderr). Writes run one after another.
 * A crash loses at most the rows of the last `batchDelayMs`.
 *
 * Queuing needs nothing heavy: drizzle-orm, the table definitions and the volume check are
 * imported by the first write (`writer()`), not with this module, which
 * every endpoint loads through the handler wrapper (cold start, docs/performance.md).
 */

import { getConfig } from "../config.js";
import { ambientTransaction } from "../db/ambient.js";
import { type DatabaseHandle, getDatabase, selectDriver } from "../db/client.js";
import type { activityLog } from "../db/schema/index.js";
import { describeError } from "../log-error.js";
import { waitUntil } from "../net/wait-until.js";

export type ActivityEntry = typeof activityLog.$inferInsert;

/** Longest wait before queued rows are written on embedded PGlite, ms. */
export const PGLITE_BATCH_DELAY_MS = 1000;
/** Longest wait before queued rows are written on PostgreSQL or Neon, ms. */
export const SERVER_BATCH_DELAY_MS = 50;
/** Queued rows that trigger a write at once (bounds the buffer between two writes). */
export const BATCH_ROWS = 2000;
/** Rows per statement; the event loop runs between two statements of one batch. */
export const CHUNK_ROWS = 500;

/** What writing needs, imported on first use; `columns`: the table's columns but the generated id, in a fixed order. */
interface Writer {
  sql: typeof import("drizzle-orm").sql;
  activityLog: typeof activityLog;
  columns: [string, import("drizzle-orm/pg-core").PgColumn][];
  columnList: string;
  /** `"property" type, …` of `json_to_recordset`, in the order of `columns`. */
  recordDefinition: string;
  /** `r."property", …`, in the order of `columns`. */
  recordList: string;
  checkVolumeAlerts: typeof import("./volume-alert.js").checkVolumeAlerts;
}
let writerModules: Promise<Writer> | undefined;
function writer(): Promise<Writer> {
  writerModules ??= Promise.all([
    import("drizzle-orm"),
    import("../db/schema/index.js"),
    import("./volume-alert.js"),
  ]).then(([drizzle, schema, volume]) => {
    const columns = Object.entries(drizzle.getTableColumns(schema.activityLog)).filter(
      ([property]) => property !== "id",
    );
    return {
      sql: drizzle.sql,
      activityLog: schema.activityLog,
      columns,
      columnList: columns.map(([, column]) => `"${column.name}"`).join(", "),
      recordDefinition: columns
        .map(([property, column]) => `"${property}" ${column.getSQLType()}`)
        .join(", "),
      recordList: columns.map(([property]) => `r."${property}"`).join(", "),
      checkVolumeAlerts: volume.checkVolumeAlerts,
    };
  });
  return writerModules;
}

let buffer: ActivityEntry[] = [];
let timer: NodeJS.Timeout | undefined;
/** Tail of the chain of writes; resolves when every batch handed to it is written. */
let writing: Promise<void> = Promise.resolve();
let delayMs: number | undefined;
let fastPathWarned = false;

/**
 * How long rows may wait: by the configured driver until the first write, then by the
 * driver actually open (cached; `resetActivityBatching` forgets it).
 */
function batchDelayMs(): number {
  if (delayMs === undefined) {
    let driver: DatabaseHandle["driver"] = "pglite";
    try {
      driver = selectDriver(getConfig());
    } catch {
      // invalid configuration: the write reports it
    }
    delayMs = driver === "pglite" ? PGLITE_BATCH_DELAY_MS : SERVER_BATCH_DELAY_MS;
  }
  return delayMs;
}

/** Forgets the cached batch delay (tests that switch configuration). */
export function resetActivityBatching(): void {
  delayMs = undefined;
}

/**
 * Queues one entry (stamping `at` with the current time when unset); the write happens
 * within the batch delay (1 s on PGlite, 50 ms on PostgreSQL), or at once when
 * `BATCH_ROWS` rows are waiting. Never throws.
 */
export function recordActivity(entry: ActivityEntry): void {
  buffer.push(entry.at ? entry : { ...entry, at: new Date() });
  if (buffer.length >= BATCH_ROWS) {
    void flushActivity();
    return;
  }
  if (!timer) {
    const delay = batchDelayMs();
    timer = setTimeout(() => {
      timer = undefined;
      void flushActivity();
    }, delay);
    timer.unref?.();
    try {
      waitUntil(new Promise((resolve) => setTimeout(resolve, delay + 5)).then(() => writing));
    } catch {
      // not on Vercel
    }
  }
}

/**
 * Writes everything queued so far; resolves once those rows (and any write already under
 * way) are in the database and their volume check has run (tests, shutdown). Never throws:
 * rows that cannot be written are reported on stderr.
 */
export async function flushActivity(): Promise<void> {
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (buffer.length > 0) {
    const batch = buffer;
    buffer = [];
    writing = writing.then(() => writeBatch(batch));
  }
  await writing;
}

/**
 * For readers of the activity log (analytics, privacy export and erasure): writes this
 * instance's queued rows first, so a read sees every request this instance answered (rows
 * queued by other instances are written within their own batch delay). Skipped inside a
 * request's ambient transaction, where a write on another connection could wait on it (PGlite).
 * Never throws.
 */
export async function flushActivityBeforeRead(): Promise<void> {
  if (ambientTransaction()) return;
  await flushActivity();
}

/** Writes `batch` chunk by chunk, then checks the volume alert. Never throws. */
async function writeBatch(batch: ActivityEntry[]): Promise<void> {
  let handle: DatabaseHandle;
  let w: Writer;
  try {
    w = await writer();
    handle = await getDatabase();
  } catch (error) {
    report(batch.length, error);
    return;
  }
  delayMs = handle.driver === "pglite" ? PGLITE_BATCH_DELAY_MS : SERVER_BATCH_DELAY_MS;
  for (let i = 0; i < batch.length; i += CHUNK_ROWS) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    const chunk = batch.slice(i, i + CHUNK_ROWS);
    try {
      await insertFast(w, handle, chunk);
    } catch (fastError) {
      if (!fastPathWarned) {
        fastPathWarned = true;
        console.warn(
          `activity log: batch statement failed, retrying as INSERT (warned once): ${describeError(fastError)}`,
        );
      }
      try {
        await handle.db.insert(w.activityLog).values(chunk);
      } catch (error) {
        report(chunk.length, error);
      }
    }
  }
  try {
    await w.checkVolumeAlerts(batch);
  } catch (error) {
    console.error(`activity log: volume check failed: ${describeError(error)}`);
  }
}

function report(rows: number, error: unknown): void {
  console.error(`activity log: ${rows} entries not written: ${describeError(error)}`);
}

/** The value of column `property` of `entry` (undefined → null). */
function fieldOf(entry: ActivityEntry, property: string): unknown {
  return (entry as Record<string, unknown>)[property] ?? null;
}

/** One statement for `rows`: COPY from a CSV blob on PGlite, INSERT … json_to_recordset elsewhere. */
async function insertFast(w: Writer, handle: DatabaseHandle, rows: ActivityEntry[]): Promise<void> {
  const { sql, columns: COLUMNS, columnList: COLUMN_LIST } = w;
  if (handle.driver === "pglite") {
    const client = (handle.db as unknown as { $client: PgliteCopyClient }).$client;
    const csv = rows
      .map((row) => COLUMNS.map(([property]) => csvField(fieldOf(row, property))).join(","))
      .join("\n");
    await client.query(`COPY activity_log (${COLUMN_LIST}) FROM '/dev/blob' WITH (FORMAT csv)`, [], {
      blob: new Blob([csv]),
    });
    return;
  }
  // The rows as ONE json parameter (JSON.stringify: native, dates as ISO 8601), keyed by the
  // TypeScript property names that the recordset definition declares (lib/db/bulk.ts does the same
  // with jsonb for the checker's batches).
  await handle.db.execute(
    sql`INSERT INTO activity_log (${sql.raw(COLUMN_LIST)}) SELECT ${sql.raw(w.recordList)} FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(${sql.raw(w.recordDefinition)})`,
  );
}

/** The part of PGlite's client used for COPY. */
interface PgliteCopyClient {
  query(query: string, params: unknown[], options: { blob: Blob }): Promise<unknown>;
}

/**
 * One CSV field for PostgreSQL's `COPY … (FORMAT csv)`: null → empty unquoted (NULL);
 * text always quoted (so "" stays an empty string), quotes doubled; dates in ISO 8601.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return `"${String(value).replace(/"/g, '""')}"`;
}

/**
 * A timestamp column as ISO 8601 text at full precision (microseconds, UTC): the page key of keyset
 * paging (the task list's cursor, streamed exports). A JavaScript Date keeps only milliseconds, so a
 * key taken from one would start the next page inside the last row's millisecond and repeat rows.
 */
import { type AnyColumn, type SQL, sql } from "drizzle-orm";

/** `column` as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (SQL). */
export function timestampText(column: AnyColumn | SQL): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

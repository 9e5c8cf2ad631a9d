/**
 * Keyset paging (a "seek" on an ordered unique key, never OFFSET): the loop the streamed exports
 * (lib/analytics/exports.ts, lib/privacy/export.ts) and erasure's chunks (lib/privacy/deidentify.ts)
 * read a large set with, one indexed range read per page, so no statement grows with the set, and
 * the key helpers they and the task list's cursor (lib/tasks/list-tasks.ts) share.
 */
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { timestampText } from "./timestamp-text.js";

/**
 * The pages of a keyset-paged read, in order: `page(after)` reads up to `size` rows whose key
 * follows `after` (null for the first page) in key order, and `keyOf` gives a row's key. Ends
 * after a page shorter than `size`; an empty page is not yielded.
 */
export async function* keysetPages<R, K>(
  page: (after: K | null) => Promise<R[]>,
  keyOf: (row: R) => K,
  size: number,
): AsyncGenerator<R[]> {
  let after: K | null = null;
  for (;;) {
    const rows = await page(after);
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    after = keyOf(rows[rows.length - 1]!);
  }
}

/** A key column: a table's column (its SQL type tells a timestamp). */
type KeyColumn = AnyColumn & { getSQLType(): string };

/**
 * The columns of `key` read as text, to select beside a row (`__key0`, `__key1`, …): a timestamp
 * through `timestampText` (microseconds kept, which a JavaScript `Date` would drop, so the next page
 * starts exactly after the last row), any other column as `::text`.
 */
export function keyText(key: KeyColumn[]): Record<string, SQL<string>> {
  return Object.fromEntries(
    key.map((column, i) => [
      `__key${i}`,
      column.getSQLType().startsWith("timestamp") ? timestampText(column) : sql<string>`${column}::text`,
    ]),
  );
}

/** The key of a row selected with {@link keyText}'s fields. */
export function keyOfRow(key: KeyColumn[], row: Record<string, unknown>): string[] {
  return key.map((_, i) => row[`__key${i}`] as string);
}

/**
 * `(key…) op (values…)`, the row comparison that bounds a page by the key of its last row (text, as
 * {@link keyText} reads it, or a cursor carries it); PostgreSQL reads each value as its column's type.
 */
export function keyCompare(key: AnyColumn[], op: "<" | ">" | "<=" | ">=", values: string[]): SQL {
  return sql`(${sql.join(key, sql`, `)}) ${sql.raw(op)} (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

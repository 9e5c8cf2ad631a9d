/**
 * Set-based writes of many rows in one statement, for batch paths (the payment checker
 * pays thousands of tasks per run). Rows travel as ONE jsonb parameter expanded by
 * PostgreSQL's `jsonb_to_recordset` (PostgreSQL docs, "JSON Processing Functions"), so a
 * statement has a handful of parameters whatever the row count, and the same SQL runs on
 * PGlite, node-postgres and Neon. Values go through each column's own drizzle mapping
 * (`mapToDriverValue`) and are typed by the column's SQL type in the recordset definition.
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db, Tx } from "./client.js";
import { rowsOf } from "./rows.js";

type Row = Record<string, unknown>;

/** Columns (by TypeScript property name) that `rows` set: the same for every row. */
function keysOf(rows: readonly Row[]): string[] {
  const first = rows[0] ?? {};
  const keys = Object.keys(first).filter((k) => first[k] !== undefined);
  for (const row of rows) {
    let defined = 0;
    for (const k in row) if (row[k] !== undefined) defined++;
    if (defined !== keys.length || keys.some((k) => row[k] === undefined)) {
      throw new Error(`bulk write: every row must set the same columns (${keys.join(", ")})`);
    }
  }
  return keys;
}

function columnsOf(table: PgTable, keys: readonly string[]): PgColumn[] {
  const all = getTableColumns(table) as Record<string, PgColumn>;
  return keys.map((k) => {
    const column = all[k];
    if (!column) throw new Error(`bulk write: no column ${k}`);
    return column;
  });
}

/**
 * `jsonb_to_recordset($1::jsonb) AS alias("col" type, …)` for `rows` (objects keyed by the
 * table's TypeScript property names, every row setting the same ones), usable as a FROM
 * item. The recordset's columns carry the table's SQL column names. jsonb columns take
 * their values as they are; other values go through the column's driver mapping, with
 * bigints as decimal strings (exact beyond 2^53).
 * @throws Error when rows set different columns or name a column the table lacks.
 */
export function recordset(table: PgTable, rows: readonly Row[], alias: string): SQL {
  const keys = keysOf(rows);
  const columns = columnsOf(table, keys);
  const names = columns.map((c) => c.name);
  const json = columns.map((c) => /^jsonb?$/.test(c.getSQLType()));
  const records: Row[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const record: Row = {};
    for (let i = 0; i < keys.length; i++) {
      const value = row[keys[i]!];
      if (value === null || json[i]) record[names[i]!] = value;
      else {
        const mapped = columns[i]!.mapToDriverValue(value as never);
        record[names[i]!] = typeof mapped === "bigint" ? mapped.toString() : mapped;
      }
    }
    records[r] = record;
  }
  const definition = sql.join(
    columns.map((c) => sql`${sql.identifier(c.name)} ${sql.raw(c.getSQLType())}`),
    sql`, `,
  );
  return sql`jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as ${sql.identifier(alias)}(${definition})`;
}

/**
 * `(select …::type from jsonb_array_elements_text($1::jsonb))` for `column in ${jsonList(…)}`:
 * a list of any length as ONE jsonb parameter (thousands of bind parameters cost more than
 * the query itself). `type` is the SQL type each element is cast to (e.g. `bigint`).
 */
export function jsonList(values: readonly (string | number | bigint)[], type = "text"): SQL {
  const text = JSON.stringify(values.map(String));
  return sql`(select (v)::${sql.raw(type)} from jsonb_array_elements_text(${text}::jsonb) as v)`;
}

/** Options of `bulkInsert`. */
export interface BulkInsertOptions {
  /** `ON CONFLICT DO NOTHING`: rows that collide with a unique key are left out. */
  onConflictDoNothing?: boolean;
  /** TypeScript property names of the columns to return for the rows inserted. */
  returning?: readonly string[];
}

/**
 * Inserts `rows` (objects keyed by `table`'s TypeScript property names, all setting the same
 * columns; columns left out take their defaults) in one `INSERT … SELECT … FROM
 * jsonb_to_recordset(…)` statement.
 * @returns the inserted rows' `returning` columns keyed by SQL column name, as the driver
 *   returns them (no drizzle mapping: bigint columns may come back as strings); [] without `returning`.
 * @throws the driver's error (e.g. a unique violation without `onConflictDoNothing`); Error on inconsistent rows.
 */
export async function bulkInsert(
  db: Db | Tx,
  table: PgTable,
  rows: readonly Row[],
  options: BulkInsertOptions = {},
): Promise<Row[]> {
  if (rows.length === 0) return [];
  const names = columnsOf(table, keysOf(rows)).map((c) => sql.identifier(c.name));
  const list = sql.join(names, sql`, `);
  const returning = options.returning?.length
    ? sql` returning ${sql.join(
        columnsOf(table, options.returning).map((c) => sql.identifier(c.name)),
        sql`, `,
      )}`
    : sql``;
  const result = await db.execute(
    sql`insert into ${table} (${list}) select ${list} from ${recordset(table, rows, "r")}${
      options.onConflictDoNothing ? sql` on conflict do nothing` : sql``
    }${returning}`,
  );
  return options.returning?.length ? rowsOf<Row>(result) : [];
}

/**
 * `items` cut into consecutive slices of at most `size` (the last one shorter), in order: keeps
 * each statement's parameter list or transaction under a bound.
 * @param size slice length, >= 1
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

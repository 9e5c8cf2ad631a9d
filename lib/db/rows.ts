/** Reading the rows of a raw `db.execute(sql…)`. */

/**
 * The rows of `db.execute`'s result, whichever driver answered (node-postgres, Neon and PGlite all
 * return an object with `rows`); `[]` when it has none.
 */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows?: T[] }).rows ?? [];
}

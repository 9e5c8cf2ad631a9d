/**
 * Keyset paging (a "seek" on an ordered unique key, never OFFSET): the loop the streamed exports
 * (lib/analytics/exports.ts, lib/privacy/export.ts) and erasure's chunks (lib/privacy/deidentify.ts)
 * read a large set with, one indexed range read per page, so no statement grows with the set.
 */

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

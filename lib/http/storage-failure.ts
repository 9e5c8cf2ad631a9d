/**
 * Recognises infrastructure failures (database or cache unreachable, connection
 * dropped, pool exhausted, a query past DB_QUERY_TIMEOUT_MS or the server's
 * statement_timeout, a transaction aborted by a deadlock) anywhere in an error's `cause`
 * chain, so the wrapper can
 * answer 503 STORAGE_ERROR instead of 500 (spec "Errors").
 */

import { StorageError } from "../errors.js";

const NET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);
// SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator
// intervention), 57014 (query_canceled: statement_timeout), 25P03
// (idle_in_transaction_session_timeout): the database did not answer in time; and
// 40001/40P01 (serialization failure, deadlock detected: the transaction was rolled back and
// a retry succeeds; more likely now that a keyed request's writes share one transaction,
// lib/http/idempotency.ts).
const SQLSTATE = /^(08|53|57P|57014$|25P03$|40001$|40P01$)/;

/** True when `error` (or any cause) is a storage or connection failure. */
export function isStorageFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof StorageError) return true;
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown };
    if (typeof e.code === "string" && (NET_CODES.has(e.code) || SQLSTATE.test(e.code))) return true;
    if (
      typeof e.message === "string" &&
      /PGlite is closed|Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout|Client was closed and is not queryable/i.test(
        e.message,
      )
    ) {
      return true;
    }
    current = e.cause;
  }
  return false;
}

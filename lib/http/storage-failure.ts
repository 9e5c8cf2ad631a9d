/**
 * Recognises infrastructure failures (database or cache unreachable, connection
 * dropped, pool exhausted, a query past DB_QUERY_TIMEOUT_MS or the server's
 * statement_timeout, a transaction aborted by a deadlock) anywhere in an error's `cause`
 * chain, so the wrapper can
 * answer 503 STORAGE_ERROR instead of 500 (spec "Errors").
 *
 * Only failures a retry can cure count: a database error whose SQLSTATE says the statement itself
 * is at fault is permanent and is not a storage failure, even in class 08: 08P01
 * (protocol_violation, e.g. "bind message has 4464 parameter formats but 0 parameters" when a
 * statement binds more than 65,535 parameters), class 54 (program limit exceeded), class 42
 * (syntax error or access rule violation), and every other SQLSTATE outside the transient list
 * below. Those go to 500 INTERNAL (logged), never to 503 with Retry-After, which would have the
 * caller retry forever (issue 32 item 5).
 */

import { StorageError } from "../errors.js";

const NET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);
// SQLSTATE classes 08 (connection exception; not 08P01 protocol_violation: the statement's own
// fault), 53 (insufficient resources), 57P (operator
// intervention), 57014 (query_canceled: statement_timeout), 25P03
// (idle_in_transaction_session_timeout): the database did not answer in time; and
// 40001/40P01 (serialization failure, deadlock detected: the transaction was rolled back and
// a retry succeeds; more likely now that a keyed request's writes share one transaction,
// lib/http/idempotency.ts).
const SQLSTATE = /^(08(?!P01)|53|57P|57014$|25P03$|40001$|40P01$)/;
/** A SQLSTATE of PostgreSQL's classes (PostgreSQL docs, Appendix A "Error Codes"), not an errno like EPERM. */
const ANY_SQLSTATE = /^(?:[0-5][0-9A-Z]|F0|HV|P0|XX)[0-9A-Z]{3}$/;

/**
 * True when `error` (or any cause) is a storage or connection failure: a retry may succeed.
 * The first database answer in the chain decides: a SQLSTATE outside the transient list means
 * false, whatever its causes say.
 */
export function isStorageFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof StorageError) return true;
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown };
    if (typeof e.code === "string") {
      if (NET_CODES.has(e.code) || SQLSTATE.test(e.code)) return true;
      if (ANY_SQLSTATE.test(e.code)) return false;
    }
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

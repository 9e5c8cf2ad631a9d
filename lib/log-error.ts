/**
 * What the server log may say about an error: its class, codes (errno or SQLSTATE), the
 * database's table/column/constraint names, the SQL text of a failed query and stack frames;
 * never the values of query parameters or request fields.
 *
 * Why: drizzle wraps driver errors as `Failed query: <sql>\nparams: <values>` and PostgreSQL
 * messages quote the offending value (`invalid input syntax for type uuid: "…"`, `Key (email)=(…)`),
 * so logging an error object as it is writes bcrypt hashes, addresses and e-mails into the log.
 * Every `console.error` of an unexpected error goes through `describeError` instead.
 */

/** Fields of a PostgreSQL error (pg, Neon and PGlite share them) that name things, not values. */
const DB_FIELDS = ["severity", "table", "column", "constraint", "dataType", "routine"] as const;

/** A five-character SQLSTATE such as `22P02`. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The message of one error, with parameter values removed. */
function safeMessage(e: Error & { code?: unknown }): string | undefined {
  const message = e.message ?? "";
  if (message.startsWith("Failed query:")) {
    // drizzle's DrizzleQueryError: keep the parameterized SQL, drop "params: …".
    const sql = message
      .slice("Failed query:".length)
      .split(/\nparams:/)[0]!
      .trim();
    return `failed query: ${sql.length > 500 ? `${sql.slice(0, 500)}…` : sql}`;
  }
  // A database error's message may quote the rejected value; its SQLSTATE says what happened.
  if (typeof e.code === "string" && SQLSTATE.test(e.code)) return undefined;
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

/**
 * One log line describing `error` and its `cause` chain (at most 6 levels), e.g.
 * `DrizzleQueryError: failed query: select … where "id" = $1 <- error [sqlstate=22021 severity=ERROR]`
 * followed by up to 6 stack frames of the outermost error.
 * @param error anything thrown
 * @returns text safe to log: no parameter values, no request field values
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 6; depth++) {
    if (!(current instanceof Error) && typeof current !== "object") {
      parts.push(`thrown ${typeof current}`);
      break;
    }
    const e = current as Error & Record<string, unknown>;
    const name = typeof e.name === "string" ? e.name : "Error";
    const facts: string[] = [];
    if (typeof e.code === "string" || typeof e.code === "number") {
      facts.push(`${SQLSTATE.test(String(e.code)) ? "sqlstate" : "code"}=${String(e.code)}`);
    }
    for (const field of DB_FIELDS) {
      if (typeof e[field] === "string" && e[field]) facts.push(`${field}=${e[field]}`);
    }
    const message = current instanceof Error ? safeMessage(e) : undefined;
    parts.push(`${name}${message ? `: ${message}` : ""}${facts.length ? ` [${facts.join(" ")}]` : ""}`);
    current = e.cause;
  }
  const frames =
    error instanceof Error && typeof error.stack === "string"
      ? error.stack
          .split("\n")
          .filter((line) => /^\s+at /.test(line))
          .slice(0, 6)
          .map((line) => line.trim())
      : [];
  return [parts.join(" <- "), ...frames].join("\n  ");
}

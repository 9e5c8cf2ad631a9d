/**
 * Which database failures are temporary (503 STORAGE_ERROR with Retry-After: a retry may
 * succeed) and which are permanent (500 INTERNAL, logged), with errors raised by the real test
 * database (issue 32 item 5: a statement binding more than 65,535 parameters fails with SQLSTATE
 * 08P01 on every try, and was answered 503 forever).
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { toErrorResponse } from "../../lib/http/error-response.js";
import { isStorageFailure } from "../../lib/http/storage-failure.js";
import { useTestDatabase } from "../helpers/db.js";

useTestDatabase();

/** The error the test database raises for `query`. */
async function failureOf(query: ReturnType<typeof sql>): Promise<unknown> {
  const db = await getDb();
  try {
    await db.execute(query);
  } catch (error) {
    return error;
  }
  throw new Error("the query did not fail");
}

/** The SQLSTATE somewhere in `error`'s cause chain. */
function sqlstate(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.code === "string") return e.code;
  return undefined;
}

describe("permanent database errors are not temporary storage failures", () => {
  it("answers 500 INTERNAL, without Retry-After, to a statement binding more than 65,535 parameters", async () => {
    const ids = Array.from({ length: 70_000 }, (_, i) => `TASK-${i}`);
    // drizzle binds each element of a plain array as its own parameter.
    const error = await failureOf(sql`select 1 from tasks where id in ${ids}`);
    expect(sqlstate(error)).toBe("08P01");
    expect(isStorageFailure(error)).toBe(false);
    const res = toErrorResponse(error, "req_test");
    expect(res.status).toBe(500);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INTERNAL");
  });

  it("answers 500 to a program limit (54xxx) and a syntax or access rule violation (42xxx)", async () => {
    // "array size exceeds the maximum allowed": checked before anything is allocated.
    const tooLarge = await failureOf(sql`select array_fill(1, array[200000000, 200000000])`);
    expect(sqlstate(tooLarge)).toBe("54000");
    expect(isStorageFailure(tooLarge)).toBe(false);
    const noTable = await failureOf(sql`select * from no_such_table`);
    expect(sqlstate(noTable)).toBe("42P01");
    expect(isStorageFailure(noTable)).toBe(false);
    expect(toErrorResponse(noTable, "req_test").status).toBe(500);
  });

  it("keeps a transient failure (deadlock, connection lost, statement timeout) a 503 with Retry-After", async () => {
    for (const code of ["40P01", "08006", "57014", "53300"]) {
      const error = new Error("failed query: select 1", { cause: Object.assign(new Error("x"), { code }) });
      expect(isStorageFailure(error), code).toBe(true);
      const res = toErrorResponse(error, "req_test");
      expect(res.status, code).toBe(503);
      expect(res.headers.get("retry-after"), code).toBe("5");
    }
    // An errno is no SQLSTATE: the connection message still decides.
    const closed = Object.assign(new Error("Connection terminated unexpectedly"), { code: "EPERM" });
    expect(isStorageFailure(closed)).toBe(true);
  });
});

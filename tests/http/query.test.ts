/**
 * Numeric query parameters are parsed by one rule (`queryNumber` in lib/validation.ts): decimal digits only;
 * empty, blank (`+` decodes to a space), hex, exponent and fractions where an integer is
 * expected are 400 INVALID_FORMAT, never read as 0 or silently rounded.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ApiError } from "../../lib/http/errors.js";
import { queryObject } from "../../lib/http/handler.js";
import { parseOrThrow } from "../../lib/http/validation.js";
import { estimateQuerySchema } from "../../lib/pricing/schemas.js";
import { taskListQuerySchema } from "../../lib/tasks/state/admin-schemas.js";
import { failuresQuerySchema } from "../../lib/webhooks/schemas.js";

/** Parses `search` (as a URL query string) with `schema`: the value, or the error's code and field. */
function parse(schema: z.ZodType, search: string): unknown {
  try {
    return parseOrThrow(schema, queryObject(new URL(`http://127.0.0.1/api/x?${search}`)));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, field: error.field };
  }
}

describe("numeric query parameters", () => {
  it.each([
    ["offset=+", "offset"],
    ["offset=%20", "offset"],
    ["offset=", "offset"],
    ["offset=+5", "offset"],
    ["limit=1.005", "limit"],
    ["limit=1.5", "limit"],
    ["limit=0x10", "limit"],
    ["limit=1e1", "limit"],
    ["limit=Infinity", "limit"],
    ["limit=abc", "limit"],
  ])("task-list ?%s → 400 INVALID_FORMAT", (search, field) => {
    expect(parse(taskListQuerySchema, search)).toEqual({ code: "INVALID_FORMAT", field });
  });

  it.each([
    ["offset=+", "offset"],
    ["offset=", "offset"],
    ["limit=", "limit"],
    ["limit=1.005", "limit"],
  ])("webhook failures ?%s → 400 INVALID_FORMAT (not read as 0)", (search, field) => {
    expect(parse(failuresQuerySchema, search)).toEqual({ code: "INVALID_FORMAT", field });
  });

  it("keeps range errors as 422 VALIDATION_ERROR and reads valid numbers", () => {
    expect(parse(taskListQuerySchema, "limit=201")).toEqual({ code: "VALIDATION_ERROR", field: "limit" });
    expect(parse(failuresQuerySchema, "offset=-1")).toEqual({ code: "VALIDATION_ERROR", field: "offset" });
    expect(parse(taskListQuerySchema, "limit=20&offset=40")).toMatchObject({ limit: 20, offset: 40 });
    expect(parse(taskListQuerySchema, "")).toMatchObject({ limit: 50, offset: 0 });
    expect(parse(failuresQuerySchema, "")).toEqual({ limit: 100, offset: 0 });
  });

  it("reads decimals where a number is expected; absent required → MISSING_FIELD", () => {
    expect(parse(estimateQuerySchema, "hours=2.5")).toMatchObject({ hours: 2.5 });
    expect(parse(estimateQuerySchema, "hours=+")).toEqual({ code: "INVALID_FORMAT", field: "hours" });
    expect(parse(estimateQuerySchema, "hours=-1")).toEqual({ code: "VALIDATION_ERROR", field: "hours" });
    expect(parse(estimateQuerySchema, "location=Laval")).toEqual({ code: "MISSING_FIELD", field: "hours" });
  });
});

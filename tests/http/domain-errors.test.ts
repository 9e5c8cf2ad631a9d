/**
 * Domain errors (lib/errors.ts) reach callers only through lib/http's mapping: the handler
 * wrapper's `toErrorResponse` and the MCP tools' `toolError` give the envelope of the same code,
 * with the status of `ERROR_STATUS`, the field and the extra members; never 500.
 */
import { describe, expect, it } from "vitest";
import { DOMAIN_ERROR_CODES, DomainError } from "../../lib/errors.js";
import { toErrorResponse } from "../../lib/http/error-response.js";
import { ERROR_STATUS } from "../../lib/http/errors.js";
import { toolError } from "../../lib/mcp/tool-kit.js";

describe("domain errors at the edge", () => {
  it("maps every domain code to its HTTP status and the envelope", async () => {
    for (const code of DOMAIN_ERROR_CODES) {
      const res = toErrorResponse(
        new DomainError(code, `failed: ${code}`, { field: "task_id", extra: { current_status: "paid" } }),
        "req_test",
      );
      expect(res.status, code).toBe(ERROR_STATUS[code]);
      expect(await res.json()).toEqual({
        error: { code, message: `failed: ${code}`, field: "task_id", details: [], current_status: "paid" },
        request_id: "req_test",
      });
    }
  });

  it("gives the MCP tool error of the same code", () => {
    const result = toolError(new DomainError("CONFLICT", "already scored", { field: "task_id" }), "req_mcp");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: { code: "CONFLICT", message: "already scored", field: "task_id", details: [] },
      request_id: "req_mcp",
    });
  });

  it("omits field when the domain error names none", async () => {
    const res = toErrorResponse(new DomainError("NOT_FOUND", "no such thing"), "req_x");
    expect(res.status).toBe(404);
    expect((await res.json()).error).toEqual({ code: "NOT_FOUND", message: "no such thing", details: [] });
  });
});

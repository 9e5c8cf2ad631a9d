/**
 * Domain errors (lib/errors.ts) reach callers only through lib/http's mapping: the handler
 * wrapper's `toErrorResponse` and the MCP tools' `toolError` give the envelope of the same code,
 * with the status of `ERROR_STATUS`, the field and the extra members; never 500.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DOMAIN_ERROR_CODES, DomainError } from "../../lib/errors.js";
import { toErrorResponse } from "../../lib/http/error-response.js";
import { ERROR_STATUS } from "../../lib/http/errors.js";
import { toolError } from "../../lib/mcp/tool-kit.js";
import { parseOrThrow } from "../../lib/validation.js";

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
    const envelope = {
      error: { code: "CONFLICT", message: "already scored", field: "task_id", details: [] },
      request_id: "req_mcp",
    };
    // No structuredContent: clients validate it against the tool's output schema, errors included.
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta).toEqual(envelope);
    expect(result.content).toEqual([
      { type: "text", text: "CONFLICT: already scored" },
      { type: "text", text: JSON.stringify(envelope) },
    ]);
  });

  it("omits field when the domain error names none", async () => {
    const res = toErrorResponse(new DomainError("NOT_FOUND", "no such thing"), "req_x");
    expect(res.status).toBe(404);
    expect((await res.json()).error).toEqual({ code: "NOT_FOUND", message: "no such thing", details: [] });
  });

  it("states retry facts as Retry-After and RateLimit-* headers, never as members", async () => {
    const limited = toErrorResponse(
      new DomainError(
        "RATE_LIMITED",
        "Rate limit exceeded: 5 login attempts per IP per hour; retry after 120 s",
        {
          extra: { limit: 5, policy: "login" },
          rateLimit: { limit: 5, remaining: 0, resetSeconds: 120 },
          retryAfterSeconds: 120,
        },
      ),
      "req_rl",
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("120");
    expect(limited.headers.get("ratelimit-limit")).toBe("5");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("ratelimit-reset")).toBe("120");
    expect((await limited.json()).error).toEqual({
      code: "RATE_LIMITED",
      message: "Rate limit exceeded: 5 login attempts per IP per hour; retry after 120 s",
      details: [],
      limit: 5,
      policy: "login",
    });

    const upstream = toErrorResponse(
      new DomainError("UPSTREAM_UNAVAILABLE", "CAPTCHA verification is unavailable", {
        retryAfterSeconds: 30,
      }),
      "req_up",
    );
    expect(upstream.status).toBe(503);
    expect(upstream.headers.get("retry-after")).toBe("30");
    expect(upstream.headers.get("ratelimit-limit")).toBeNull();

    const plain = toErrorResponse(new DomainError("CONFLICT", "busy"), "req_c");
    expect(plain.headers.get("retry-after")).toBeNull();
  });

  it("validates in the domain: every issue in details, the first by priority is the error", async () => {
    const schema = z.object({ name: z.string().max(3), email: z.string(), age: z.number().int().min(0) });
    let thrown: unknown;
    try {
      parseOrThrow(schema, { name: "toolong", age: -1 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    const error = thrown as DomainError;
    expect(error.code).toBe("MISSING_FIELD");
    expect(error.field).toBe("email");
    expect(error.details.map((d) => [d.field, d.code])).toEqual([
      ["email", "MISSING_FIELD"],
      ["name", "FIELD_TOO_LONG"],
      ["age", "VALIDATION_ERROR"],
    ]);
    const res = toErrorResponse(error, "req_v");
    expect(res.status).toBe(400);
    expect((await res.json()).error.details).toHaveLength(3);
  });
});

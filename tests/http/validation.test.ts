/** Error messages built from zod issues (lib/http/validation.ts): the field is named once. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "../../lib/http/errors.js";
import { parseOrThrow } from "../../lib/http/validation.js";

function messageFor(schema: z.ZodType, input: unknown): string {
  try {
    parseOrThrow(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).message;
  }
  throw new Error("expected a refusal");
}

describe("validation messages", () => {
  it("keeps a schema message that already names the field as it is", () => {
    const schema = z.object({
      service_type: z.enum(["SVC-01"], { error: "service_type must be one of SVC-01" }),
    });
    expect(messageFor(schema, { service_type: "X" })).toBe("service_type must be one of SVC-01");
  });

  it("names a nested field by its full path once", () => {
    const schema = z.object({ a: z.object({ kind: z.enum(["x"], { error: "kind must be x" }) }) });
    expect(messageFor(schema, { a: { kind: "y" } })).toBe("a.kind must be x");
  });

  it("prefixes a message that does not name the field", () => {
    const schema = z.object({ hours: z.number().max(8) });
    expect(messageFor(schema, { hours: 9 })).toMatch(/^hours: /);
  });
});

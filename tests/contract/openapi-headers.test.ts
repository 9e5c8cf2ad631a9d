/**
 * Every request header the service reads is declared in /openapi.json: as a header parameter of
 * the operations that read it, or as a security scheme (credentials).
 */
import { describe, expect, it } from "vitest";
import { VALUE_HEADERS } from "../../lib/http/inputs.js";
import { buildOpenApiDocument } from "../../lib/openapi/document.js";

type Json = Record<string, any>;

const doc = buildOpenApiDocument() as Json;

function headerParams(method: string, path: string): string[] {
  const op = doc.paths[path][method] as Json;
  return (op.parameters ?? []).filter((p: Json) => p.in === "header").map((p: Json) => p.name.toLowerCase());
}

describe("/openapi.json request headers", () => {
  it("declares each header the service reads, as a parameter or a security scheme", () => {
    const declared = new Set<string>();
    for (const item of Object.values(doc.paths) as Json[]) {
      for (const op of Object.values(item) as Json[]) {
        for (const p of op.parameters ?? []) if (p.in === "header") declared.add(p.name.toLowerCase());
      }
    }
    for (const scheme of Object.values(doc.components.securitySchemes) as Json[]) {
      if (scheme.type === "apiKey" && scheme.in === "header") declared.add(scheme.name.toLowerCase());
      if (scheme.type === "http") declared.add("authorization");
    }
    expect(VALUE_HEADERS.filter((h) => !declared.has(h))).toEqual([]);
  });

  it("declares each header on the operation that reads it", () => {
    expect(headerParams("post", "/api/submit-task")).toEqual(
      expect.arrayContaining(["idempotency-key", "x-agent-identity", "x-service-mode"]),
    );
    expect(headerParams("get", "/api/tasks/stream")).toEqual(
      expect.arrayContaining(["x-stream-timeout", "last-event-id", "x-agent-identity"]),
    );
  });
});

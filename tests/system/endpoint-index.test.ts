/**
 * lib/system/endpoint-index.json (the public operations without schemas, read by /api/capabilities
 * and /llms.txt) matches the descriptors: regenerate it with `npm run endpoints:generate` when an
 * operation's method, path, summary, auth or scope changes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allOperations } from "../../lib/openapi/operations.js";
import { PUBLIC_ENDPOINTS } from "../../lib/system/endpoints.js";
import { ENDPOINT_INDEX_FILE, endpointIndexText } from "../../scripts/generate-endpoint-index.js";

describe("endpoint index", () => {
  it("is what npm run endpoints:generate writes from the current descriptors", () => {
    expect(readFileSync(ENDPOINT_INDEX_FILE, "utf8")).toBe(endpointIndexText());
  });

  it("lists every operation but the internal ones, with its auth mode and scope", () => {
    const expected = allOperations()
      .filter((op) => !op.internal)
      .map((op) => `${op.method} ${op.path} ${op.auth} ${op.scope ?? "-"}`);
    expect(PUBLIC_ENDPOINTS.map((e) => `${e.method} ${e.path} ${e.auth} ${e.scope ?? "-"}`)).toEqual(
      expected,
    );
    expect(PUBLIC_ENDPOINTS.some((e) => e.path.startsWith("/api/cron/"))).toBe(false);
  });

  it("notices a descriptor that changed since the file was written", () => {
    const changed = allOperations().map((op) =>
      op.id === "getEstimate" ? { ...op, summary: `${op.summary} (changed)` } : op,
    );
    expect(endpointIndexText(changed)).not.toBe(readFileSync(ENDPOINT_INDEX_FILE, "utf8"));
  });
});

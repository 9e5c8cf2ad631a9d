/**
 * Every extra member an error can carry (`extra: { … }` of a DomainError anywhere under lib/) is
 * declared in `/openapi.json` `ErrorEnvelope` with a description, so a client reading the
 * document knows each fact an error may add (docs/api-conventions.md "Error body").
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../lib/openapi/document.js";

const root = path.resolve(import.meta.dirname, "../..");

/** The keys of every `extra: { … }` object literal in the TypeScript sources under `dir`. */
function extraKeys(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".generated.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/\bextra:\s*\{([^{}]*)\}/g)) {
      for (const part of match[1]!.split(",")) {
        const key = part.trim().match(/^([A-Za-z_][A-Za-z0-9_]*)\s*(?::|$)/)?.[1];
        if (key) found.set(key, path.relative(root, file));
      }
    }
  }
  return found;
}

describe("the error extras", () => {
  const envelope = (buildOpenApiDocument() as any).components.schemas.ErrorEnvelope;
  const declared = envelope.properties.error.properties as Record<string, { description?: string }>;

  it("finds the extras in the sources (the scan is not empty)", () => {
    const keys = extraKeys(path.join(root, "lib"));
    expect(keys.has("current_status")).toBe(true);
    expect(keys.has("reason")).toBe(true);
    expect(keys.size).toBeGreaterThan(10);
  });

  it("declares each one in ErrorEnvelope, with a description", () => {
    const missing = [...extraKeys(path.join(root, "lib"))]
      .filter(([key]) => !declared[key]?.description)
      .map(([key, file]) => `${key} (${file})`);
    expect(missing).toEqual([]);
  });
});

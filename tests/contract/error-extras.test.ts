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

/** The text of the object literal opening at `open` (a `{`), up to its matching `}`. */
function literalAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  return "";
}

/** The top-level keys of an object literal's text (`a: 1, b, c: { d: 2 }` → a, b, c). */
function topLevelKeys(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let part = "";
  for (const ch of body) {
    if ("{[(".includes(ch)) depth++;
    if ("}])".includes(ch)) depth--;
    if (ch === "," && depth === 0) {
      parts.push(part);
      part = "";
    } else part += ch;
  }
  parts.push(part);
  return parts.flatMap((p) => p.trim().match(/^([A-Za-z_][A-Za-z0-9_]*)\s*(?::|$)/)?.[1] ?? []);
}

/** The keys of every `extra: { … }` object literal in the TypeScript sources under `dir`. */
function extraKeys(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".generated.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/\bextra:\s*\{/g)) {
      const body = literalAt(text, match.index + match[0].length - 1);
      for (const key of topLevelKeys(body)) found.set(key, path.relative(root, file));
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
    // A literal with a nested object (lib/field/reassigned.ts) is read to its matching brace.
    expect(keys.has("assigned_to")).toBe(true);
    expect(keys.size).toBeGreaterThan(10);
  });

  it("declares each one in ErrorEnvelope, with a description", () => {
    const missing = [...extraKeys(path.join(root, "lib"))]
      .filter(([key]) => !declared[key]?.description)
      .map(([key, file]) => `${key} (${file})`);
    expect(missing).toEqual([]);
  });
});

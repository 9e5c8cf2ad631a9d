/**
 * The repository stands alone: no file outside tests/ points at documents that are not in it
 * (`interface-spec.md`, `contract.md`, or a `../shared/…` path that leaves the repository), and
 * every `docs/api-conventions.md "Section"` pointer names a heading of that page.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const files = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !f.startsWith("tests/"));

function text(rel: string): string | undefined {
  try {
    const content = readFileSync(path.join(root, rel), "utf8");
    return content.includes("\u0000") ? undefined : content;
  } catch {
    return undefined; // deleted in the work tree, or a folder
  }
}

/** Places in `rel`'s text that point outside the repository. */
function externalReferences(rel: string, content: string): string[] {
  const found: string[] = [];
  for (const m of content.matchAll(/(?<![\w.-])(?:interface-spec|contract)\.md\b/g)) found.push(m[0]);
  for (const m of content.matchAll(/(?:\.\.\/)+shared\/[\w.-]+/g)) {
    if (/\/(?:interface-spec|contract)\.md$/.test(m[0])) continue; // counted above
    const resolved = path.resolve(path.dirname(path.join(root, rel)), m[0]);
    if (path.relative(root, resolved).startsWith("..")) found.push(m[0]);
  }
  return found;
}

describe("references stay inside the repository", () => {
  it("the check finds what it must (and leaves imports inside the repository alone)", () => {
    expect(externalReferences("lib/x.ts", "// see contract.md and ../shared/interface-spec.md")).toEqual([
      "contract.md",
      "interface-spec.md",
    ]);
    expect(externalReferences("public/client/app.js", 'import { h } from "../shared/dom.js";')).toEqual([]);
    expect(externalReferences("README.md", "see `../shared/dom.js`")).toEqual(["../shared/dom.js"]);
  });

  it("no file outside tests/ names interface-spec.md, contract.md or a ../shared path outside the repository", () => {
    const offenders = files.flatMap((rel) => {
      const content = text(rel);
      return content ? externalReferences(rel, content).map((r) => `${rel}: ${r}`) : [];
    });
    expect(offenders).toEqual([]);
  });

  it('every docs/api-conventions.md "Section" pointer names a heading of that page', () => {
    const headings = new Set(
      [...readFileSync(path.join(root, "docs/api-conventions.md"), "utf8").matchAll(/^##+ (.+)$/gm)].map(
        (m) => m[1]!.trim(),
      ),
    );
    const dangling = files.flatMap((rel) => {
      const content = text(rel);
      if (!content) return [];
      return [...content.matchAll(/docs\/api-conventions\.md[`'"]?\)?\s*["“]([^"”\n]{1,80})["”]/g)]
        .filter((m) => !headings.has(m[1]!.trim()))
        .map((m) => `${rel}: "${m[1]}"`);
    });
    expect(dangling).toEqual([]);
  });
});

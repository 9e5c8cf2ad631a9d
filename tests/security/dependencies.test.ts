/**
 * The production dependency tree (issue 13 item 11): every entry of `dependencies` is imported by
 * code that runs in production (api/, lib/, scripts/), and the lock file's production tree holds
 * no version with a known advisory we track (path-to-regexp < 6.3.0: CVE-2024-45296 ReDoS;
 * undici < 6.21.1 on the 6.x line / < 5.28.5 on 5.x: CVE-2025-22150 and earlier).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; dev?: boolean }>;
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sources(full));
    else if (/\.(ts|js|mjs)$/.test(name)) out.push(full);
  }
  return out;
}

/** Major.minor.patch as a comparable tuple. */
function semver(v: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = v.split(/[.-]/).map(Number);
  return [a, b, c];
}
function below(v: string, min: string): boolean {
  const x = semver(v);
  const y = semver(min);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
}

describe("production dependencies", () => {
  const code = ["api", "lib", "scripts"]
    .flatMap((d) => sources(path.join(root, d)))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");

  it.each(Object.keys(pkg.dependencies))("%s is imported by production code", (name) => {
    const imported = new RegExp(
      `(from |import\\(|require\\.resolve\\()["']${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(/[^"']*)?["']`,
    );
    expect(
      imported.test(code),
      `${name} is in dependencies but nothing in api/, lib/ or scripts/ imports it`,
    ).toBe(true);
  });

  it("type packages and build tools are dev dependencies", () => {
    for (const name of Object.keys(pkg.dependencies)) {
      expect(name.startsWith("@types/"), name).toBe(false);
    }
    expect(pkg.dependencies["@vercel/node"]).toBeUndefined();
  });

  it("the production tree of the lock file has no known-vulnerable version", () => {
    const floors: Record<string, string[]> = {
      "path-to-regexp": ["6.3.0"],
      undici: ["5.28.5", "6.21.1"],
    };
    const bad: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      if (entry.dev || !entry.version) continue;
      const name = where.replace(/^.*node_modules\//, "");
      const mins = floors[name];
      if (!mins) continue;
      const sameMajor = mins.find((m) => semver(m)[0] === semver(entry.version!)[0]);
      if (!sameMajor || below(entry.version, sameMajor)) {
        if (semver(entry.version)[0] < Math.max(...mins.map((m) => semver(m)[0])) || sameMajor)
          bad.push(`${where}@${entry.version}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

/**
 * The browser libraries served from public/vendor/ are byte for byte the files of the locked
 * packages (devDependencies): a version bump without copying the new file, or a hand edit of a
 * vendored file, fails here. The staff pages load them as classic scripts (no build step).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Served file under public/vendor/ → the package file it copies. */
const VENDORED: [string, string][] = [
  ["simplewebauthn-browser.umd.min.js", "@simplewebauthn/browser/dist/bundle/index.umd.min.js"],
  ["chart.umd.min.js", "chart.js/dist/chart.umd.min.js"],
];

describe("vendored browser libraries", () => {
  it.each(VENDORED)("public/vendor/%s is the package's %s", (served, source) => {
    const vendored = readFileSync(path.join(root, "public", "vendor", served));
    // The package's own file in node_modules (its "exports" map does not list dist/ files).
    const original = readFileSync(path.join(root, "node_modules", source));
    expect(vendored.equals(original), `copy ${source} to public/vendor/${served}`).toBe(true);
  });
});

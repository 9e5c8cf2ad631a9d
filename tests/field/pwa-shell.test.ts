/**
 * The field app's service worker caches a complete app shell (issue 44 item 5; public/field/sw.js):
 * every module reachable from the page (static imports, followed through public/), every stylesheet
 * @import-ed by /styles.css and every local file the page links is in its SHELL list, and every
 * SHELL entry exists. A module added to the field app without being listed would leave the app
 * unable to start offline; this test names it.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const PUBLIC = path.join(import.meta.dirname, "..", "..", "public");
const read = (url: string) => readFileSync(path.join(PUBLIC, url), "utf8");

/** The SHELL array of sw.js, as URLs. */
function shellList(): string[] {
  const source = read("/field/sw.js");
  const block = /const SHELL = \[([\s\S]*?)\];/.exec(source)?.[1];
  if (!block) throw new Error("no SHELL list in public/field/sw.js");
  return [...block.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

/** URLs of the modules `entry` imports statically, transitively (same-origin, relative or absolute). */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const url = queue.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const source = read(url).replace(/\/\*[\s\S]*?\*\//g, "");
    for (const m of source.matchAll(
      /^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"|^\s*import\s+"([^"]+)"/gm,
    )) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith(".") && !spec.startsWith("/")) continue;
      queue.push(new URL(spec, `http://x${url}`).pathname);
    }
  }
  return seen;
}

describe("the field app's service worker shell", () => {
  const shell = new Set(shellList());

  it("lists every module the page loads, every stylesheet and every linked file", () => {
    const html = read("/field/index.html");
    const linked = [...html.matchAll(/(?:src|href)="(\/[^"#?]*)"/g)].map((m) => m[1]!);
    const styles = [...read("/styles.css").matchAll(/@import url\("([^"]+)"\)/g)].map((m) => m[1]!);
    const needed = new Set([...linked, ...styles, ...moduleGraph("/field/app.js")]);
    expect(needed.size).toBeGreaterThan(15);
    expect([...needed].filter((url) => !shell.has(url))).toEqual([]);
  });

  it("lists only files that exist", () => {
    const missing = [...shell].filter((url) => url !== "/field/" && !existsSync(path.join(PUBLIC, url)));
    expect(missing).toEqual([]);
  });
});

/**
 * docs/mcp.md's client snippets, run exactly as printed (issue 41 item 7): the fenced blocks marked
 * `mcp-client-2026-snippet` (the v2 SDK, `auto` negotiation) and `mcp-client-2025-snippet` (the v1
 * SDK with MCP Tasks) are taken from the Markdown, written to files and run with `npx tsx` (child
 * processes, the project's packages) against a started host with a key: each runs a sandbox task to
 * `completed`, the first in revision 2026-07-28, the second in 2025-11-25.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT, startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";

const run = promisify(execFile);

useTestDatabase();

/** The fenced TypeScript block of docs/mcp.md whose first line is `// <marker>`, as printed. */
function snippet(marker: string): string {
  const markdown = readFileSync(path.join(ROOT, "docs", "mcp.md"), "utf8");
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const found = blocks.filter((b) => b.startsWith(`// ${marker}`));
  expect(found, `one \`\`\`ts block starting with // ${marker} in docs/mcp.md`).toHaveLength(1);
  return found[0]!;
}

// Under node_modules (git-ignored), so that the snippets' imports resolve to the project's packages.
const scratch = path.join(ROOT, "node_modules", ".cache", `mcp-docs-snippets-${process.pid}`);
let host: LocalHost;
let key: string;

beforeAll(async () => {
  host = await startTestHost();
  key = await makeKey(["task_create", "audit_only"]);
  mkdirSync(scratch, { recursive: true });
}, 120_000);

afterAll(async () => {
  await host?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs snippet `marker` against the host; its standard output. */
async function runSnippet(marker: string): Promise<string> {
  const file = path.join(scratch, `${marker}.mts`);
  writeFileSync(file, snippet(marker));
  const { stdout } = await run("npx", ["tsx", file], {
    env: { ...process.env, MCP_URL: `${host.url}/api/mcp`, API_KEY: key },
    cwd: ROOT,
  });
  return stdout;
}

describe("docs/mcp.md's snippets, as printed", () => {
  it("the 2026-07-28 client (v2 SDK) negotiates the revision and follows a sandbox task to completed", async () => {
    const out = await runSnippet("mcp-client-2026-snippet");
    expect(out).toContain("revision 2026-07-28");
    expect(out).toMatch(/SANDBOX-[\w-]+: completed/);
  }, 180_000);

  it("the 2025-11-25 client (v1 SDK) runs a sandbox task to completed through MCP Tasks", async () => {
    const out = await runSnippet("mcp-client-2025-snippet");
    expect(out).toMatch(/^completed /m);
    expect(out).toContain("proof_files");
  }, 180_000);
});

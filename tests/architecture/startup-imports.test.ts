/**
 * What each function loads at import, its cold start (docs/performance.md "Cold start"): heavy
 * packages are imported by the request that needs them, so an instance that never needs them does
 * not pay for them. Each case imports one `api/` file in a fresh Node process (through tsx) with a
 * hook recording every module loaded (tests/fixtures/imports/record-loads.mjs), then checks the
 * packages and folders that must not be among them, and some that must (so the recorder is known
 * to see that function's imports).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const HOOK = join(ROOT, "tests", "fixtures", "imports", "record-loads.mjs");

/**
 * One import in a fresh process (tsx compiles the function's whole import graph): 2-4 s on a
 * quiet machine, many times that on a 2-core machine busy with other work. The process is
 * killed after 4 minutes and the test given 5 (issue 40); neither is a speed claim.
 */
const IMPORT_MS = 240_000;

/**
 * The npm packages and `lib/` folders loaded by importing `api/<entry>.ts` in a fresh process
 * (embedded database configured, none opened).
 * @throws Error when the import fails or the hook printed nothing
 */
function loadedBy(entry: string): string[] {
  const target = pathToFileURL(join(ROOT, "api", `${entry}.ts`)).href;
  const env: NodeJS.ProcessEnv = { ...process.env, RECORD_ROOT: ROOT, DATA_DIR: "memory://" };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      HOOK,
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(target)});`,
    ],
    { cwd: ROOT, env, encoding: "utf8", timeout: IMPORT_MS },
  );
  const line = run.stderr
    .split("\n")
    .reverse()
    .find((l) => l.startsWith('{"loaded":'));
  if (run.status !== 0 || !line) {
    throw new Error(`importing api/${entry}.ts failed (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  }
  return (JSON.parse(line) as { loaded: string[] }).loaded;
}

/** Packages no function needs before its first request reads a chain, sends, or e-mails. */
const ON_DEMAND = ["viem", "undici", "resend", "hardhat", "@electric-sql/pglite", "pg"];

/**
 * What the manifest and llms.txt do without: their endpoint list comes from
 * lib/system/endpoint-index.json, not from every descriptor and its schemas.
 */
const PUBLIC_DOCUMENT_WITHOUT = [
  ...ON_DEMAND,
  "@modelcontextprotocol/sdk",
  "drizzle-orm",
  "lib/openapi",
  "lib/analytics",
  "lib/billing",
  "lib/mcp",
];

const CASES: { entry: string; without: string[]; with: string[] }[] = [
  {
    // initialize and tools/list need the SDK, zod and the tool schemas (lib/pricing/schemas.ts …)
    // only; the v2 SDK's request classification routes every POST; its 2026 server is imported by
    // the first 2026-07-28 request.
    entry: "mcp",
    without: [...ON_DEMAND, "drizzle-orm", "luxon", "lib/policy", "lib/geo", "lib/privacy", "lib/mcp/modern"],
    with: ["@modelcontextprotocol/sdk", "@modelcontextprotocol/server", "zod", "lib/mcp"],
  },
  {
    // viem is loaded by the chain reader's first RPC request.
    entry: "cron/check-payments",
    without: [...ON_DEMAND, "@modelcontextprotocol/sdk"],
    with: ["lib/payments", "lib/jobs", "drizzle-orm"],
  },
  {
    // undici by the first outbound delivery, Resend by the first e-mail.
    entry: "cron/deliver-webhooks",
    without: [...ON_DEMAND, "@modelcontextprotocol/sdk"],
    with: ["lib/webhooks", "lib/mail", "lib/jobs"],
  },
  {
    // The submission and the cancellation are imported by a POST or a DELETE.
    entry: "submit-task",
    without: [...ON_DEMAND, "@modelcontextprotocol/sdk", "lib/pricing"],
    with: ["lib/tasks", "lib/http"],
  },
  {
    // The public reads: no database code until a request queries.
    entry: "status",
    without: [...ON_DEMAND, "@modelcontextprotocol/sdk", "drizzle-orm"],
    with: ["lib/http", "zod"],
  },
  {
    entry: "estimate",
    without: [...ON_DEMAND, "@modelcontextprotocol/sdk", "drizzle-orm"],
    with: ["lib/pricing", "lib/geo"],
  },
  {
    entry: "capabilities",
    without: PUBLIC_DOCUMENT_WITHOUT,
    with: ["lib/system", "lib/policy"],
  },
  {
    entry: "llms",
    without: PUBLIC_DOCUMENT_WITHOUT,
    with: ["lib/system", "lib/webhooks"],
  },
  {
    entry: "services",
    without: [...ON_DEMAND, "@modelcontextprotocol/sdk", "drizzle-orm"],
    with: ["lib/catalog"],
  },
];

describe("what a function loads at import", { timeout: IMPORT_MS + 60_000 }, () => {
  for (const c of CASES) {
    it(`api/${c.entry} loads ${c.with.join(", ")} but none of ${c.without.join(", ")}`, () => {
      const loaded = loadedBy(c.entry);
      expect(loaded).toEqual(expect.arrayContaining(c.with));
      expect(loaded.filter((name) => c.without.includes(name))).toEqual([]);
    });
  }
});

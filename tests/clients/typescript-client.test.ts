/**
 * The typed client (clients/typescript): its generated types match the served /openapi.json and
 * type-check with the example that uses it, and that example (examples/typed-client.ts) runs against
 * a started local host: an estimate and a sandbox task polled to completion.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT, startTestHost } from "../helpers/host.js";

const run = promisify(execFile);

useTestDatabase();

let host: LocalHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => {
  await host?.close();
});

describe("clients/typescript", () => {
  it("is generated from the current /openapi.json and type-checks with its example", async () => {
    // Exits 1 with a message when schema.d.ts is stale, or when tsc finds an error.
    await expect(run("npm", ["run", "--silent", "client:check"], { cwd: ROOT })).resolves.toBeDefined();
  }, 120_000);

  it("runs examples/typed-client.ts against a started server", async () => {
    const { stdout } = await run(
      path.join(ROOT, "node_modules", ".bin", "tsx"),
      ["examples/typed-client.ts"],
      {
        cwd: ROOT,
        env: { ...process.env, BASE: host.url },
      },
    );
    expect(stdout).toMatch(/estimate: \d+(\.\d+)? CAD/);
    expect(stdout).toMatch(/submitted SANDBOX-/);
    expect(stdout).toContain("status: completed");
  }, 60_000);
});

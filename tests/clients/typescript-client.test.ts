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

/**
 * Both tests run subprocesses: the generator and tsc (about 15 s on a quiet machine), and the
 * example through tsx. On a 2-core machine busy with other work they take several times as long,
 * so each test has 10 minutes: a guard against a hang, not a speed claim (issue 40).
 */
const SUBPROCESS_TEST_MS = 600_000;

useTestDatabase();

let host: LocalHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => {
  await host?.close();
});

describe("clients/typescript", () => {
  it(
    "is generated from the current /openapi.json and type-checks with its example",
    async () => {
      // Exits 1 with a message when schema.d.ts is stale, or when tsc finds an error.
      await expect(run("npm", ["run", "--silent", "client:check"], { cwd: ROOT })).resolves.toBeDefined();
    },
    SUBPROCESS_TEST_MS,
  );

  it(
    "runs examples/typed-client.ts against a started server",
    async () => {
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
    },
    SUBPROCESS_TEST_MS,
  );
});

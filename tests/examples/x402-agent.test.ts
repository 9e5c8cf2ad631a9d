/**
 * examples/x402-agent.ts run for real (npx tsx, a child process) against a started local host with
 * the two local chains: it reads payment.x402_url and pays the approved task with @x402/fetch.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { DEV_KEYS } from "../../scripts/dev/local-chain.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT } from "../helpers/host.js";
import { approvedTask, recordedFor, useX402World, world } from "../x402/chains.js";

const run = promisify(execFile);

useTestDatabase();
useX402World();

beforeAll(() => {
  // payment.x402_url is built on PUBLIC_BASE_URL: the started host's.
  process.env.PUBLIC_BASE_URL = world.host.url;
  resetConfig();
});

describe("examples/x402-agent.ts", () => {
  it("pays an approved task through payment.x402_url with the official x402 client", async () => {
    const { id } = await approvedTask();
    const { stdout } = await run("npx", ["tsx", path.join(ROOT, "examples", "x402-agent.ts")], {
      env: {
        ...process.env,
        BASE: world.host.url,
        API_KEY: world.agent,
        TASK_ID: id,
        PAYER_PRIVATE_KEY: DEV_KEYS.payer,
      },
      cwd: ROOT,
    });
    expect(stdout).toContain(`task ${id} is accepted_pending_payment`);
    expect(stdout).toMatch(/settled on eip155:31337: 0x[0-9a-f]{64}/);
    expect(stdout).toContain("status: paid");
    const r = await recordedFor(id);
    expect(r.task.status).toBe("paid");
    expect(r.transfers).toHaveLength(1);
    // npx, tsx compiling the example and the x402 and viem imports, then an on-chain payment: a
    // few seconds idle; sized for a loaded 2-core machine, a guard against a hang only.
  }, 180_000);
});

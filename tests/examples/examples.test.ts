/**
 * The examples/ scripts, each run for real against a started local host (the project's api/ on a
 * test database): the curl walk-through (sandbox and, with an admin key, a real task completed with
 * the sample photo), the MCP agent (official SDK client), and the webhook receiver checked against
 * the service's own signer (a good signature passes, a tampered body or a wrong secret does not).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestHeaders } from "../../lib/webhooks/signature.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT, startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";

const run = promisify(execFile);
const examples = path.join(ROOT, "examples");
// Test timeouts (120 s): each example is a child process (a shell script running curl a score of
// times, node with the MCP SDK) talking to the host in this process, a few seconds on an idle
// machine; the bound is sized for a loaded 2-core one and only guards against a hang.

useTestDatabase();

let host: LocalHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => {
  await host?.close();
});

describe("examples/curl-walkthrough.sh", () => {
  it("walks a sandbox task to completion", async () => {
    const { stdout } = await run("sh", [path.join(examples, "curl-walkthrough.sh")], {
      env: { ...process.env, BASE: host.url, ADMIN_KEY: "" },
    });
    expect(stdout).toMatch(/task_id: SANDBOX-/);
    expect(stdout).toContain("status: completed");
  }, 120_000);

  it("with an admin key, completes a real task with the sample photo as proof", async () => {
    const admin = await makeKey(["admin", "audit_only", "task_create"]);
    const { stdout } = await run("sh", [path.join(examples, "curl-walkthrough.sh")], {
      env: { ...process.env, BASE: host.url, ADMIN_KEY: admin },
    });
    expect(stdout).toContain("final status: completed, proof: sample-photo.png");
  }, 120_000);
});

describe("examples/mcp-agent.mjs", () => {
  it("gets an estimate and walks a sandbox task through MCP", async () => {
    const { stdout } = await run("node", [path.join(examples, "mcp-agent.mjs")], {
      env: { ...process.env, BASE: host.url },
      cwd: ROOT,
    });
    expect(stdout).toContain("get_estimate");
    expect(stdout).toMatch(/estimate: \d+(\.\d+)? CAD/);
    expect(stdout).toMatch(/submitted SANDBOX-/);
    expect(stdout).toContain("status: completed");
  }, 120_000);
});

describe("examples/webhook-receiver.mjs", () => {
  const secret = "whsec_example_secret_for_the_receiver_test";
  let receiver: ChildProcess;
  let url: string;
  let output = "";

  beforeAll(async () => {
    receiver = spawn("node", [path.join(examples, "webhook-receiver.mjs")], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    receiver.stdout!.on("data", (d) => {
      output += d;
    });
    // Until it says where it listens (node's start: well under a second idle; 30 s guard a hang).
    for (const deadline = Date.now() + 30_000; !/listening on (\S+)/.test(output) && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 50));
    url = /listening on (\S+)/.exec(output)![1]!;
  });
  afterAll(() => {
    receiver?.kill("SIGTERM");
  });

  const deliver = (body: string, headers: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: { ...headers, "X-Service-Event": "task.completed", "X-Service-Delivery": "evt_1" },
      body,
    });

  it("accepts a delivery signed by the service's signer", async () => {
    const { body, headers } = generateTestHeaders({
      secret,
      payload: { event: "task.completed", task_id: "TASK-1" },
    });
    expect((await deliver(body, headers)).status).toBe(204);
  });

  it("refuses a tampered body and a wrong secret", async () => {
    const { body, headers } = generateTestHeaders({ secret, payload: { task_id: "TASK-1" } });
    expect((await deliver(body.replace("TASK-1", "TASK-2"), headers)).status).toBe(401);
    const other = generateTestHeaders({ secret: "whsec_another", payload: { task_id: "TASK-1" } });
    expect((await deliver(other.body, other.headers)).status).toBe(401);
    const stale = generateTestHeaders({
      secret,
      payload: {},
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect((await deliver(stale.body, stale.headers)).status).toBe(401);
  });
});

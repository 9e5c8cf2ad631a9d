/**
 * A real (non-sandbox) task followed only through MCP Tasks, with the SDK client over real
 * HTTP: submitted task-augmented, reviewed by the operator, paid with the exact USDC amount on
 * a local Hardhat chain (the payment checker sees it), dispatched and completed with a photo;
 * the agent observes each step with tasks/get, takes the payment instructions and the final
 * result from tasks/result and reads the photo as a resource, its SHA-256 checked.
 */
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ReadResourceResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { ACCOUNTS, type LocalChain, startLocalChain } from "../../scripts/dev/local-chain.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { completeTask, pngProof, reviewTask, validTask } from "../helpers/tasks.js";

const WALLET = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
const ENV = [
  "ETHEREUM_RPC_URL",
  "ETHEREUM_CHAIN_ID",
  "ETHEREUM_USDC_CONTRACT",
  "ETHEREUM_WALLET",
  "ETHEREUM_CONFIRMATIONS",
] as const;

useTestDatabase();

const saved: Record<string, string | undefined> = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let chain: LocalChain;
let token: Address;
let host: LocalHost;

beforeAll(async () => {
  chain = await startLocalChain(31337);
  token = await chain.deployToken();
  await chain.mint(token, ACCOUNTS.payer, 10_000_000_000n);
  Object.assign(process.env, {
    ETHEREUM_RPC_URL: chain.url,
    ETHEREUM_CHAIN_ID: "31337",
    ETHEREUM_USDC_CONTRACT: token,
    ETHEREUM_WALLET: WALLET,
    ETHEREUM_CONFIRMATIONS: "1",
  });
  resetConfig();
  resetLimiters();
  host = await startTestHost();
}, 120_000);

afterAll(async () => {
  await host?.close();
  await outboxIdle();
  await chain?.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetConfig();
});

describe("a paid task observed through MCP Tasks", () => {
  it("goes working → input_required → working → completed, paid on the local chain", async () => {
    const key = await makeKey(["audit_only", "task_create"]);
    const admin = await makeKey(["admin"]);
    const client = new Client({ name: "paying-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), {
        requestInit: { headers: { "x-api-key": key } },
      }),
    );
    const tasks = client.experimental.tasks;

    const created = await client.request(
      { method: "tools/call", params: { name: "submit_task", arguments: { ...validTask }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect(taskId).toMatch(/^TASK-/);
    expect(created.task).toMatchObject({ status: "working", pollInterval: 300_000 });
    expect(created._meta?.access_token).toBeUndefined();
    expect((await tasks.getTask(taskId)).statusMessage).toMatch(/^received: Wait for human review/);

    // The operator approves it: the agent's task now waits for its payment.
    const { res } = await reviewTask(admin, { task_id: taskId, action: "approve" });
    expect(res.status).toBe(200);
    const awaiting = await tasks.getTask(taskId);
    expect(awaiting).toMatchObject({ status: "input_required", pollInterval: 60_000 });
    expect(awaiting.statusMessage).toMatch(/Pay exactly \d+\.\d{6} USDC/);
    const instructions = (await tasks.getTaskResult(taskId, CallToolResultSchema)).structuredContent as any;
    expect(instructions).toMatchObject({ status: "accepted_pending_payment", mcp_status: "input_required" });
    const network = instructions.payment.networks[0];
    expect(network).toMatchObject({ network: "ethereum", chain_id: 31337 });

    // The agent pays the exact amount on the chain; the payment checker matches it.
    const micro = BigInt(instructions.payment_usdc.replace(".", ""));
    await chain.transfer(token, ACCOUNTS.payer, network.wallet, micro);
    await chain.mine(1);
    const run: any = await (await host.invoke("/api/cron/check-payments")).json();
    expect(run).toMatchObject({ ok: true, details: { matched: 1 } });
    const paid = await tasks.getTask(taskId);
    expect(paid.status).toBe("working");
    expect(paid.statusMessage).toMatch(/^paid:/);
    // Still working: no result yet.
    await expect(tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });

    // The operator dispatches and completes it with a photo.
    expect((await completeTask(admin, { task_id: taskId, action: "dispatch" })).res.status).toBe(200);
    expect((await tasks.getTask(taskId)).statusMessage).toMatch(/^dispatched:/);
    const photo = pngProof("storefront.png");
    const done = await completeTask(admin, {
      task_id: taskId,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "Storefront photographed; hours posted 9-17.",
      proof_files: [photo],
    });
    expect(done.res.status).toBe(200);
    const completed = await tasks.getTask(taskId);
    expect(completed.status).toBe("completed");
    expect(completed.pollInterval).toBeUndefined();

    const result = await tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      status: "completed",
      operator_notes: "Storefront photographed; hours posted 9-17.",
      payment: { tx_hash: expect.stringMatching(/^0x/) },
    });
    const link = result.content.find((c) => c.type === "resource_link") as any;
    expect(link).toMatchObject({
      uri: `task://${taskId}/proof/1`,
      name: "storefront.png",
      mimeType: "image/png",
    });
    const read = await client.request(
      { method: "resources/read", params: { uri: link.uri } },
      ReadResourceResultSchema,
    );
    const bytes = Buffer.from((read.contents[0] as { blob: string }).blob, "base64");
    expect(bytes.equals(Buffer.from(photo.content, "base64"))).toBe(true);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(link._meta.sha256);

    const listed = await tasks.listTasks();
    expect(listed.tasks).toEqual([expect.objectContaining({ taskId, status: "completed" })]);
    await client.close();
  }, 120_000);
});

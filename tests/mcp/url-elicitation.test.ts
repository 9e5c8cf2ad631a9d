/**
 * MCP URL elicitation of a payment (issue 28 item 2), with the official SDK client over real HTTP:
 * a client that declares `elicitation.url` gets a self-contained session id at `initialize`
 * (lib/mcp/session.ts), and `tasks/result` of its approved task awaiting payment answers -32042
 * with the task's pay page; the page's read (GET /api/task-pay with the pay token) shows the
 * payment and nothing else, refuses a forged or foreign token, and follows the task once paid.
 * A client without the capability still gets the result with the payment instructions; a session
 * id that is not ours is 404 -32001.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { recordPayment, reviewTask, validTask } from "../helpers/tasks.js";

const ENV = {
  ETHEREUM_RPC_URL: "http://127.0.0.1:9/unused",
  ETHEREUM_CHAIN_ID: "31337",
  ETHEREUM_USDC_CONTRACT: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  ETHEREUM_WALLET: "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
};

useTestDatabase();

const saved = Object.fromEntries(Object.keys(ENV).map((k) => [k, process.env[k]]));
let host: LocalHost;
let admin: string;
let key: string;

beforeAll(async () => {
  Object.assign(process.env, ENV);
  resetConfig();
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  key = await makeKey(["audit_only", "task_create"]);
}, 120_000);

afterAll(async () => {
  await host?.close();
  await outboxIdle();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfig();
});

/** An SDK client on the host with `key`, declaring `capabilities`. */
async function connect(capabilities: Record<string, unknown>) {
  const client = new Client({ name: "eliciting-agent", version: "1.0.0" }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), {
    requestInit: { headers: { "x-api-key": key } },
  });
  await client.connect(transport);
  return { client, transport };
}

/** A real task submitted task-augmented through `client` and approved: it awaits its payment. */
async function approvedTask(client: Client): Promise<string> {
  const created = await client.request(
    { method: "tools/call", params: { name: "submit_task", arguments: { ...validTask }, task: {} } },
    CreateTaskResultSchema,
  );
  const taskId = created.task.taskId;
  expect((await reviewTask(admin, { task_id: taskId, action: "approve" })).res.status).toBe(200);
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe("input_required");
  return taskId;
}

/** GET /api/task-pay with `query` (and `headers`). */
async function readPayment(query: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${host.url}/api/task-pay?${new URLSearchParams(query)}`, { headers });
  return { status: res.status, body: (await res.json()) as any };
}

describe("URL elicitation of a payment over MCP", () => {
  it("sends a client declaring elicitation.url to the pay page, whose read shows the payment only", async () => {
    const { client, transport } = await connect({ elicitation: { url: {} } });
    expect(transport.sessionId).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const taskId = await approvedTask(client);

    const error = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    const mcpError = error as McpError;
    expect(mcpError.code).toBe(-32042);
    // The SDK keeps the elicitations of -32042; the wire also carries the task, status and amount.
    const raw = await fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": transport.sessionId!,
        "x-api-key": key,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/result", params: { taskId } }),
    });
    const wire = ((await raw.json()) as any).error;
    expect(wire).toMatchObject({
      code: -32042,
      data: { task_id: taskId, status: "accepted_pending_payment" },
    });
    const data = { ...wire.data, ...(mcpError.data as any) };
    expect(data.payment_usdc).toMatch(/^\d+\.\d{6}$/);
    expect(data.elicitations).toHaveLength(1);
    const elicitation = data.elicitations[0];
    expect(elicitation).toMatchObject({ mode: "url", elicitationId: `pay-${taskId}` });
    expect(elicitation.message).toContain(data.payment_usdc);
    const url = new URL(elicitation.url);
    expect(url.pathname).toBe("/pay/");
    expect(url.search).toBe("");
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get("task_id")).toBe(taskId);
    const payToken = fragment.get("pay_token")!;

    // The page's read: the payment block, nothing of the task's content.
    const view = await readPayment({ task_id: taskId, pay_token: payToken });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      task_id: taskId,
      status: "accepted_pending_payment",
      awaiting_payment: true,
      sandbox: false,
      payment: {
        payment_usdc: data.payment_usdc,
        networks: [expect.objectContaining({ wallet: expect.any(String) })],
      },
    });
    expect(Object.keys(view.body).sort()).toEqual(
      ["awaiting_payment", "payment", "sandbox", "service_type", "status", "task_id"].sort(),
    );
    // The owner's key reads it too; a stranger, a forged token and nothing at all do not.
    expect((await readPayment({ task_id: taskId }, { "x-api-key": key })).status).toBe(200);
    const stranger = await makeKey(["audit_only", "task_create"]);
    expect((await readPayment({ task_id: taskId }, { "x-api-key": stranger })).status).toBe(404);
    expect((await readPayment({ task_id: taskId })).status).toBe(404);
    const [h, p, s] = payToken.split(".");
    const forged = `${h}.${p}.${s!.slice(0, -4)}AAAA`;
    const refused = await readPayment({ task_id: taskId, pay_token: forged });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: "NOT_FOUND", field: "task_id" });

    // A token made for one task does not open another.
    const other = await approvedTask(client);
    expect((await readPayment({ task_id: other, pay_token: payToken })).status).toBe(404);

    // Paid: the page's read follows it, and tasks/result is back to "still working".
    await recordPayment(admin, { task_id: taskId, tx_hash: `0x${"ab".repeat(32)}`, network: "ethereum" });
    const paid = await readPayment({ task_id: taskId, pay_token: payToken });
    expect(paid.body).toMatchObject({ status: "paid", awaiting_payment: false });
    expect(paid.body.payment.paid_at).toEqual(expect.any(String));
    await expect(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toMatchObject(
      {
        code: -32602,
      },
    );
    await client.close();
  }, 60_000);

  it("gives a client without the capability the result with the payment instructions", async () => {
    const { client, transport } = await connect({ elicitation: { form: {} } });
    expect(transport.sessionId).toBeDefined();
    const taskId = await approvedTask(client);
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      status: "accepted_pending_payment",
      mcp_status: "input_required",
      payment: { payment_usdc: expect.stringMatching(/^\d+\.\d{6}$/) },
    });
    await client.close();
  }, 60_000);

  it("answers a session id that is not ours with 404 -32001", async () => {
    const res = await fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": "eyJhbGciOiJIUzI1NiJ9.eyJjYXBzIjp7fX0.not-a-signature",
        "x-api-key": key,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toMatchObject({ code: -32001 });
  });
});

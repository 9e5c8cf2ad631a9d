/**
 * MCP Tasks, proof files as resources and the keyless flow, through the SDK's own Client over
 * real HTTP against the local host (real PostgreSQL): a sandbox task driven through tasks/get →
 * tasks/result, cancellation through tasks/cancel, tasks/list, resources/read with the SHA-256
 * checked, refusals, and clients of older protocol revisions.
 */
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListResourceTemplatesResultSchema,
  ListTasksResultSchema,
  McpError,
  ReadResourceResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { pdfText } from "../billing/pdf-text.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let key: string;
let otherKey: string;

beforeAll(async () => {
  host = await startTestHost();
  key = await makeKey(["audit_only", "task_create", "task_cancel"]);
  otherKey = await makeKey(["audit_only", "task_create", "task_cancel"]);
});
afterAll(() => host.close());

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "tasks-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), { requestInit: { headers } }),
  );
  return client;
}

/** A task-augmented submit_task. */
function createTask(client: Client, args: Record<string, unknown>) {
  return client.request(
    { method: "tools/call", params: { name: "submit_task", arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
}

/** tasks/get with extra credential params (the SDK's getTask sends only the id). */
function getTask(client: Client, taskId: string, extra: Record<string, unknown> = {}) {
  return client.request({ method: "tasks/get", params: { taskId, ...extra } }, GetTaskResultSchema);
}

function taskResult(client: Client, taskId: string, extra: Record<string, unknown> = {}) {
  return client.request({ method: "tasks/result", params: { taskId, ...extra } }, CallToolResultSchema);
}

function readResource(client: Client, uri: string, extra: Record<string, unknown> = {}) {
  return client.request({ method: "resources/read", params: { uri, ...extra } }, ReadResourceResultSchema);
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("MCP Tasks", () => {
  it("negotiates 2025-11-25, advertises tasks and resources, and marks submit_task task-capable", async () => {
    const client = await connect();
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "submit_task")?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "get_estimate")?.execution).toBeUndefined();
    for (const tool of tools) expect(tool.outputSchema?.type).toBe("object");
    const { resourceTemplates } = await client.request(
      { method: "resources/templates/list" },
      ListResourceTemplatesResultSchema,
    );
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "task://{task_id}/proof/{n}",
      "task://{task_id}/receipt",
      // The task card (MCP Apps): always listed in this revision (tests/mcp/mcp-app.test.ts).
      "ui://physical-tasks/task/{task_id}",
    ]);
    await client.close();
  });

  it("drives a keyless sandbox task through tasks/get and tasks/result, proof read as a resource", async () => {
    const client = await connect();
    const created = await createTask(client, { ...validTask });
    const taskId = created.task.taskId;
    expect(taskId).toMatch(/^SANDBOX-/);
    expect(created.task).toMatchObject({ status: "working", ttl: null, pollInterval: 1000 });
    const token = created._meta?.access_token as string;
    expect(token).toEqual(expect.any(String));

    // Without the token the task is not found (as an unknown one).
    expect((await rejection(getTask(client, taskId))).code).toBe(-32602);
    expect((await rejection(getTask(client, taskId, { access_token: "wrong" }))).code).toBe(-32602);
    // A task still working has no result yet: poll first.
    const early = await rejection(taskResult(client, taskId, { access_token: token }));
    expect(early.code).toBe(-32602);
    expect(early.data).toMatchObject({ status: "received", poll_interval_ms: 1000 });

    // Each tasks/get advances the sandbox task one step: review, payment, dispatch, completion.
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const task = await getTask(client, taskId, { access_token: token });
      seen.push(task.status);
      expect(task.taskId).toBe(taskId);
      expect(task.statusMessage).toEqual(expect.any(String));
      if (task.status === "completed") break;
    }
    expect(seen).toEqual(["working", "working", "working", "completed"]);

    const result = await taskResult(client, taskId, { access_token: token });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId });
    const data = result.structuredContent as any;
    expect(data).toMatchObject({ task_id: taskId, status: "completed", mcp_status: "completed" });
    expect(data.operator_notes).toMatch(/Sandbox/);
    expect(data).not.toHaveProperty("proof_files_data");
    // The text stays a summary line: no file bodies anywhere in the result.
    expect(JSON.stringify(result).length).toBeLessThan(8_000);
    const [text, link] = result.content as any[];
    expect(text.type).toBe("text");
    expect(link).toMatchObject({
      type: "resource_link",
      uri: `task://${taskId}/proof/1`,
      mimeType: "image/png",
    });
    expect(data.proof_files[0]).toMatchObject({
      uri: link.uri,
      size_bytes: link.size,
      sha256: link._meta.sha256,
    });

    const read = await readResource(client, link.uri, { access_token: token });
    const content = read.contents[0] as { uri: string; mimeType?: string; blob: string };
    expect(content).toMatchObject({ uri: link.uri, mimeType: "image/png" });
    const bytes = Buffer.from(content.blob, "base64");
    expect(bytes.length).toBe(link.size);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(link._meta.sha256);

    // Refused: no credential, another task's token, another key, a file that does not exist.
    expect((await rejection(readResource(client, link.uri))).code).toBe(-32002);
    expect((await rejection(readResource(client, link.uri, { api_key: otherKey }))).code).toBe(-32002);
    expect(
      (await rejection(readResource(client, `task://${taskId}/proof/2`, { access_token: token }))).code,
    ).toBe(-32002);
    const other = await connect({ "x-api-key": otherKey });
    expect((await rejection(readResource(other, link.uri))).code).toBe(-32002);
    expect((await rejection(other.experimental.tasks.getTask(taskId))).code).toBe(-32602);
    await other.close();

    // The same proof through the keyless tools: a link, never the body.
    const status = await client.callTool({
      name: "check_task_status",
      arguments: { task_id: taskId, access_token: token },
    });
    expect((status.structuredContent as any).proof_files[0].sha256).toBe(link._meta.sha256);
    expect(JSON.stringify(status)).not.toContain(content.blob.slice(0, 200));
    await client.close();
  });

  it("runs a sandbox task to completed inside the SDK's callToolStream, proof as a resource link", async () => {
    const client = await connect({ "x-api-key": key });
    await client.listTools();
    const messages: any[] = [];
    for await (const message of client.experimental.tasks.callToolStream({
      name: "submit_task",
      arguments: { ...validTask, sandbox: true },
    })) {
      messages.push(message);
    }
    const types = messages.map((m) => m.type);
    expect(types[0], JSON.stringify(messages.map((m) => m.error?.message))).toBe("taskCreated");
    expect(types.at(-1)).toBe("result");
    const taskId = messages[0].task.taskId;
    // The simulated payment happens by itself: never input_required, working until completed.
    const statuses = messages.filter((m) => m.type === "taskStatus").map((m) => m.task.status);
    expect(statuses).not.toContain("input_required");
    expect(statuses.at(-1)).toBe("completed");
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set(["working"]));
    const result = messages.at(-1).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      task_id: taskId,
      status: "completed",
      mcp_status: "completed",
      owned_by_caller: true,
    });
    const link = result.content.find((c: any) => c.type === "resource_link");
    expect(link).toMatchObject({ uri: `task://${taskId}/proof/1`, mimeType: "image/png" });
    const read = await readResource(client, link.uri);
    expect((read.contents[0] as { mimeType?: string }).mimeType).toBe("image/png");

    // The key sees it through the SDK's own task methods (header key), and lists it.
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    await client.close();
  });

  it("cancels through tasks/cancel under the rules of DELETE /api/submit-task", async () => {
    const client = await connect({ "x-api-key": key });
    const { task } = await createTask(client, { ...validTask, sandbox: true });
    // Another key may neither see nor cancel it.
    const other = await connect({ "x-api-key": otherKey });
    expect((await rejection(other.experimental.tasks.cancelTask(task.taskId))).code).toBe(-32602);
    await other.close();

    const cancelled = await client.request(
      { method: "tasks/cancel", params: { taskId: task.taskId } },
      CancelTaskResultSchema,
    );
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
    // Terminal: a second cancel is refused (CONFLICT), and the result is the cancelled task.
    const again = await rejection(client.experimental.tasks.cancelTask(task.taskId));
    expect(again.code).toBe(-32602);
    expect((again.data as any).error.code).toBe("CONFLICT");
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: "cancelled", mcp_status: "cancelled" });
    await client.close();
  });

  it("lets a keyless caller follow, list and cancel its task with the access_token", async () => {
    const client = await connect();
    const submitted = await client.callTool({ name: "submit_task", arguments: { ...validTask } });
    const { task_id: taskId, access_token: token } = submitted.structuredContent as any;
    expect(token).toEqual(expect.any(String));

    const listed = await client.request(
      { method: "tasks/list", params: { access_token: token } },
      ListTasksResultSchema,
    );
    expect(listed.tasks.map((t) => t.taskId)).toEqual([taskId]);
    expect((await rejection(client.experimental.tasks.listTasks())).code).toBe(-32602);

    const noToken = await client.callTool({ name: "cancel_task", arguments: { task_id: taskId } });
    expect((noToken._meta as any).error.code).toBe("UNAUTHORIZED");
    const wrong = await client.callTool({
      name: "cancel_task",
      arguments: { task_id: taskId, access_token: "x" },
    });
    expect((wrong._meta as any).error.code).toBe("FORBIDDEN");
    const cancelled = await client.callTool({
      name: "cancel_task",
      arguments: { task_id: taskId, access_token: token, reason: "changed my mind" },
    });
    expect(cancelled.isError).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ task_id: taskId, status: "cancelled" });
    const status = await client.callTool({
      name: "check_task_status",
      arguments: { task_id: taskId, access_token: token },
    });
    expect(status.structuredContent).toMatchObject({ status: "cancelled", mcp_status: "cancelled" });
    await client.close();
  });

  it("gives a keyless requester its USDC receipt as a resource, JSON and PDF, with its access_token only", async () => {
    // A keyless HTTP submission is a real task with an access_token (keyless MCP ones are sandbox).
    const admin = await makeKey(["admin"]);
    const client = await connect();
    const submitted = await submitTask({ ...validTask, lang: "fr" });
    expect(submitted.res.status).toBe(201);
    const { task_id: taskId, access_token: token } = submitted.body;
    const otherToken = (await submitTask(validTask)).body.access_token as string;
    const uri = `task://${taskId}/receipt`;
    expect((await reviewTask(admin, { task_id: taskId, action: "approve", price_cad: 120 })).res.status).toBe(
      200,
    );
    // Approved, not paid: no receipt yet.
    expect((await rejection(readResource(client, uri, { access_token: token }))).code).toBe(-32002);

    const tx = `0x${"ef".repeat(32)}`;
    expect((await recordPayment(admin, { task_id: taskId, tx_hash: tx, network: "base" })).res.status).toBe(
      200,
    );
    const status = await client.callTool({
      name: "check_task_status",
      arguments: { task_id: taskId, access_token: token },
    });
    const receiptId = (status.structuredContent as any).payment.receipt_invoice_id as string;
    expect(receiptId).toMatch(/^inv_/);

    const read = await readResource(client, uri, { access_token: token });
    expect(read.contents.map((c) => c.mimeType)).toEqual(["application/json", "application/pdf"]);
    const [json, pdf] = read.contents as unknown as [{ text: string }, { blob: string }];
    const invoice = JSON.parse(json.text);
    expect(invoice).toMatchObject({
      invoice_id: receiptId,
      kind: "usdc_receipt",
      lang: "fr",
      subtotal_cad: 120,
      payment: { network: "base", tx_hash: tx },
      bill_to: { account_id: null, email: validTask.requester_contact },
    });
    expect(read.contents[0]!._meta).toMatchObject({ invoice_id: receiptId, number: invoice.number });
    const text = await pdfText(new Uint8Array(Buffer.from(pdf.blob, "base64")));
    expect(text).toContain("REÇU DE PAIEMENT USDC");
    expect(text).toContain(`Numéro: ${invoice.number}`);
    expect(text).toContain(`Transaction: ${tx}`);

    // Another task's token, no credential, or another key: as if there were no such resource.
    for (const extra of [{ access_token: otherToken }, {}, { api_key: otherKey }]) {
      expect((await rejection(readResource(client, uri, extra))).code).toBe(-32002);
    }
    // The admin key reads it; an unknown task or a malformed URI is not found either.
    const asAdmin = await readResource(client, uri, { api_key: admin });
    expect(JSON.parse((asAdmin.contents[0] as { text: string }).text).invoice_id).toBe(receiptId);
    expect(
      (await rejection(readResource(client, "task://TASK-nope/receipt", { access_token: token }))).code,
    ).toBe(-32002);
    expect(
      (await rejection(readResource(client, `task://${taskId}/receipts`, { access_token: token }))).code,
    ).toBe(-32002);
    await client.close();
  });

  it("lists a key's tasks with list_my_tasks, page by page", async () => {
    const lister = await makeKey(["audit_only", "task_create"]);
    const client = await connect({ "x-api-key": lister });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await client.callTool({
        name: "submit_task",
        arguments: { ...validTask, sandbox: true },
      });
      ids.push((created.structuredContent as any).task_id);
    }
    const first = (await client.callTool({ name: "list_my_tasks", arguments: { limit: 2 } }))
      .structuredContent as any;
    expect(first.tasks.map((t: any) => t.task_id)).toEqual([ids[2], ids[1]]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (
      await client.callTool({ name: "list_my_tasks", arguments: { limit: 2, cursor: first.next_cursor } })
    ).structuredContent as any;
    expect(second).toMatchObject({ tasks: [{ task_id: ids[0], mcp_status: "working" }], next_cursor: null });
    const bad = await client.callTool({ name: "list_my_tasks", arguments: { cursor: "nope" } });
    expect((bad._meta as any).error.code).toBe("VALIDATION_ERROR");
    await client.close();
  });
});

describe("MCP protocol details", () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it("answers a call to an unknown tool with JSON-RPC -32602 in an HTTP 200", async () => {
    const res = await post({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "launch_rocket" },
    });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body.id).toBe(3);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/launch_rocket/);
    expect(body.result).toBeUndefined();
  });

  it.each(["2025-06-18", "2025-03-26"])(
    "serves a %s client as before: its revision, no tasks, plain tool calls",
    async (version) => {
      const init: any = await (
        await post({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "old", version: "0" } },
        })
      ).json();
      expect(init.result.protocolVersion).toBe(version);
      expect(init.result.capabilities.tools).toBeDefined();
      expect(init.result.capabilities.tasks).toBeUndefined();
      const headers = { "mcp-protocol-version": version, "x-api-key": key };
      const call: any = await (
        await post(
          {
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "submit_task", arguments: { ...validTask } },
          },
          headers,
        )
      ).json();
      expect(call.result.structuredContent.task_id).toMatch(/^TASK-/);
      const tasksGet: any = await (
        await post(
          {
            jsonrpc: "2.0",
            id: 3,
            method: "tasks/get",
            params: { taskId: call.result.structuredContent.task_id },
          },
          headers,
        )
      ).json();
      expect(tasksGet.error.code).toBe(-32601);
    },
  );

  it("describes the Tasks flow and the keyless flow in /llms.txt", async () => {
    const text = await (await fetch(`${host.url}/llms.txt`)).text();
    expect(text).toContain("## MCP");
    for (const word of [
      "tasks/get",
      "tasks/result",
      "input_required",
      "task://{task_id}/proof/{n}",
      "access_token",
    ]) {
      expect(text).toContain(word);
    }
  });

  it("still answers the latest revision to a client asking for an unknown one", async () => {
    const init: any = await (
      await post({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2099-01-01",
          capabilities: {},
          clientInfo: { name: "new", version: "0" },
        },
      })
    ).json();
    expect(init.result.protocolVersion).toBe("2025-11-25");
    expect(init.result.capabilities.tasks).toBeDefined();
  });
});

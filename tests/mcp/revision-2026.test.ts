/**
 * MCP protocol revision 2026-07-28 beside 2025-11-25 on /api/mcp (issue 41 items 1, 2, 3, 5), over
 * real HTTP against the local host:
 * - the official v2 client pinned to 2026-07-28 and in `auto` mode connects (server/discover) and
 *   runs estimate → sandbox task → completed with its proof read as a resource; the v1 client still
 *   gets revision 2025-11-25 with its MCP Tasks;
 * - the Tasks extension (SEP-2663): a client declaring it gets a task handle from submit_task,
 *   `tasks/get` runs a sandbox task to `completed` with the result inlined, an unknown or foreign
 *   task is -32602, `tasks/cancel` follows the cancellation rules; a client without it gets the
 *   ordinary result. The SDK has no client for the extension, so those calls are raw JSON-RPC
 *   with the revision's headers and envelope, as the spec writes them;
 * - the revision's faults: a header disagreeing with the body → 400 -32020; an unsupported
 *   revision → 400 -32022 listing ours; a request without the envelope's version → 400;
 * - cache hints on tools/list, server/discover and resources/read (`private`);
 * - a `traceparent` in `_meta` is kept with the request id on the activity row;
 * - two hosts on one database serve alternate requests of one client with the same answers.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flushActivity } from "../../lib/activity/record-activity.js";
import { getDb } from "../../lib/db/client.js";
import { activityLog } from "../../lib/db/schema/index.js";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import {
  envelope2026,
  REVISION_2026,
  type Rpc2026Options,
  rpc2026,
  TASKS_EXTENSION,
} from "../helpers/mcp-2026.js";
import { reviewTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const REVISION = REVISION_2026;
const TASKS = TASKS_EXTENSION;
let host: LocalHost;
let second: LocalHost;
let key: string;
let otherKey: string;
let admin: string;

beforeAll(async () => {
  host = await startTestHost();
  second = await startTestHost();
  key = await makeKey(["task_create", "audit_only", "task_cancel"]);
  otherKey = await makeKey(["task_create", "audit_only", "task_cancel"]);
  admin = await makeKey(["admin"]);
}, 120_000);

afterAll(async () => {
  await host?.close();
  await second?.close();
  await outboxIdle();
});

/** A raw request of revision 2026-07-28 to /api/mcp, with `key` unless the headers name another. */
function rpc(
  method: string,
  params: Record<string, unknown>,
  options: Rpc2026Options & { on?: LocalHost; anonymous?: boolean } = {},
) {
  return rpc2026(`${(options.on ?? host).url}/api/mcp`, method, params, {
    ...options,
    headers: { ...(options.anonymous ? {} : { "x-api-key": key }), ...options.headers },
  });
}

/** A v2 SDK client on /api/mcp with `key`, negotiating `mode`. */
async function connectV2(mode: "auto" | { pin: string }, capabilities: Record<string, unknown> = {}) {
  const client = new ClientV2(
    { name: "v2-agent", version: "1.0.0" },
    { versionNegotiation: { mode }, capabilities },
  );
  await client.connect(
    new TransportV2(new URL(`${host.url}/api/mcp`), { requestInit: { headers: { "x-api-key": key } } }),
  );
  return client;
}

describe("the official clients", () => {
  it("v2 pinned to 2026-07-28: discover, estimate, a sandbox task to completed, its proof as a resource", async () => {
    const client = await connectV2({ pin: REVISION });
    expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("submit_task");
    const estimate = await client.callTool({
      name: "get_estimate",
      arguments: { service_type: "SVC-01", hours: 1 },
    });
    expect(estimate.isError).toBeFalsy();
    expect(estimate.structuredContent).toMatchObject({ currency: "CAD" });
    const submitted = await client.callTool({
      name: "submit_task",
      arguments: { ...validTask, sandbox: true },
    });
    const taskId = (submitted.structuredContent as { task_id: string }).task_id;
    expect(taskId).toMatch(/^(TASK|SANDBOX)-/);
    let status = "";
    let last: any;
    for (let i = 0; i < 12 && status !== "completed"; i++) {
      last = await client.callTool({ name: "check_task_status", arguments: { task_id: taskId } });
      status = (last.structuredContent as { status: string }).status;
    }
    expect(status).toBe("completed");
    const proof = (last.structuredContent as { proof_files: { uri: string }[] }).proof_files[0]!;
    const read = await client.readResource({ uri: proof.uri });
    expect(read.contents[0]).toMatchObject({ uri: proof.uri });
    await client.close();
  });

  it("v2 in auto mode negotiates 2026-07-28; the v1 client gets 2025-11-25 with MCP Tasks", async () => {
    const auto = await connectV2("auto");
    expect(auto.getNegotiatedProtocolVersion()).toBe(REVISION);
    await auto.close();
    const v1 = new ClientV1({ name: "v1-agent", version: "1.0.0" });
    const transport = new TransportV1(new URL(`${host.url}/api/mcp`), {
      requestInit: { headers: { "x-api-key": key } },
    });
    await v1.connect(transport);
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(v1.getServerCapabilities()?.tasks).toBeDefined();
    await v1.close();
  });
});

describe("tracing", () => {
  it("keeps a traceparent from _meta with the request id on the activity row", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const res = await fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": REVISION,
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { ...envelope2026(), traceparent } },
      }),
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("x-request-id")!;
    await flushActivity();
    const [row] = await (await getDb())
      .select()
      .from(activityLog)
      .where(eq(activityLog.requestId, requestId));
    expect(row).toMatchObject({ endpoint: "/api/mcp", traceparent });
  });
});

describe("server/discover and cache hints", () => {
  it("offers 2026-07-28 with the Tasks extension, cacheable for an hour by anyone; the tool list by the client only", async () => {
    const { status, body } = await rpc("server/discover", {});
    expect(status).toBe(200);
    expect(body.result.supportedVersions).toContain(REVISION);
    expect(body.result.capabilities.extensions).toHaveProperty([TASKS]);
    expect(body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    const list = await rpc("tools/list", {});
    expect(list.body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });
  });
});

describe("the Tasks extension", () => {
  it("submit_task answers a task handle; tasks/get runs the sandbox task to completed, result inlined", async () => {
    const created = await rpc(
      "tools/call",
      { name: "submit_task", arguments: { ...validTask, sandbox: true } },
      { capabilities: { extensions: { [TASKS]: {} } } },
    );
    expect(created.status).toBe(200);
    const handle = created.body.result;
    expect(handle).toMatchObject({ resultType: "task", status: "working", ttlMs: null });
    expect(handle.taskId).toMatch(/^(TASK|SANDBOX)-/);
    expect(handle.pollIntervalMs).toBeGreaterThan(0);
    let task: any;
    for (let i = 0; i < 12; i++) {
      // Alternate instances: nothing of the task lives in either process.
      task = (await rpc("tasks/get", { taskId: handle.taskId }, { on: i % 2 ? second : host })).body.result;
      expect(task.resultType).toBe("complete");
      if (task.status === "completed") break;
      expect(task.status).toBe("working");
    }
    expect(task.status).toBe("completed");
    expect(task.result.isError).toBeUndefined();
    expect(task.result.structuredContent).toMatchObject({ task_id: handle.taskId, status: "completed" });
    const link = task.result.content.find((c: { type: string }) => c.type === "resource_link");
    const read = await rpc("resources/read", { uri: link.uri });
    expect(read.body.result.contents[0].uri).toBe(link.uri);
    expect(read.body.result).toMatchObject({ cacheScope: "private" });
  });

  it("keyless: the handle's _meta.access_token follows the sandbox task through tasks/get and resources/read", async () => {
    const anonymous = { anonymous: true, capabilities: { extensions: { [TASKS]: {} } } };
    const created = await rpc("tools/call", { name: "submit_task", arguments: { ...validTask } }, anonymous);
    const handle = created.body.result;
    expect(handle.resultType).toBe("task");
    const token = handle._meta.access_token as string;
    expect(token).toBeTruthy();
    expect((await rpc("tasks/get", { taskId: handle.taskId }, anonymous)).body.error.code).toBe(-32602);
    let task: any;
    for (let i = 0; i < 12; i++) {
      task = (await rpc("tasks/get", { taskId: handle.taskId, access_token: token }, anonymous)).body.result;
      if (task.status === "completed") break;
    }
    expect(task.status).toBe("completed");
    const uri = task.result.structuredContent.proof_files[0].uri;
    const read = await rpc("resources/read", { uri, access_token: token }, anonymous);
    expect(read.body.result.contents[0].uri).toBe(uri);
    // Revision 2026-07-28 answers a resource it does not serve -32602 (2025-11-25: -32002).
    const refused = await rpc("resources/read", { uri }, anonymous);
    expect(refused.body.error).toMatchObject({ code: -32602, data: { uri } });
  });

  it("a client without the extension gets the ordinary result, never an error", async () => {
    const created = await rpc("tools/call", {
      name: "submit_task",
      arguments: { ...validTask, sandbox: true },
    });
    expect(created.body.result.resultType).toBe("complete");
    expect(created.body.result.structuredContent.task_id).toMatch(/^(TASK|SANDBOX)-/);
  });

  it("a real task awaiting payment is input_required with the pay page as a URL elicitation", async () => {
    const created = await rpc(
      "tools/call",
      { name: "submit_task", arguments: { ...validTask } },
      { capabilities: { extensions: { [TASKS]: {} } } },
    );
    const taskId = created.body.result.taskId;
    expect((await reviewTask(admin, { task_id: taskId, action: "approve" })).res.status).toBe(200);
    const task = (await rpc("tasks/get", { taskId })).body.result;
    expect(task.status).toBe("input_required");
    const [inputKey, request] = Object.entries(task.inputRequests)[0] as [string, any];
    expect(inputKey).toContain(taskId);
    expect(request).toMatchObject({ method: "elicitation/create", params: { mode: "url" } });
    expect(request.params.url).toContain("/pay/#");
    // The same key on the next poll (clients deduplicate), and tasks/update acknowledges.
    expect(Object.keys((await rpc("tasks/get", { taskId })).body.result.inputRequests)).toEqual([inputKey]);
    const update = await rpc("tasks/update", {
      taskId,
      inputResponses: { [inputKey]: { action: "accept" } },
    });
    expect(update.body.result).toMatchObject({ resultType: "complete" });
    // tasks/cancel under the cancellation rules: the task ends cancelled.
    const cancel = await rpc("tasks/cancel", { taskId });
    expect(cancel.body.error).toBeUndefined();
    expect((await rpc("tasks/get", { taskId })).body.result.status).toBe("cancelled");
  });

  it("an unknown task and another account's task are both -32602 'not found'", async () => {
    const created = await rpc(
      "tools/call",
      { name: "submit_task", arguments: { ...validTask, sandbox: true } },
      { capabilities: { extensions: { [TASKS]: {} } } },
    );
    const taskId = created.body.result.taskId;
    const foreign = await rpc("tasks/get", { taskId }, { headers: { "x-api-key": otherKey } });
    const unknown = await rpc("tasks/get", { taskId: "TASK-NOPE" });
    for (const answer of [foreign, unknown]) {
      expect(answer.body.error.code).toBe(-32602);
      expect(answer.body.error.message).toMatch(/^Task not found/);
    }
    const cancel = await rpc("tasks/cancel", { taskId }, { headers: { "x-api-key": otherKey } });
    expect(cancel.body.error.code).toBe(-32602);
  });
});

describe("the revision's faults", () => {
  it("a header disagreeing with the body is 400 -32020; an unsupported revision 400 -32022", async () => {
    const mismatch = await rpc("tools/list", {}, { headers: { "mcp-method": "tools/call" } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe(-32020);
    const noName = await rpc("tasks/get", { taskId: "TASK-X" }, { headers: { "mcp-name": "TASK-Y" } });
    expect(noName.body.error.code).toBe(-32020);
    const future = await rpc(
      "tools/list",
      { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      { headers: { "mcp-protocol-version": "2099-01-01" } },
    );
    expect(future.status).toBe(400);
    expect(future.body.error.code).toBe(-32022);
    expect(future.body.error.data.supported).toContain(REVISION);
  });

  it("a 2026 request without the envelope's protocol version is 400", async () => {
    const res = await fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": REVISION,
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32602);
  });
});

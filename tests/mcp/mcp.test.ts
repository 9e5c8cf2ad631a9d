/**
 * The MCP endpoint through the SDK's own Client and Streamable HTTP client transport,
 * against the local host over real HTTP.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { validTask } from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let key: string;

beforeAll(async () => {
  host = await startTestHost();
  key = await makeKey(["audit_only", "task_create"]);
});
afterAll(() => host.close());

async function connect(headers: Record<string, string> = {}, protocolVersion?: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), {
    requestInit: { headers },
  });
  if (protocolVersion) transport.setProtocolVersion(protocolVersion);
  await client.connect(transport);
  return client;
}

/** A result's structured value: `structuredContent`, or a failed result's error envelope (`_meta`). */
function structured(result: any): any {
  return result.isError ? result._meta : result.structuredContent;
}

describe("MCP over Streamable HTTP", () => {
  it("initializes statelessly and lists the tools with schemas and annotations", async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe("physical-task-execution-service");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "list_services",
        "get_estimate",
        "submit_task",
        "check_task_status",
        "get_capabilities",
        "register_api_key",
      ]),
    );
    const estimate = tools.find((t) => t.name === "get_estimate")!;
    expect(estimate.inputSchema.properties).toHaveProperty("hours");
    expect((estimate.inputSchema.properties as any).hours).toMatchObject({
      type: "number",
      minimum: 0.25,
      maximum: 168,
    });
    expect(estimate.annotations).toMatchObject({ readOnlyHint: true });
    const submit = tools.find((t) => t.name === "submit_task")!;
    expect(submit.inputSchema.required).toEqual(
      expect.arrayContaining(["service_type", "location_address", "task_description", "requester_contact"]),
    );
    await client.close();
  });

  it("calls the public tools", async () => {
    const client = await connect();
    const services = structured(
      await client.callTool({ name: "list_services", arguments: { include_contract: false } }),
    );
    expect(services.count).toBe(5);
    const estimate = await client.callTool({
      name: "get_estimate",
      arguments: { hours: 1, location: "Montreal" },
    });
    expect(structured(estimate).total_cad).toBe(329.67);
    expect((estimate.content as any)[0].text).toContain("329.67");
    const caps = structured(await client.callTool({ name: "get_capabilities", arguments: {} }));
    expect(caps.platform.version).toBe("4.0.0");
    const registered = structured(
      await client.callTool({
        name: "register_api_key",
        arguments: { name: "mcp-agent", contact: "mcp@example.com" },
      }),
    );
    expect(registered.api_key).toMatch(/^svc_/);
    await client.close();
  });

  it("forces an unauthenticated submit_task into sandbox and says so", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "submit_task", arguments: { ...validTask } });
    expect(result.isError).toBeFalsy();
    const body = structured(result);
    expect(body.task_id).toMatch(/^SANDBOX-/);
    expect(body.forced_sandbox).toBe(true);
    expect((result.content as any)[0].text).toMatch(/SANDBOX mode/);
    await client.close();
  });

  it("submits a real task with a header key and reads its status", async () => {
    const client = await connect({ "x-api-key": key });
    const created = structured(await client.callTool({ name: "submit_task", arguments: { ...validTask } }));
    expect(created.task_id).toMatch(/^TASK-/);
    const status = structured(
      await client.callTool({ name: "check_task_status", arguments: { task_id: created.task_id } }),
    );
    expect(status).toMatchObject({ task_id: created.task_id, status: "received", owned_by_caller: true });
    await client.close();
  });

  it("accepts the key as an api_key argument", async () => {
    const client = await connect();
    const created = structured(
      await client.callTool({ name: "submit_task", arguments: { ...validTask, api_key: key } }),
    );
    expect(created.task_id).toMatch(/^TASK-/);
    await client.close();
  });

  it("reports tool failures as isError results with the HTTP error codes", async () => {
    const client = await connect();
    const noKey = await client.callTool({ name: "check_task_status", arguments: { task_id: "TASK-X-Y" } });
    expect(noKey.isError).toBe(true);
    expect(structured(noKey).error.code).toBe("UNAUTHORIZED");
    const badKey = await client.callTool({
      name: "check_task_status",
      arguments: { task_id: "TASK-X-Y", api_key: "svc_nope" },
    });
    expect(structured(badKey).error.code).toBe("UNAUTHORIZED");
    const unknown = await client.callTool({
      name: "check_task_status",
      arguments: { task_id: "TASK-X-Y", api_key: key },
    });
    expect(structured(unknown).error.code).toBe("NOT_FOUND");
    const tooLong = await client.callTool({
      name: "submit_task",
      arguments: { ...validTask, task_description: "x".repeat(2001), api_key: key },
    });
    expect(tooLong.isError).toBe(true);
    const outside = await client.callTool({
      name: "submit_task",
      arguments: { ...validTask, location_address: "1 rue King, Sherbrooke", api_key: key },
    });
    expect(structured(outside).error.code).toBe("OUT_OF_SERVICE_ZONE");
    const wrongType = await client.callTool({ name: "get_estimate", arguments: { hours: "two" } });
    expect(wrongType.isError).toBe(true);
    await client.close();
  });

  it("answers an unknown tool with the JSON-RPC error -32602, not a tool result", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "launch_rockets", arguments: {} }).catch((e) => e);
    expect(result).toBeInstanceOf(McpError);
    expect(result.code).toBe(-32602);
    expect(String(result.message)).toMatch(/launch_rockets/);
    await client.close();
  });

  it("negotiates protocol revision 2025-03-26", async () => {
    const res = await fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-03-26",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      }),
    });
    const body: any = await res.json();
    expect(body.result.protocolVersion).toBe("2025-03-26");
    // A self-contained session id (a JWT holding the declared capabilities; lib/mcp/session.ts).
    expect(res.headers.get("mcp-session-id")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});

describe("MCP protocol errors over raw HTTP", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });

  it("answers malformed JSON with a JSON-RPC parse error, never a 500", async () => {
    const res = await post("{not json");
    expect(res.status).toBeLessThan(500);
    const body: any = await res.json();
    expect(body.error.code).toBe(-32700);
  });

  it("answers an unknown method with -32601", async () => {
    const res = await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/explode", params: {} }));
    const body: any = await res.json();
    expect(body.error.code).toBe(-32601);
    expect(body.id).toBe(7);
  });

  it("answers a batch per the MCP revision", async () => {
    const res = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
    expect(res.status).toBeLessThan(500);
  });

  it("refuses an oversized body", async () => {
    const res = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { x: "y".repeat(2_000_000) } }),
    );
    expect(res.status).toBe(413);
  });

  it("refuses a foreign Origin or Host (DNS rebinding)", async () => {
    const origin = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      origin: "https://evil.example",
    });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as any).error.message).toMatch(/Origin/);
  });

  it("answers GET and DELETE with 405 on this stateless server", async () => {
    const get = await fetch(`${host.url}/api/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(((await get.json()) as any).error.code).toBe("METHOD_NOT_ALLOWED");
    const del = await fetch(`${host.url}/api/mcp`, { method: "DELETE" });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("POST");
    expect(((await del.json()) as any).error.code).toBe("METHOD_NOT_ALLOWED");
  });
});

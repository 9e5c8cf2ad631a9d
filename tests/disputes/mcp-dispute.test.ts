/**
 * The MCP tool dispute_task (lib/mcp/task-tools.ts; issue 27), through the SDK client against the
 * local host: the same workflow as POST /api/task-dispute, by the task's key; a stranger's key gets
 * NOT_FOUND, a second dispute CONFLICT.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { completedTask } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

let host: LocalHost;
let admin: string;
let owner: string;
let stranger: string;

beforeAll(async () => {
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create"], "mcp-dispute@example.com");
  stranger = await makeKey(["audit_only", "task_create"], "mcp-stranger@example.com");
});
afterAll(() => host.close());

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "dispute-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), { requestInit: { headers } }),
  );
  return client;
}

describe("MCP dispute_task", () => {
  it("opens a dispute for the task's key; refuses a stranger and a second one", async () => {
    const id = await completedTask(admin, owner);
    const client = await connect();
    const args = { task_id: id, reason: "damaged", details: "The parcel arrived crushed." };
    const foreign = (await client.callTool({
      name: "dispute_task",
      arguments: { ...args, api_key: stranger },
    })) as any;
    expect(foreign.isError).toBe(true);
    expect((foreign._meta as any)?.error?.code).toContain("NOT_FOUND");

    const opened = (await client.callTool({
      name: "dispute_task",
      arguments: { ...args, api_key: owner },
    })) as any;
    expect(opened.isError).toBeFalsy();
    expect(opened.structuredContent).toMatchObject({
      task_id: id,
      status: "completed",
      dispute: { status: "open", reason: "damaged" },
    });
    // The text is for a person: no reason code there (structuredContent keeps the code).
    const texts = (opened.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
    expect(texts).toContain(id);
    expect(texts).not.toMatch(/\bdamaged\b/);

    const again = (await client.callTool({
      name: "dispute_task",
      arguments: { ...args, api_key: owner },
    })) as any;
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again)).toContain("CONFLICT");
    await client.close();
  });
});

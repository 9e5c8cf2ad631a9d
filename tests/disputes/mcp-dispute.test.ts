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
    const args = {
      task_id: id,
      reason: "wrong_location",
      details: "The photos show the building next door.",
    };
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
      dispute: { status: "open", reason: "wrong_location" },
    });
    // The text is for a person (issue 42 item 5): that a dispute was opened, its id, the end of the
    // window and what happens next; the reason and the resolutions in words, no code
    // (structuredContent keeps the codes).
    const disputeId = opened.structuredContent.dispute.dispute_id as string;
    const first = (opened.content as { type: string; text?: string }[])[0]!.text!;
    expect(first).toContain(`Dispute ${disputeId} was opened on task ${id} (reason: wrong location).`);
    const windowEnd = new Date(
      Date.parse(opened.structuredContent.completed_at) + 72 * 3600_000,
    ).toISOString();
    expect(first).toContain(`The task's dispute window ends at ${windowEnd}.`);
    expect(first).toContain("What happens next:");
    expect(first).toContain("done again at no charge");
    expect(first).toContain("partial refund");
    expect(first).toContain("can be disputed again only if this dispute is resolved by redoing the task");
    const texts = (opened.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
    expect(texts).not.toMatch(/wrong_location|partial_refund|full_refund|\bredo\b/);

    const again = (await client.callTool({
      name: "dispute_task",
      arguments: { ...args, api_key: owner },
    })) as any;
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again)).toContain("CONFLICT");
    await client.close();
  });
});

/**
 * The MCP tools over billing, scores and webhooks, through the SDK client against the
 * local host: each calls the same lib functions as its HTTP counterpart.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as accountAdmin } from "../../api/account-admin.js";
import { resetConfig } from "../../lib/config.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import {
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let admin: string;
let agent: string;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create", "billing_read"], "mcp-billing@example.com");
});
afterAll(async () => {
  await host.close();
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  resetConfig();
});

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`), { requestInit: { headers } }),
  );
  return client;
}
/** A result's structured value: `structuredContent`, or a failed result's error envelope (`_meta`). */
const sc = (r: any) => (r.isError ? r._meta : r.structuredContent);

describe("MCP tools over billing, scores and webhooks", () => {
  it("lists the eleven tools of the spec, then cancel_task, dispute_task, pay_task and list_my_tasks", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "list_services",
      "get_estimate",
      "submit_task",
      "check_task_status",
      "score_task",
      "get_capabilities",
      "register_api_key",
      "register_webhook",
      "get_reputation",
      "check_balance",
      "pre_authorize_cost",
      "cancel_task",
      "dispute_task",
      "pay_task",
      "list_my_tasks",
    ]);
    for (const tool of tools) expect(tool.description!.length).toBeGreaterThan(40);
    await client.close();
  });

  it("scores a completed task once and shows it in the reputation", async () => {
    const { body: created } = await submitTask(validTask, keyHeaders(agent));
    await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    await recordPayment(admin, { task_id: created.task_id });
    await completeTask(admin, {
      task_id: created.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [pngProof()],
    });
    const client = await connect({ "x-api-key": agent });
    const scored = await client.callTool({
      name: "score_task",
      arguments: { task_id: created.task_id, rating: 5, feedback: "Great photos" },
    });
    expect(scored.isError).toBeFalsy();
    expect(sc(scored)).toMatchObject({ task_id: created.task_id, rating: 5 });
    const again = await client.callTool({
      name: "score_task",
      arguments: { task_id: created.task_id, rating: 4 },
    });
    expect(sc(again).error.code).toBe("CONFLICT");
    const badRating = await client.callTool({
      name: "score_task",
      arguments: { task_id: created.task_id, rating: 9 },
    });
    expect(badRating.isError).toBe(true);
    const reputation = sc(await client.callTool({ name: "get_reputation", arguments: {} }));
    expect(reputation.count).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it("registers a webhook, refusing a non-HTTPS public URL", async () => {
    const client = await connect();
    const ok = await client.callTool({
      name: "register_webhook",
      arguments: { url: "http://127.0.0.1:9/hooks", events: ["task.completed"], api_key: agent },
    });
    expect(ok.isError).toBeFalsy();
    expect(sc(ok).webhook_id).toMatch(/^wh_/);
    expect(sc(ok).secret).toMatch(/^whsec_/);
    const noKey = await client.callTool({
      name: "register_webhook",
      arguments: { url: "https://example.com/h", events: ["task.completed"] },
    });
    expect(sc(noKey).error.code).toBe("UNAUTHORIZED");
    const unknownEvent = await client.callTool({
      name: "register_webhook",
      arguments: { url: "http://127.0.0.1:9/h", events: ["task.exploded"], api_key: agent },
    });
    expect(unknownEvent.isError).toBe(true);
    await client.close();
  });

  it("checks a prepaid balance and pre-authorizes within it; refuses beyond it with PAYMENT_REQUIRED", async () => {
    // The account's owner opens it, verifies the address, signs in and links the agent's key.
    const created = await openLinkedAccount(agent, { contact_name: "MCP Billing" });
    expect(created.res.status).toBe(201);
    const deposit = await call(accountAdmin, "/api/account-admin", {
      method: "POST",
      headers: keyHeaders(admin),
      json: { action: "deposit", email: "mcp-billing@example.com", amount_cad: 500 },
    });
    expect(deposit.res.status).toBe(200);
    const client = await connect({ "x-api-key": agent });
    const balance = sc(
      await client.callTool({ name: "check_balance", arguments: { agent_id: "mcp-billing@example.com" } }),
    );
    expect(balance).toMatchObject({ available_balance_cad: 500, spending_level: "ok" });
    const hold = sc(
      await client.callTool({
        name: "pre_authorize_cost",
        arguments: { agent_id: "mcp-billing@example.com", max_cost_cad: 120 },
      }),
    );
    expect(hold).toMatchObject({ authorized: true, max_cost_cad: 120 });
    const denied = await client.callTool({
      name: "pre_authorize_cost",
      arguments: { agent_id: "mcp-billing@example.com", max_cost_cad: 5000 },
    });
    expect(denied.isError).toBe(true);
    expect(sc(denied).error.code).toBe("PAYMENT_REQUIRED");
    await client.close();
    const noScope = await connect({ "x-api-key": await makeKey(["audit_only"]) });
    const refused = await noScope.callTool({
      name: "check_balance",
      arguments: { agent_id: "mcp-billing@example.com" },
    });
    expect(sc(refused).error.code).toBe("UNAUTHORIZED");
    await noScope.close();
  });
});

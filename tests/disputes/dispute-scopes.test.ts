/**
 * Disputes need the `task_create` scope (issue 42 item 6; docs/decisions.md 38), on HTTP
 * (POST /api/task-dispute) and on the key MCP endpoint (dispute_task through /api/mcp), for every
 * scope: a key of the task's account holding only that scope. The task's own access_token needs no
 * scope, and a key without task_create does not lend its ownership to a token of another task.
 * (/mcp's gate, per OAuth scope: tests/oauth/oauth-security.test.ts "the scope table of /mcp".)
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import type { Scope } from "../../lib/db/schema/enums.js";
import { tasks } from "../../lib/db/schema/index.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { useLedgerCheck } from "../helpers/ledger.js";
import { expectEnvelope } from "../helpers/request.js";
import { submitTask, validTask } from "../helpers/tasks.js";
import { completedTask, openDispute } from "./helpers.js";

useTestDatabase();

useLedgerCheck();

/** Every scope a key can hold, and whether it may open a dispute. */
const TABLE: [Scope, boolean][] = [
  ["audit_only", false],
  ["task_create", true],
  ["task_cancel", false],
  ["billing_read", false],
  ["admin", true],
];

let host: LocalHost;
let admin: string;
let owner: string;
let accountId: string;
const body = (taskId: string) => ({ task_id: taskId, reason: "incomplete", details: "Half the photos." });

beforeAll(async () => {
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create"], "scopes-owner@example.com");
  accountId = (await openLinkedAccount(owner)).body.account.account_id as string;
});
afterAll(() => host.close());

/** A key of the owner's account holding `scope` alone (an admin key: any task). */
async function keyWith(scope: Scope): Promise<string> {
  const created = await createApiKey({
    name: `only ${scope}`,
    contact: "scopes-owner@example.com",
    scopes: [scope],
    trusted: true,
    accountId,
  });
  return created.api_key;
}

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: "scope-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/api/mcp`)));
  return client;
}

describe("the dispute scope, key by key", () => {
  it.each(TABLE)(
    "HTTP POST /api/task-dispute with a key holding only %s → allowed: %s",
    async (scope, allowed) => {
      const id = await completedTask(admin, owner);
      const { res, body: answer } = await openDispute(body(id), keyHeaders(await keyWith(scope)));
      if (allowed) {
        expect(res.status).toBe(201);
        expect(answer.dispute.status).toBe("open");
      } else {
        expect(expectEnvelope(answer, res, 403, "FORBIDDEN").message).toContain("task_create");
      }
    },
  );

  it.each(TABLE)(
    "MCP dispute_task (/api/mcp) with a key holding only %s → allowed: %s",
    async (scope, allowed) => {
      const id = await completedTask(admin, owner);
      const client = await mcpClient();
      const result = (await client.callTool({
        name: "dispute_task",
        arguments: { ...body(id), api_key: await keyWith(scope) },
      })) as { isError?: boolean; structuredContent?: { dispute?: { status: string } }; _meta?: any };
      await client.close();
      if (allowed) {
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent?.dispute?.status).toBe("open");
      } else {
        expect(result.isError).toBe(true);
        expect(result._meta.error).toMatchObject({ code: "FORBIDDEN" });
        expect(result._meta.error.message).toContain("task_create");
      }
    },
  );
});

describe("the task's own access_token", () => {
  /** A keyless (sandbox) task, completed in place, and its access token. */
  async function keylessCompleted() {
    const { body: created } = await submitTask(validTask);
    await (await getDb())
      .update(tasks)
      .set({ status: "completed", completedAt: new Date() })
      .where(eq(tasks.id, created.task_id));
    return { id: created.task_id as string, token: created.access_token as string };
  }

  it("needs no scope, on HTTP and MCP alike", async () => {
    const viaHttp = await keylessCompleted();
    const http = await openDispute(body(viaHttp.id), { "x-task-access-token": viaHttp.token });
    expect(http.res.status).toBe(201);
    const viaMcp = await keylessCompleted();
    const client = await mcpClient();
    const result = (await client.callTool({
      name: "dispute_task",
      arguments: { ...body(viaMcp.id), access_token: viaMcp.token },
    })) as { isError?: boolean };
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it("MCP: a key without task_create disputes with the task's token, never with another task's", async () => {
    const auditKey = await keyWith("audit_only");
    const own = await keylessCompleted();
    const client = await mcpClient();
    const withToken = (await client.callTool({
      name: "dispute_task",
      arguments: { ...body(own.id), access_token: own.token, api_key: auditKey },
    })) as { isError?: boolean };
    expect(withToken.isError).toBeFalsy();
    // The account's own task, with a token of another task: the key's ownership is not lent to it.
    const accountTask = await completedTask(admin, owner);
    const other = await keylessCompleted();
    const foreign = (await client.callTool({
      name: "dispute_task",
      arguments: { ...body(accountTask), access_token: other.token, api_key: auditKey },
    })) as { isError?: boolean; _meta?: any };
    expect(foreign.isError).toBe(true);
    expect(foreign._meta.error.code).toBe("NOT_FOUND");
    await client.close();
  });
});

/**
 * x402 over MCP (x402 "Transport: MCP", tool-result binding) with the MCP SDK client over real
 * HTTP: pay_task without payment is an isError result carrying the PaymentRequired; the official
 * x402 client (@x402/core x402Client + @x402/evm exact scheme, a viem local account) signs one of
 * its requirements, sent again in params._meta["x402/payment"]: the task is paid on chain and the
 * result carries _meta["x402/payment-response"]; a refused payment is the PaymentRequired again
 * with x402's reason, and records nothing.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { apiKeys, clientAccounts, tasks } from "../../lib/db/schema/index.js";
import { prefixedId, sha256Hex } from "../../lib/ids.js";
import { checkPayments } from "../../lib/jobs/check-payments.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { approvedTask, payer, recordedFor, signPayment, useX402World, world } from "./chains.js";

useTestDatabase();
useX402World();
// Each test drives local Hardhat chains (EDR, CPU-bound) and the service: a few seconds alone,
// several times that on a busy 2-core machine. The limit only guards against a hang.
vi.setConfig({ testTimeout: 120_000 });

/**
 * A connected client that has listed the tools, as agents do: from then on the SDK checks every
 * `structuredContent` against the tool's `outputSchema`, error results included (issue 41: the
 * PaymentRequired in structuredContent made `callTool` throw instead of returning it).
 */
async function connect(key: string) {
  const client = new Client({ name: "x402-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${world.host.url}/api/mcp`), {
      requestInit: { headers: { "x-api-key": key } },
    }),
  );
  await client.listTools();
  return client;
}

async function payTask(client: Client, taskId: string, payment?: unknown) {
  return CallToolResultSchema.parse(
    await client.callTool({
      name: "pay_task",
      arguments: { task_id: taskId },
      ...(payment ? { _meta: { "x402/payment": payment } } : {}),
    }),
  );
}

/**
 * The PaymentRequired of a failed pay_task result, read as the x402 MCP transport says a client
 * reads it without structuredContent: `content[0].text` = `{"x402/error": {code: 402, data}}`.
 */
function x402Required(result: { content: unknown[] }): PaymentRequired {
  const wrapped = JSON.parse((result.content[0] as { text: string }).text);
  expect(wrapped["x402/error"]).toMatchObject({ code: 402, message: expect.any(String) });
  return wrapped["x402/error"].data as PaymentRequired;
}

/** The id of the API key `key` (looked up by its hash). */
async function keyIdOf(key: string): Promise<string> {
  const [row] = await (await getDb())
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256Hex(key)));
  return row!.id;
}

describe("pay_task over MCP", () => {
  it("answers PaymentRequired, then pays with the signed payload in _meta and returns the settlement", async () => {
    const { id, micro } = await approvedTask();
    const client = await connect(world.agent);
    const first = await payTask(client, id);
    expect(first.isError).toBe(true);
    // The x402 MCP transport's form: content[0].text is {"x402/error": {code: 402, data}}, and no
    // structuredContent (a client would validate it against pay_task's output schema).
    expect(first.structuredContent).toBeUndefined();
    const required = x402Required(first);
    expect((first._meta as any).error).toMatchObject({ code: "PAYMENT_REQUIRED", x402: required });
    expect(required).toMatchObject({ x402Version: 2, resource: { url: expect.stringContaining(id) } });
    expect(required.accepts.map((a) => [a.network, a.amount])).toEqual([
      ["eip155:31337", micro.toString()],
      ["eip155:31338", micro.toString()],
    ]);

    // The task's status over MCP points the agent to the same payment.
    const status = await client.callTool({ name: "check_task_status", arguments: { task_id: id } });
    const pointer = (
      status.structuredContent as { x402?: { tool: string; payment_required: PaymentRequired } }
    ).x402;
    expect(pointer?.tool).toBe("pay_task");
    expect(pointer?.payment_required.accepts).toEqual(required.accepts);
    expect((status.content as { text: string }[])[0]!.text).toContain("pay_task");

    const signer = x402Client.fromConfig({
      schemes: [{ network: "eip155:*", client: new ExactEvmScheme(payer) }],
      spendControls: {
        allowedAssets: [{ network: "eip155:31337", asset: world.l1Token, maxAmountPerPayment: "1000000000" }],
      },
    });
    const payload = await signer.createPaymentPayload(required);
    const paid = await payTask(client, id, payload);
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ task_id: id, status: "paid" });
    const settlement = paid._meta?.["x402/payment-response"] as Record<string, unknown>;
    expect(settlement).toMatchObject({
      success: true,
      network: "eip155:31337",
      payer: payer.address.toLowerCase(),
    });
    const r = await recordedFor(id);
    expect(r.task.paymentTxHash).toBe(settlement.transaction);
    expect(r.transfers).toHaveLength(1);
    expect(r.paidEvents).toHaveLength(1);

    // Sent again: the same settlement, nothing more.
    const again = await payTask(client, id, payload);
    expect(again._meta?.["x402/payment-response"]).toEqual(settlement);
    expect((await recordedFor(id)).transfers).toHaveLength(1);
    expect((await checkPayments()).details).toMatchObject({ matched: 0, unmatched: 0, late: 0 });
    await client.close();
  });

  it("answers a refused payment with the PaymentRequired and x402's reason, recording nothing", async () => {
    const { id } = await approvedTask();
    const client = await connect(world.agent);
    const required = x402Required(await payTask(client, id));
    const wrong = await signPayment(payer, required.accepts[0] as never, {
      value: BigInt(required.accepts[0]!.amount) - 1n,
    });
    const refused = await payTask(client, id, wrong);
    expect(refused.isError).toBe(true);
    expect(x402Required(refused)).toMatchObject({
      x402Version: 2,
      error: "invalid_exact_evm_payload_authorization_value_mismatch",
    });
    const r = await recordedFor(id);
    expect(r.task.status).toBe("accepted_pending_payment");
    expect(r.transfers).toHaveLength(0);
    await client.close();
  });

  it("lets a key without task_create pay only with the task's own access_token, never with any token", async () => {
    const { id } = await approvedTask();
    // An audit_only key of the account that owns the task: it may read the task, not pay it.
    const db = await getDb();
    const account = prefixedId("acct");
    await db.insert(clientAccounts).values({
      id: account,
      orgId: `org-${account}`,
      contactName: "Owner",
      email: `${account.toLowerCase()}@example.com`,
    });
    const auditKey = await makeKey(["audit_only"]);
    const owner = await db.select().from(tasks).where(eq(tasks.id, id));
    await db
      .update(apiKeys)
      .set({ accountId: account })
      .where(inArray(apiKeys.id, [owner[0]!.apiKeyId!, await keyIdOf(auditKey)]));
    const client = await connect(auditKey);
    const bare = await payTask(client, id);
    expect((bare._meta as any).error.code).toBe("FORBIDDEN");
    // Any string as access_token used to skip the scope check and pay as the account's owner.
    const forged = CallToolResultSchema.parse(
      await client.callTool({
        name: "pay_task",
        arguments: { task_id: id, access_token: "tok_not-this-task" },
      }),
    );
    expect(forged.isError).toBe(true);
    expect((forged._meta as any).error.code).not.toBe("PAYMENT_REQUIRED");
    expect(JSON.stringify(forged.content)).not.toContain("x402/error");
    expect((await recordedFor(id)).task.status).toBe("accepted_pending_payment");
    await client.close();
  });
});

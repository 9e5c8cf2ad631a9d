/**
 * Paying over MCP revision 2026-07-28 (issue 41 item 3), with the official v2 client pinned to the
 * revision over real HTTP, on local chains:
 * - without URL elicitation, pay_task answers the x402 PaymentRequired result; the x402 client signs
 *   it and pay_task with the payload in `_meta` pays the task on chain (the agent's own path); the
 *   operator completes it and the proof is read as a resource;
 * - with URL elicitation, pay_task of a task awaiting payment answers `input_required` (a
 *   multi-round-trip result): the SDK hands our URL elicitation (the task's pay page) to the
 *   client's handler; once the person has paid there, the SDK's retry answers the paid task; had
 *   they not, the retry answers the PaymentRequired result again;
 * - the sealed `requestState`: forged → -32602; presented by another caller → refused; replayed
 *   after the task was paid → the task's state, no second payment.
 */
import { createHash } from "node:crypto";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm";
import { describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { REVISION_2026, rpc2026 } from "../helpers/mcp-2026.js";
import { completeTask, pngProof, recordPayment } from "../helpers/tasks.js";
import { approvedTask, payer, recordedFor, useX402World, world } from "./chains.js";

useTestDatabase();
useX402World();
// Local Hardhat chains (EDR, CPU-bound) and the service: the limit only guards against a hang.
vi.setConfig({ testTimeout: 120_000 });

/** A v2 client pinned to 2026-07-28 with the agent's key; `onElicit` answers URL elicitations. */
async function connect(onElicit?: (params: { url: string; message: string }) => Promise<{ action: string }>) {
  const client = new ClientV2(
    { name: "x402-agent-2026", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: REVISION_2026 } },
      capabilities: onElicit ? { elicitation: { url: {} } } : {},
    },
  );
  if (onElicit) {
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { url: string; message: string };
      return (await onElicit(params)) as never;
    });
  }
  await client.connect(
    new TransportV2(new URL(`${world.host.url}/api/mcp`), {
      requestInit: { headers: { "x-api-key": world.agent } },
    }),
  );
  await client.listTools();
  return client;
}

/** A raw 2026 call of pay_task for `taskId` by `key`, declaring URL elicitation; `extra` params added. */
function rawPay(taskId: string, key: string, extra: Record<string, unknown> = {}) {
  return rpc2026(
    `${world.host.url}/api/mcp`,
    "tools/call",
    { name: "pay_task", arguments: { task_id: taskId }, ...extra },
    { capabilities: { elicitation: { url: {} } }, headers: { "x-api-key": key } },
  );
}

describe("pay_task on revision 2026-07-28", () => {
  it("x402: the PaymentRequired result, then the signed payload in _meta pays the task", async () => {
    const { id } = await approvedTask();
    const client = await connect();
    const first = await client.callTool({ name: "pay_task", arguments: { task_id: id } });
    expect(first.isError).toBe(true);
    const wrapped = JSON.parse((first.content as { text: string }[])[0]!.text);
    const required = wrapped["x402/error"].data as PaymentRequired;
    const signer = x402Client.fromConfig({
      schemes: [{ network: "eip155:*", client: new ExactEvmScheme(payer) }],
      spendControls: {
        allowedAssets: [{ network: "eip155:31337", asset: world.l1Token, maxAmountPerPayment: "1000000000" }],
      },
    });
    const payload = await signer.createPaymentPayload(required);
    const paid = await client.callTool({
      name: "pay_task",
      arguments: { task_id: id },
      _meta: { "x402/payment": payload },
    });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ task_id: id, status: "paid" });
    expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true });
    expect((await recordedFor(id)).transfers).toHaveLength(1);

    // The operator does the work; the proof is read as a resource, its SHA-256 as announced.
    expect((await completeTask(world.admin, { task_id: id, action: "dispatch" })).res.status).toBe(200);
    const photo = pngProof("storefront.png");
    const done = await completeTask(world.admin, {
      task_id: id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "Storefront photographed.",
      proof_files: [photo],
    });
    expect(done.res.status).toBe(200);
    const status = await client.callTool({ name: "check_task_status", arguments: { task_id: id } });
    const proof = (status.structuredContent as { proof_files: { uri: string; sha256: string }[] })
      .proof_files[0]!;
    const read = await client.readResource({ uri: proof.uri });
    const blob = (read.contents[0] as { blob: string }).blob;
    expect(createHash("sha256").update(Buffer.from(blob, "base64")).digest("hex")).toBe(proof.sha256);
    await client.close();
  });

  it("URL elicitation: input_required sends the person to the pay page; once paid, the retry answers the paid task", async () => {
    const { id } = await approvedTask();
    const asked: string[] = [];
    const client = await connect(async ({ url }) => {
      asked.push(url);
      // The person pays on the page (recorded here as finance records an out-of-band payment).
      const recorded = await recordPayment(world.admin, {
        task_id: id,
        tx_hash: `0x${"cd".repeat(32)}`,
        network: "ethereum",
      });
      expect(recorded.res.status).toBe(200);
      return { action: "accept" };
    });
    const result = await client.callTool({ name: "pay_task", arguments: { task_id: id } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`/pay/#`);
    expect(new URLSearchParams(asked[0]!.split("#")[1]).get("task_id")).toBe(id);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ task_id: id, status: "paid" });
    await client.close();
  });

  it("URL elicitation answered without paying: the retry answers the PaymentRequired result", async () => {
    const { id } = await approvedTask();
    const client = await connect(async () => ({ action: "decline" }));
    const result = await client.callTool({ name: "pay_task", arguments: { task_id: id } });
    expect(result.isError).toBe(true);
    expect((result._meta as { error: { code: string } }).error.code).toBe("PAYMENT_REQUIRED");
    expect((await recordedFor(id)).task.status).toBe("accepted_pending_payment");
    await client.close();
  });

  it("refuses a forged or foreign requestState, and answers a replay after payment with the task's state", async () => {
    const { id } = await approvedTask();
    const first = await rawPay(id, world.agent);
    expect(first.body.result.resultType).toBe("input_required");
    const [inputKey] = Object.keys(first.body.result.inputRequests);
    const state = first.body.result.requestState as string;
    expect(first.body.result._meta.x402.accepts.length).toBeGreaterThan(0);
    const answer = { inputResponses: { [inputKey!]: { action: "accept" } } };

    const forged = await rawPay(id, world.agent, { ...answer, requestState: `${state.slice(0, -4)}AAAA` });
    expect(forged.body.error.code).toBe(-32602);
    const other = await makeKey(["task_create", "audit_only"]);
    const foreign = await rawPay(id, other, { ...answer, requestState: state });
    expect(foreign.body.result.isError).toBe(true);
    expect(foreign.body.result._meta.error).toMatchObject({
      code: "VALIDATION_ERROR",
      field: "requestState",
    });

    await recordPayment(world.admin, { task_id: id, tx_hash: `0x${"ef".repeat(32)}`, network: "ethereum" });
    const replay = await rawPay(id, world.agent, { ...answer, requestState: state });
    expect(replay.body.result.isError).toBeUndefined();
    expect(replay.body.result.structuredContent).toMatchObject({ task_id: id, status: "paid" });
    const again = await rawPay(id, world.agent, { ...answer, requestState: state });
    expect(again.body.result.structuredContent.status).toBe("paid");
    expect((await recordedFor(id)).paidEvents).toHaveLength(1);
  });
});

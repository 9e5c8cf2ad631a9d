/**
 * x402 at the payment step over HTTP (issue 28), on two real local chains with the EIP-3009
 * TestUSDC: an agent pays with the official client (@x402/fetch + @x402/evm, a viem local account)
 * and the task is paid by the on-chain transfer; the same signed payment sent twice (and at once)
 * is settled once; the payment checker run afterwards records nothing new; every bad input is
 * refused with its reason and nothing recorded.
 */
import { ExactEvmScheme } from "@x402/evm";
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { chainTransfers } from "../../lib/db/schema/index.js";
import { checkPayments } from "../../lib/jobs/check-payments.js";
import { composeTaskEmail } from "../../lib/mail/compose-task-email.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";
import {
  approvedTask,
  brokePayer,
  decodeRequired,
  header,
  pay,
  payer,
  payUrl,
  recordedFor,
  signPayment,
  useX402World,
  WALLET,
  world,
} from "./chains.js";

useTestDatabase();
useX402World();
// Each test drives local Hardhat chains (EDR, CPU-bound) and the service: a few seconds alone,
// several times that on a busy 2-core machine. The limit only guards against a hang.
vi.setConfig({ testTimeout: 120_000 });

/** The official x402 fetch client of the paying agent, USDC on our two chains allowed up to 1,000 USDC. */
function agentFetch(preferBase = false) {
  return wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: "eip155:*", client: new ExactEvmScheme(payer) }],
    spendControls: {
      allowedAssets: [
        { network: "eip155:31337", asset: world.l1Token, maxAmountPerPayment: "1000000000" },
        { network: "eip155:31338", asset: world.l2Token, maxAmountPerPayment: "1000000000" },
      ],
    },
    ...(preferBase
      ? { paymentRequirementsSelector: (_v, reqs) => reqs.find((r) => r.network === "eip155:31338")! }
      : {}),
  });
}

/** Asserts nothing was recorded for task `id` beyond failed settlement rows: still awaiting, no payment, no transfer. */
async function expectNothingRecorded(id: string, status = "accepted_pending_payment") {
  const r = await recordedFor(id);
  expect(r.task.status).toBe(status);
  expect(r.task.paidAt).toBeNull();
  expect(r.paidEvents).toHaveLength(0);
  expect(r.transfers).toHaveLength(0);
  expect(r.settlements.filter((s) => s.status !== "failed")).toHaveLength(0);
}

describe("402 Payment Required", () => {
  it("answers the v2 PAYMENT-REQUIRED header and a v1 body inside our error envelope", async () => {
    const { id, micro } = await approvedTask();
    const res = await pay(id);
    expect(res.status).toBe(402);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ code: "PAYMENT_REQUIRED", field: "payment" });
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
    const required = decodeRequired(res);
    expect(required.x402Version).toBe(2);
    expect(required.accepts.map((a) => a.network)).toEqual(["eip155:31337", "eip155:31338"]);
    expect(required.accepts[0]).toMatchObject({
      scheme: "exact",
      amount: micro.toString(),
      asset: expect.stringMatching(new RegExp(world.l1Token.slice(2), "i")),
      payTo: expect.stringMatching(new RegExp(WALLET.slice(2), "i")),
      maxTimeoutSeconds: 120,
      extra: { name: "USD Coin", version: "2" },
    });
    expect(body.x402Version).toBe(1);
    expect(body.accepts.map((a: any) => [a.network, a.maxAmountRequired])).toEqual([
      ["ethereum", micro.toString()],
      ["base", micro.toString()],
    ]);
    // The owner's status view names the x402 URL.
    const status: any = await (
      await fetch(`${world.host.url}/api/submit-task?task_id=${id}`, {
        headers: { "x-api-key": world.agent },
      })
    ).json();
    expect(status.payment.x402_url).toMatch(/\/api\/task-pay\?task_id=/);
    // So does the payment-instructions e-mail.
    const task = (await recordedFor(id)).task;
    const mail = composeTaskEmail(
      { type: "task.accepted", payload: {}, createdAt: new Date() } as never,
      task,
    );
    // The e-mail is composed outside the request, so its origin is the configured one; the status
    // was read at 127.0.0.1 and says so (docs/decisions.md 47): the same endpoint and task.
    expect(mail?.textBody).toContain(
      new URL(status.payment.x402_url).pathname + new URL(status.payment.x402_url).search,
    );
    await expectNothingRecorded(id);
  });

  it("tells a stranger the task does not exist, and refuses a task not awaiting payment", async () => {
    const { id } = await approvedTask();
    const stranger = await makeKey(["audit_only", "task_create"]);
    const res = await fetch(payUrl(id), { method: "POST", headers: { "x-api-key": stranger } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("NOT_FOUND");
    const received = await (
      await fetch(`${world.host.url}/api/submit-task`, {
        method: "POST",
        headers: { "x-api-key": world.agent, "content-type": "application/json" },
        body: JSON.stringify({
          service_type: "SVC-01",
          location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
          task_description: "Photograph the storefront.",
          requester_contact: "agent@example.com",
        }),
      })
    ).json();
    const early = await pay((received as any).task_id);
    expect(early.status).toBe(409);
    expect(((await early.json()) as any).error).toMatchObject({
      code: "CONFLICT",
      current_status: "received",
    });
  });
});

describe("paying with the official x402 client", () => {
  it("pays an approved task: paid by the on-chain transfer, PAYMENT-RESPONSE, checker records nothing new", async () => {
    const { id, micro } = await approvedTask();
    const before = await world.l1.publicClient.readContract({
      address: world.l1Token,
      abi: [
        {
          type: "function",
          name: "balanceOf",
          stateMutability: "view",
          inputs: [{ type: "address" }],
          outputs: [{ type: "uint256" }],
        },
      ],
      functionName: "balanceOf",
      args: [WALLET],
    });
    const res = await agentFetch()(payUrl(id), { method: "POST", headers: { "x-api-key": world.agent } });
    expect(res.status).toBe(200);
    const view: any = await res.json();
    expect(view).toMatchObject({ task_id: id, status: "paid" });
    const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settled).toMatchObject({
      success: true,
      network: "eip155:31337",
      payer: payer.address.toLowerCase(),
    });
    const after = await world.l1.publicClient.readContract({
      address: world.l1Token,
      abi: [
        {
          type: "function",
          name: "balanceOf",
          stateMutability: "view",
          inputs: [{ type: "address" }],
          outputs: [{ type: "uint256" }],
        },
      ],
      functionName: "balanceOf",
      args: [WALLET],
    });
    expect(after - before).toBe(micro);

    const r = await recordedFor(id);
    expect(r.task).toMatchObject({ status: "paid", paymentMethod: "usdc", paymentNetwork: "ethereum" });
    expect(r.task.paymentTxHash).toBe(settled.transaction.toLowerCase());
    expect(r.paidEvents).toHaveLength(1);
    expect(r.transfers).toEqual([
      expect.objectContaining({
        status: "matched",
        txHash: settled.transaction.toLowerCase(),
        amountMicro: micro,
      }),
    ]);
    expect(r.settlements).toEqual([expect.objectContaining({ status: "settled" })]);

    // The checker sees the Transfer log and knows it: nothing new.
    const run = await checkPayments();
    expect(run.ok).toBe(true);
    expect(run.details).toMatchObject({ matched: 0, unmatched: 0, late: 0 });
    const rows = await (await getDb())
      .select()
      .from(chainTransfers)
      .where(eq(chainTransfers.txHash, settled.transaction.toLowerCase()));
    expect(rows).toHaveLength(1);
    expect((await recordedFor(id)).paidEvents).toHaveLength(1);
  });

  it("pays a counter-offered task the same way, on Base", async () => {
    const { id, micro } = await approvedTask("counter_offer");
    const res = await agentFetch(true)(payUrl(id), { method: "POST", headers: { "x-api-key": world.agent } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).status).toBe("paid");
    const r = await recordedFor(id);
    expect(r.task).toMatchObject({ status: "paid", paymentNetwork: "base", priceCad: 321.45 });
    expect(r.transfers).toEqual([
      expect.objectContaining({ status: "matched", chainId: 31338, amountMicro: micro }),
    ]);
  });
});

describe("a keyless requester", () => {
  it("pays its task with its access_token (header or query parameter)", async () => {
    const { body: created } = await submitTask(validTask);
    expect(created.access_token).toMatch(/^tok_/);
    expect((await reviewTask(world.admin, { task_id: created.task_id, action: "approve" })).res.status).toBe(
      200,
    );
    const url = payUrl(created.task_id);
    const unpaid = await fetch(url, {
      method: "POST",
      headers: { "x-task-access-token": created.access_token },
    });
    expect(unpaid.status).toBe(402);
    const signed = header(await signPayment(payer, decodeRequired(unpaid).accepts[0]!));
    expect((await fetch(url, { method: "POST", headers: { "payment-signature": signed } })).status).toBe(404);
    const res = await fetch(`${url}&access_token=${encodeURIComponent(created.access_token)}`, {
      method: "POST",
      headers: { "payment-signature": signed },
    });
    expect(res.status).toBe(200);
    expect((await recordedFor(created.task_id)).task.status).toBe("paid");
  });
});

describe("one signed payment, one transfer", () => {
  it("settles the same signed payment once, sent twice in a row and three times at once", async () => {
    for (const concurrent of [false, true]) {
      const { id } = await approvedTask();
      const required = decodeRequired(await pay(id));
      const signed = header(await signPayment(payer, required.accepts[0]!));
      const send = () => pay(id, { "payment-signature": signed });
      const responses = concurrent
        ? await Promise.all([send(), send(), send()])
        : [await send(), await send()];
      for (const res of responses) expect([200, 202]).toContain(res.status);
      // Anyone told "in flight" asks again and gets the settlement.
      const final = await send();
      expect(final.status).toBe(200);
      const first = responses.find((r) => r.status === 200)!;
      expect(first.headers.get("payment-response")).toBeTruthy();
      expect(
        JSON.parse(Buffer.from(final.headers.get("payment-response")!, "base64").toString()).transaction,
      ).toBe(
        JSON.parse(Buffer.from(first.headers.get("payment-response")!, "base64").toString()).transaction,
      );
      const r = await recordedFor(id);
      expect(r.task.status).toBe("paid");
      expect(r.paidEvents).toHaveLength(1);
      expect(r.transfers).toHaveLength(1);
      expect(r.settlements).toHaveLength(1);
    }
    const run = await checkPayments();
    expect(run.details).toMatchObject({ matched: 0, unmatched: 0, late: 0 });
  });

  it("answers 202 + Retry-After while the settlement is in flight (never a new 402), then 200 once mined", async () => {
    process.env.X402_RECEIPT_WAIT_MS = "300";
    resetConfig();
    const { id } = await approvedTask();
    const required = decodeRequired(await pay(id));
    const signed = header(await signPayment(payer, required.accepts[0]!));
    await world.l1.rpc("evm_setAutomine", [false]);
    try {
      const res = await pay(id, { "payment-signature": signed });
      expect(res.status).toBe(202);
      expect(res.headers.get("retry-after")).toBe("2");
      const body: any = await res.json();
      expect(body).toMatchObject({
        status: "settlement_in_flight",
        task_id: id,
        tx_hash: expect.stringMatching(/^0x/),
      });
      // Without a payment, or with another one: still in flight, never a new 402.
      expect((await pay(id)).status).toBe(202);
      const other = header(await signPayment(payer, required.accepts[1]!));
      expect((await pay(id, { "payment-signature": other })).status).toBe(202);
      const r = await recordedFor(id);
      expect(r.settlements).toEqual([expect.objectContaining({ status: "broadcast", txHash: body.tx_hash })]);
      expect(r.task.status).toBe("accepted_pending_payment");
    } finally {
      await world.l1.rpc("evm_setAutomine", [true]);
      await world.l1.rpc("evm_mine");
      delete process.env.X402_RECEIPT_WAIT_MS;
      resetConfig();
    }
    // Mined: the next request records it (no need to present the payment again).
    const done = await pay(id);
    expect(done.status).toBe(409);
    expect(((await done.json()) as any).error.current_status).toBe("paid");
    const again = await pay(id, { "payment-signature": signed });
    expect(again.status).toBe(200);
    const r = await recordedFor(id);
    expect(r.paidEvents).toHaveLength(1);
    expect(r.transfers).toHaveLength(1);
  });

  it("records once when the payment checker sees the Transfer log before the service records it", async () => {
    process.env.X402_RECEIPT_WAIT_MS = "300";
    resetConfig();
    const { id } = await approvedTask();
    const required = decodeRequired(await pay(id));
    const signed = header(await signPayment(payer, required.accepts[0]!));
    await world.l1.rpc("evm_setAutomine", [false]);
    try {
      expect((await pay(id, { "payment-signature": signed })).status).toBe(202);
    } finally {
      await world.l1.rpc("evm_setAutomine", [true]);
      await world.l1.rpc("evm_mine");
      delete process.env.X402_RECEIPT_WAIT_MS;
      resetConfig();
    }
    // The checker runs first and pays the task by the log (exact amount); the service's record then
    // finds the task paid by its own transaction and counts it as its settlement.
    expect((await checkPayments()).details).toMatchObject({ matched: 1 });
    const res = await pay(id, { "payment-signature": signed });
    expect(res.status).toBe(200);
    const r = await recordedFor(id);
    expect(r.task.status).toBe("paid");
    expect(r.paidEvents).toHaveLength(1);
    expect(r.transfers).toEqual([expect.objectContaining({ status: "matched", taskId: id })]);
    expect(r.settlements).toEqual([expect.objectContaining({ status: "settled" })]);
    expect((await checkPayments()).details).toMatchObject({ matched: 0, unmatched: 0, late: 0 });
  });

  it("replays the answer of an Idempotency-Key, and accepts x402 v1 (X-PAYMENT → X-PAYMENT-RESPONSE)", async () => {
    const { id } = await approvedTask();
    // The 402 is not kept under the key: the client resends the key with its payment.
    const required = decodeRequired(await pay(id, { "idempotency-key": "pay-once-1" }));
    const v2 = await signPayment(payer, required.accepts[1]!);
    const v1 = { x402Version: 1, scheme: "exact", network: "base", payload: v2.payload };
    const first = await pay(id, { "x-payment": header(v1), "idempotency-key": "pay-once-1" });
    expect(first.status).toBe(200);
    const settled = JSON.parse(Buffer.from(first.headers.get("x-payment-response")!, "base64").toString());
    expect(settled).toMatchObject({ success: true, network: "base" });
    const again = await pay(id, { "x-payment": header(v1), "idempotency-key": "pay-once-1" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    // Another signed payment under the same key is another request.
    const other = { ...v1, payload: (await signPayment(payer, required.accepts[1]!)).payload };
    const reused = await pay(id, { "x-payment": header(other), "idempotency-key": "pay-once-1" });
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as any).error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect((await recordedFor(id)).transfers).toHaveLength(1);
  });
});

describe("refused payments record nothing", () => {
  it("refuses each bad input with its reason", async () => {
    const cases: [string, (req: any) => Promise<unknown> | unknown, number, string][] = [
      [
        "wrong amount",
        (req) => signPayment(payer, req, { value: BigInt(req.amount) + 1n }),
        402,
        "invalid_exact_evm_payload_authorization_value_mismatch",
      ],
      [
        "expired",
        (req) => signPayment(payer, req, { validBefore: BigInt(Math.floor(Date.now() / 1000) - 10) }),
        402,
        "invalid_exact_evm_payload_authorization_valid_before",
      ],
      [
        // A long-lived authorization could be kept and replayed against another task of the same amount.
        "valid for longer than maxTimeoutSeconds + 30 s",
        (req) =>
          signPayment(payer, req, {
            validBefore: BigInt(Math.floor(Date.now() / 1000) + req.maxTimeoutSeconds + 3600),
          }),
        402,
        "invalid_exact_evm_payload_authorization_valid_before",
      ],
      [
        "valid until 2^256 - 1",
        (req) => signPayment(payer, req, { validBefore: 2n ** 256n - 1n }),
        402,
        "invalid_exact_evm_payload_authorization_valid_before",
      ],
      [
        "not yet valid",
        (req) => signPayment(payer, req, { validAfter: BigInt(Math.floor(Date.now() / 1000) + 3600) }),
        402,
        "invalid_exact_evm_payload_authorization_valid_after",
      ],
      [
        "another recipient",
        (req) => signPayment(payer, req, { to: payer.address }),
        402,
        "invalid_exact_evm_recipient_mismatch",
      ],
      [
        "unknown network",
        async (req) => ({ ...(await signPayment(payer, req)), accepted: { ...req, network: "eip155:999" } }),
        402,
        "unsupported_network",
      ],
      [
        "insufficient balance",
        (req) => signPayment(brokePayer, req),
        402,
        "invalid_exact_evm_insufficient_balance",
      ],
      [
        "bad signature",
        async (req) => {
          // Signed by another key than the `from` it names.
          const p = await signPayment(brokePayer, req);
          return {
            ...p,
            payload: { ...p.payload, authorization: { ...p.payload.authorization, from: payer.address } },
          };
        },
        402,
        "invalid_exact_evm_signature",
      ],
      ["not a payload", () => "garbage", 400, "invalid_payload"],
    ];
    for (const [name, make, status, reason] of cases) {
      const { id } = await approvedTask();
      const required = decodeRequired(await pay(id));
      const made = await make(required.accepts[0]);
      const res = await pay(id, { "payment-signature": typeof made === "string" ? made : header(made) });
      const body: any = await res.json();
      expect([name, res.status, body.error.invalid_reason]).toEqual([name, status, reason]);
      if (status === 402) {
        expect(body.x402Version).toBe(1);
        expect(decodeRequired(res).error).toBe(reason);
      }
      await expectNothingRecorded(id);
    }
  });

  it("refuses a replayed nonce, a paid task and a stranger", async () => {
    const { id: paidId } = await approvedTask();
    const required = decodeRequired(await pay(paidId));
    const used = await signPayment(payer, required.accepts[0]!);
    expect((await pay(paidId, { "payment-signature": header(used) })).status).toBe(200);

    // The nonce, signed again for another task: already used.
    const { id } = await approvedTask();
    const other = decodeRequired(await pay(id));
    const replay = await signPayment(payer, other.accepts[0]!, {
      nonce: used.payload.authorization.nonce as `0x${string}`,
    });
    const res = await pay(id, { "payment-signature": header(replay) });
    expect(res.status).toBe(402);
    expect(((await res.json()) as any).error.invalid_reason).toBe("invalid_exact_evm_nonce_already_used");
    await expectNothingRecorded(id);

    // A fresh payment for the paid task: not awaiting payment.
    const late = await pay(paidId, {
      "payment-signature": header(await signPayment(payer, required.accepts[0]!)),
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as any).error).toMatchObject({ code: "CONFLICT", current_status: "paid" });
    expect((await recordedFor(paidId)).transfers).toHaveLength(1);

    // A stranger presenting a valid payment: 404, nothing recorded.
    const stranger = await makeKey(["audit_only", "task_create"]);
    const strange = await fetch(payUrl(id), {
      method: "POST",
      headers: {
        "x-api-key": stranger,
        "payment-signature": header(await signPayment(payer, other.accepts[0]!)),
      },
    });
    expect(strange.status).toBe(404);
    await expectNothingRecorded(id);
  });
});

describe("GET /api/status", () => {
  it("reports the relayer's ETH per network, degraded below X402_RELAYER_MIN_BALANCE_ETH", async () => {
    const healthy: any = await (await fetch(`${world.host.url}/api/status`)).json();
    expect(healthy.services.x402_relayer).toMatchObject({
      status: "healthy",
      address: expect.stringMatching(/^0x15d34/i),
      networks: [
        { network: "ethereum", status: "healthy", balance_eth: expect.any(String) },
        { network: "base", status: "healthy", balance_eth: expect.any(String) },
      ],
    });
    process.env.X402_RELAYER_MIN_BALANCE_ETH = "100000";
    resetConfig();
    try {
      const low: any = await (await fetch(`${world.host.url}/api/status`)).json();
      expect(low.services.x402_relayer.status).toBe("degraded");
      expect(low.status).toBe("degraded");
      expect(low.issues.join(" ")).toMatch(/x402 relayer degraded on ethereum/);
    } finally {
      delete process.env.X402_RELAYER_MIN_BALANCE_ETH;
      resetConfig();
    }
  });
});

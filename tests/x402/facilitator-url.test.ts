/**
 * X402_FACILITATOR_URL: the service verifies and settles through an HTTP facilitator (x402
 * "Facilitator API": POST /verify, POST /settle) instead of its relayer. The facilitator here is a
 * loopback server built from the official @x402/core x402Facilitator and the @x402/evm exact
 * scheme, with its own key (Hardhat account #6) paying the gas.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, defineChain, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { useTestDatabase } from "../helpers/db.js";
import {
  approvedTask,
  decodeRequired,
  header,
  pay,
  payer,
  recordedFor,
  signPayment,
  useX402World,
  world,
} from "./chains.js";

useTestDatabase();
useX402World();
// Each test drives local Hardhat chains (EDR, CPU-bound) and the service: a few seconds alone,
// several times that on a busy 2-core machine. The limit only guards against a hang.
vi.setConfig({ testTimeout: 120_000 });

const FACILITATOR_KEY = "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e";
let server: Server;
const calls: string[] = [];

beforeAll(async () => {
  const account = privateKeyToAccount(FACILITATOR_KEY);
  const facilitator = new x402Facilitator();
  for (const chain of [world.l1, world.l2]) {
    const client = createWalletClient({
      account,
      chain: defineChain({
        id: chain.chainId,
        name: `local-${chain.chainId}`,
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [chain.url] } },
      }),
      transport: http(chain.url),
    }).extend(publicActions);
    const signer = toFacilitatorEvmSigner({
      address: account.address,
      readContract: (args) => client.readContract(args as never) as Promise<unknown>,
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      writeContract: (args) => client.writeContract(args as never),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args) as never,
      getCode: (args) => client.getCode(args),
    });
    facilitator.register(`eip155:${chain.chainId}`, new ExactEvmScheme(signer));
  }
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const { paymentPayload, paymentRequirements } = JSON.parse(body);
    calls.push(req.url!);
    const result =
      req.url === "/verify"
        ? await facilitator.verify(paymentPayload, paymentRequirements)
        : await facilitator.settle(paymentPayload, paymentRequirements);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.X402_FACILITATOR_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  resetConfig();
});

afterAll(async () => {
  delete process.env.X402_FACILITATOR_URL;
  resetConfig();
  await new Promise((resolve) => server?.close(resolve));
});

describe("X402_FACILITATOR_URL", () => {
  it("verifies and settles through the facilitator, which pays the gas; the task is paid once", async () => {
    const { id, micro } = await approvedTask();
    const required = decodeRequired(await pay(id));
    const signed = header(await signPayment(payer, required.accepts[1]!));
    const res = await pay(id, { "payment-signature": signed });
    expect(res.status).toBe(200);
    expect(calls).toEqual(["/verify", "/settle"]);
    const settled = JSON.parse(Buffer.from(res.headers.get("payment-response")!, "base64").toString());
    const tx = await world.l2.publicClient.getTransaction({ hash: settled.transaction });
    expect(tx.from.toLowerCase()).toBe(privateKeyToAccount(FACILITATOR_KEY).address.toLowerCase());
    const r = await recordedFor(id);
    expect(r.task).toMatchObject({ status: "paid", paymentNetwork: "base" });
    expect(r.transfers).toEqual([expect.objectContaining({ status: "matched", amountMicro: micro })]);

    // A refusal by the facilitator (a signature that is not the payer's) comes back as its reason.
    const { id: other } = await approvedTask();
    const again = decodeRequired(await pay(other));
    const reused = await signPayment(payer, again.accepts[1]!);
    const broke = await pay(other, {
      "payment-signature": header({
        ...reused,
        payload: { ...reused.payload, signature: `0x${"11".repeat(65)}` },
      }),
    });
    expect(broke.status).toBe(402);
    expect(((await broke.json()) as any).error.invalid_reason).toMatch(/^invalid_exact_evm_/);
    expect((await recordedFor(other)).task.status).toBe("accepted_pending_payment");
  });
});

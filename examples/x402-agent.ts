/**
 * An agent paying an approved task with x402 (docs/x402.md): it reads the task's status, takes
 * `payment.x402_url`, and POSTs there with the official client (@x402/fetch + @x402/evm, a viem
 * local account signing the EIP-3009 authorization of the exact amount). The service settles it on
 * chain and pays the gas; the answer is the paid task, the settlement in PAYMENT-RESPONSE.
 *
 *   BASE=http://127.0.0.1:3000 API_KEY=svc_... TASK_ID=TASK-... PAYER_PRIVATE_KEY=0x... \
 *     [MAX_USDC_MICRO=1000000000] npx tsx examples/x402-agent.ts
 *
 * With `npm run dev`, PAYER_PRIVATE_KEY may be the funded payer the banner prints (Hardhat's public
 * test account #1, 0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d; local
 * chains only: docs/development.md). On its defaults the x402 client pays only assets it knows, at
 * most $1 a payment: hence the allowed assets and the cap below (docs/x402.md).
 */
import { ExactEvmScheme } from "@x402/evm";
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

const base = process.env.BASE ?? "http://127.0.0.1:3000";
const key = process.env.API_KEY!;
const taskId = process.env.TASK_ID!;
const payer = privateKeyToAccount(process.env.PAYER_PRIVATE_KEY as `0x${string}`);
const cap = process.env.MAX_USDC_MICRO ?? "1000000000";

const status = (await (
  await fetch(`${base}/api/submit-task?task_id=${encodeURIComponent(taskId)}`, {
    headers: { "x-api-key": key },
  })
).json()) as {
  status: string;
  payment?: {
    payment_usdc: string;
    x402_url: string | null;
    networks: { chain_id: number; usdc_contract: string }[];
  };
};
if (!status.payment?.x402_url) throw new Error(`${taskId} is ${status.status}: no x402 payment offered`);
console.log(
  `task ${taskId} is ${status.status}: pay ${status.payment.payment_usdc} USDC at ${status.payment.x402_url}`,
);

// Spend controls: only the USDC contracts the task lists, and at most MAX_USDC_MICRO per payment.
const pay = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: "eip155:*", client: new ExactEvmScheme(payer) }],
  spendControls: {
    allowedAssets: status.payment.networks.map((n) => ({
      network: `eip155:${n.chain_id}` as const,
      asset: n.usdc_contract,
      maxAmountPerPayment: cap,
    })),
  },
});
const res = await pay(status.payment.x402_url, { method: "POST", headers: { "x-api-key": key } });
const paid = (await res.json()) as { status: string };
if (res.status !== 200) throw new Error(`payment: HTTP ${res.status} ${JSON.stringify(paid)}`);
const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
console.log(`settled on ${settled.network}: ${settled.transaction}`);
console.log(`status: ${paid.status}`);

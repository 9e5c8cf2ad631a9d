/**
 * `npm run dev:pay -- <task_id> [--network ethereum|base]`: pays a task awaiting its USDC payment
 * from `npm run dev`'s funded payer, on that run's local chain (default: the first network,
 * ethereum), then runs the payment checker at once and waits until the task is marked paid.
 *
 * `--x402 --key <api key>` (or `--access-token <tok_…>`: the task's owner credential): pays through
 * x402 instead (docs/x402.md): POST /api/task-pay with the official client (@x402/fetch + @x402/evm,
 * the payer as a viem local account signing EIP-3009), the service's relayer settling; the task is
 * paid when the answer comes (no checker run needed).
 *
 * Talks to the running `npm run dev` through its loopback control channel (the control file in
 * DATA_DIR, scripts/local-control.ts): reads the task's exact amount (micro-USDC) and the
 * network's RPC URL, token and wallet there. Exits 1 with a message when no dev server runs, the
 * task does not await a USDC payment, or it is not marked paid within 30 s.
 */
import { parseArgs } from "node:util";
import type { Address } from "viem";
import { formatUsdc } from "../lib/money.js";
import { ACCOUNTS, connectLocalChain, DEV_KEYS } from "./dev/local-chain.js";
import { readControlFile } from "./local-control.js";
import { loadEnvFile } from "./serve.js";

interface TaskPayment {
  task_id: string;
  status: string;
  payment_method: string | null;
  payment_usdc_micro: string | null;
  paid_at: string | null;
  networks: { network: string; chain_id: number; rpc_url: string; usdc_contract: Address; wallet: Address }[];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      network: { type: "string" },
      x402: { type: "boolean" },
      key: { type: "string" },
      "access-token": { type: "string" },
    },
  });
  const taskId = positionals[0];
  if (!taskId) {
    throw new Error(
      "Usage: npm run dev:pay -- <task_id> [--network ethereum|base] [--x402 --key <api key> | --access-token <tok>]",
    );
  }
  loadEnvFile();
  const running = readControlFile();
  if (!running) throw new Error("No running `npm run dev` found on this DATA_DIR: start it first.");
  const call = async (method: string, pathname: string) => {
    const res = await fetch(`${running.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${running.token}` },
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const read = async () => {
    const res = await call("GET", `/_local/tasks/${encodeURIComponent(taskId)}`);
    if (res.status !== 200) throw new Error(`Task ${taskId}: ${JSON.stringify(res.body)}`);
    return res.body as TaskPayment;
  };
  const task = await read();
  const payable = values.x402
    ? ["accepted_pending_payment", "counter_offered"]
    : ["accepted_pending_payment"];
  if (!payable.includes(task.status) || !task.payment_usdc_micro) {
    throw new Error(
      `Task ${taskId} is ${task.status}${task.payment_method === "account" ? " (billed to an account)" : ""}: ` +
        "only a task accepted and awaiting its USDC payment can be paid.",
    );
  }
  const wanted = values.network ?? task.networks[0]?.network;
  const net = task.networks.find((n) => n.network === wanted);
  if (!net) {
    throw new Error(
      `Network ${wanted ?? "(none)"} is not configured; configured: ${task.networks.map((n) => n.network).join(", ") || "none"}`,
    );
  }
  if (values.x402) {
    await payWithX402(running.url, taskId, net.chain_id, {
      key: values.key,
      accessToken: values["access-token"],
    });
    return;
  }
  const amount = BigInt(task.payment_usdc_micro);
  const chain = connectLocalChain(net.rpc_url, net.chain_id);
  const hash = await chain.transfer(net.usdc_contract, ACCOUNTS.payer, net.wallet, amount);
  console.log(
    `Sent ${formatUsdc(amount)} USDC on ${net.network} (chain ${net.chain_id}) to ${net.wallet}: ${hash}`,
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const checked = await call("POST", "/_local/check-payments");
    if (checked.status !== 200)
      console.error(`checker: HTTP ${checked.status} ${JSON.stringify(checked.body)}`);
    const now = await read();
    if (now.paid_at) {
      console.log(`Task ${taskId} is ${now.status} (paid at ${now.paid_at}).`);
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`Task ${taskId} not marked paid after 30 s (status ${now.status})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * Pays task `taskId` through POST /api/task-pay on `base` with the official x402 client, the
 * payer's key signing for chain `chainId`; prints the settlement.
 * @throws Error without an owner credential, or when the answer is not 200
 */
async function payWithX402(
  base: string,
  taskId: string,
  chainId: number,
  credential: { key?: string | undefined; accessToken?: string | undefined },
): Promise<void> {
  if (!credential.key && !credential.accessToken) {
    throw new Error("--x402 needs the task's owner: --key <api key> or --access-token <tok_…>");
  }
  const [
    { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader },
    { ExactEvmScheme },
    { privateKeyToAccount },
  ] = await Promise.all([import("@x402/fetch"), import("@x402/evm"), import("viem/accounts")]);
  const payer = privateKeyToAccount(DEV_KEYS.payer);
  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: "eip155:*", client: new ExactEvmScheme(payer) }],
    // Local test USDC is no asset the client knows: allow any, as a dev tool may.
    spendControls: false,
    paymentRequirementsSelector: (_version, accepts) =>
      accepts.find((a) => a.network === `eip155:${chainId}`) ?? accepts[0]!,
  });
  const headers: Record<string, string> = credential.key
    ? { "x-api-key": credential.key }
    : { "x-task-access-token": credential.accessToken! };
  const res = await pay(`${base}/api/task-pay?task_id=${encodeURIComponent(taskId)}`, {
    method: "POST",
    headers,
  });
  const body = (await res.json()) as { status?: string; error?: unknown };
  if (res.status !== 200)
    throw new Error(`x402 payment of ${taskId}: HTTP ${res.status} ${JSON.stringify(body)}`);
  const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
  console.log(
    `Paid ${taskId} with x402 on ${settled.network}: ${settled.transaction} (status ${body.status}).`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * `npm run dev:pay -- <task_id> [--network ethereum|base]`: pays a task awaiting its USDC payment
 * from `npm run dev`'s funded payer, on that run's local chain (default: the first network,
 * ethereum), then runs the payment checker at once and waits until the task is marked paid.
 *
 * Talks to the running `npm run dev` through its loopback control channel (the control file in
 * DATA_DIR, scripts/local-control.ts): reads the task's exact amount (micro-USDC) and the
 * network's RPC URL, token and wallet there. Exits 1 with a message when no dev server runs, the
 * task does not await a USDC payment, or it is not marked paid within 30 s.
 */
import { parseArgs } from "node:util";
import type { Address } from "viem";
import { formatUsdc } from "../lib/money.js";
import { ACCOUNTS, connectLocalChain } from "./dev/local-chain.js";
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
    options: { network: { type: "string" } },
  });
  const taskId = positionals[0];
  if (!taskId) throw new Error("Usage: npm run dev:pay -- <task_id> [--network ethereum|base]");
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
  if (task.status !== "accepted_pending_payment" || !task.payment_usdc_micro) {
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

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

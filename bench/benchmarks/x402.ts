/**
 * `x402`: time from the paying request to `paid` (docs/x402.md). A local Hardhat chain with the
 * EIP-3009 TestUSDC (automine: each transaction mined at once), the service on the local host
 * (real HTTP) over the embedded database (PGlite on a fresh data directory, as `npm start` runs
 * it), the relayer settling in-process. For each of `BENCH_X402_RUNS` (default 20) tasks awaiting
 * payment, an agent with the official client (@x402/fetch + @x402/evm, a viem local account) POSTs
 * to /api/task-pay: the 402, the signing, the paid request (verify, broadcast, receipt, recording)
 * and the answer. Reported: the whole client-side time, and the paid request alone (the time
 * from the request carrying PAYMENT-SIGNATURE to the 200 of the paid task); median, p90, max.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { num, table } from "../lib/report.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

const WALLET = "0x5e1f000000000000000000000000000000c0ffee";

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(ctx: BenchContext): Promise<Section> {
  const runs = Number(process.env.BENCH_X402_RUNS ?? 20);
  const [{ ACCOUNTS, DEV_KEYS, startLocalChain }, { startLocalHost }] = await Promise.all([
    import("../../scripts/dev/local-chain.js"),
    import("../../scripts/local-host.js"),
  ]);
  const chain = await startLocalChain(31337);
  const dataDir = mkdtempSync(path.join(tmpdir(), "ptes-bench-x402-"));
  const whole: number[] = [];
  const paidRequest: number[] = [];
  try {
    const token = await chain.deployToken();
    await chain.mint(token, ACCOUNTS.payer, 1_000_000_000_000n);
    Object.assign(process.env, {
      DATA_DIR: dataDir,
      ETHEREUM_RPC_URL: chain.url,
      ETHEREUM_CHAIN_ID: "31337",
      ETHEREUM_USDC_CONTRACT: token,
      ETHEREUM_WALLET: WALLET,
      ETHEREUM_CONFIRMATIONS: "1",
      X402_RELAYER_PRIVATE_KEY: DEV_KEYS.relayer,
      // Keyless payers (access tokens): two requests per payment, more than the per-IP default.
      RATE_LIMIT_ANON_PER_MIN: "10000",
    });
    delete process.env.DATABASE_URL;
    delete process.env.BASE_RPC_URL;
    delete process.env.X402_FACILITATOR_URL;
    const { resetConfig } = await import("../../lib/config.js");
    resetConfig();
    const [
      { getDb, closeDatabase },
      { tasks },
      { sha256Hex },
      { wrapFetchWithPaymentFromConfig },
      { ExactEvmScheme },
      { privateKeyToAccount },
    ] = await Promise.all([
      import("../../lib/db/client.js"),
      import("../../lib/db/schema/index.js"),
      import("../../lib/ids.js"),
      import("@x402/fetch"),
      import("@x402/evm"),
      import("viem/accounts"),
    ]);
    const host = await startLocalHost({
      root: ctx.root,
      port: 0,
      host: "127.0.0.1",
      crons: false,
      log: () => {},
    });
    try {
      const db = await getDb();
      const now = Date.now();
      const ids = Array.from({ length: runs }, (_, i) => `TASK-BENCH-X402-${i}`);
      await db.insert(tasks).values(
        ids.map((id, i) => ({
          id,
          serviceType: "SVC-01" as const,
          status: "accepted_pending_payment" as const,
          locationAddress: "Laval",
          taskDescription: "Benchmark task",
          requesterContact: "bench@example.com",
          reviewDeadline: new Date(now + 86_400_000),
          executionDeadline: new Date(now + 3 * 86_400_000),
          priceCad: 100,
          paymentMethod: "usdc" as const,
          paymentUsdcMicro: 71_000_000n + BigInt(i),
          paymentExpiresAt: new Date(now + 48 * 3_600_000),
          accessTokenHash: sha256Hex(`tok_bench_${i}`),
        })),
      );
      // The paid request alone: timed by a fetch that notes when it sends PAYMENT-SIGNATURE.
      let paidStarted = 0;
      const timed: typeof fetch = async (input, init) => {
        const request = new Request(input, init);
        const signed = request.headers.has("payment-signature");
        if (signed) paidStarted = performance.now();
        const res = await fetch(request);
        if (signed) paidRequest.push(performance.now() - paidStarted);
        return res;
      };
      const pay = wrapFetchWithPaymentFromConfig(timed, {
        schemes: [{ network: "eip155:*", client: new ExactEvmScheme(privateKeyToAccount(DEV_KEYS.payer)) }],
        spendControls: false,
      });
      for (const [i, id] of ids.entries()) {
        const t = performance.now();
        const res = await pay(`${host.url}/api/task-pay?task_id=${id}`, {
          method: "POST",
          headers: { "x-task-access-token": `tok_bench_${i}` },
        });
        const body = (await res.json()) as { status?: string };
        if (res.status !== 200 || body.status !== "paid") {
          throw new Error(`x402 payment of ${id}: HTTP ${res.status} ${JSON.stringify(body)}`);
        }
        whole.push(performance.now() - t);
        ctx.log(`x402: ${i + 1}/${runs} paid in ${num(whole.at(-1)!)} ms`);
      }
    } finally {
      await host.close();
      await closeDatabase();
    }
  } finally {
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const row = (label: string, xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return [label, num(xs.length), num(quantile(s, 0.5)), num(quantile(s, 0.9)), num(s.at(-1)!)];
  };
  const body = [
    `${runs} tasks paid one after another with @x402/fetch on a local Hardhat chain (automine), the service on ` +
      "the local host over PGlite (fresh data directory), the relayer settling in-process.",
    "",
    table(
      ["Measured", "Runs", "Median ms", "p90 ms", "Max ms"],
      [
        row("402 → sign → paid (client side, whole)", whole),
        row("paid request (PAYMENT-SIGNATURE → 200 paid)", paidRequest),
      ],
    ),
    "",
    "- The paid request holds: the chain reads (`authorizationState`, `balanceOf`), the facilitator's verify " +
      "(signature, simulation), the claim row, the broadcast of `transferWithAuthorization`, the receipt (mined " +
      "at once here; on a real network add its block time), the block header, and one transaction recording the " +
      "payment (task, event, audit, receipt invoice, transfer row, settlement).",
  ].join("\n");
  return { name: "x402", title: "x402: paying request to paid", command: "npm run bench -- x402", body };
}

export const x402Benchmark: Benchmark = {
  name: "x402",
  title: "x402: paying request to paid",
  description: "time from the x402 paying request to `paid` (median of 20) on a local chain, PGlite",
  run,
};

/**
 * Security suite, payments row: a transfer never pays the wrong task.
 *
 * A transfer never pays the wrong task (docs/payments.md "Payments", amounts), on a real local chain
 * (Hardhat, TestUSDC) with the real checker: task A is approved, its payer sends A's exact
 * amount, A is cancelled or expires before the checker sees the transfer, then B is
 * approved at the same price. B must not be paid by A's transfer:
 *
 * - within AMOUNT_REUSE_COOLDOWN_HOURS (default 168) B does not even get A's amount;
 * - with the cooldown off, B gets it, but the transfer's block time is before B's
 *   assignment, so it stays `unmatched` / `late` with a reason naming both tasks;
 * - a transfer sent before any task had the amount never pays the task that gets it later.
 *
 * Every case ends with B paid by a transfer of its own, sent after its approval.
 */
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as listTransfers } from "../../api/chain-transfers.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { chainTransfers, tasks } from "../../lib/db/schema/index.js";
import { checkPayments } from "../../lib/jobs/check-payments.js";
import { cadToMicroUsdc } from "../../lib/money.js";
import { expireOverduePayments } from "../../lib/tasks/expire-payments.js";
import { ACCOUNTS, type LocalChain, startLocalChain } from "../../scripts/dev/local-chain.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { cancelTask, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();
// Each test drives a local Hardhat chain (EDR, CPU-bound) and the service: a few seconds alone,
// several times that on a busy 2-core machine. The limit only guards against a hang.
vi.setConfig({ testTimeout: 120_000 });

const WALLET = "0x5e1f000000000000000000000000000000beef01" as Address;
/** The `fixed` exchange-rate provider's rate in tests (CAD_USD_FALLBACK_RATE default). */
const RATE = 0.71;
let chain: LocalChain;
let token: Address;
let admin: string;
const saved = { ...process.env };

function configure(cooldownHours: string | undefined) {
  Object.assign(process.env, {
    ETHEREUM_RPC_URL: chain.url,
    ETHEREUM_CHAIN_ID: String(chain.chainId),
    ETHEREUM_USDC_CONTRACT: token,
    ETHEREUM_WALLET: WALLET,
    ETHEREUM_CONFIRMATIONS: "1",
    ETHEREUM_START_BLOCK: "0",
  });
  if (cooldownHours === undefined) delete process.env.AMOUNT_REUSE_COOLDOWN_HOURS;
  else process.env.AMOUNT_REUSE_COOLDOWN_HOURS = cooldownHours;
  resetConfig();
}

beforeAll(async () => {
  chain = await startLocalChain(31337);
  token = await chain.deployToken();
  await chain.mint(token, ACCOUNTS.payer, 10_000_000_000n);
  await chain.mint(token, ACCOUNTS.otherPayer, 10_000_000_000n);
  configure(undefined);
  admin = await makeKey(["admin"]);
}, 60_000);

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetConfig();
  await chain?.close();
});

async function approve(price: number) {
  const { body: created } = await submitTask(validTask);
  const review = await reviewTask(admin, { task_id: created.task_id, action: "approve", price_cad: price });
  expect(review.res.status).toBe(200);
  return taskRow(created.task_id as string);
}

async function taskRow(id: string) {
  const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
  return row!;
}

async function transferOf(txHash: string) {
  const [row] = await (await getDb())
    .select()
    .from(chainTransfers)
    .where(eq(chainTransfers.txHash, txHash.toLowerCase()));
  return row!;
}

/** Sends `amount`; returns the transaction hash and its block time. */
async function send(amount: bigint) {
  const tx = await chain.transfer(token, ACCOUNTS.payer, WALLET, amount);
  const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx });
  const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
  return { tx, blockTime: new Date(Number(block.timestamp) * 1000) };
}

/** Waits until the wall clock is past the second of `time` (block times have whole seconds). */
async function waitPast(time: Date) {
  while (Date.now() < time.getTime() + 1100) await new Promise((r) => setTimeout(r, 100));
}

type Ending = "cancelled" | "expired" | "none";
const CASES: {
  name: string;
  ending: Ending;
  cooldown?: string;
  /** B gets the amount A had (or the amount the early transfer carried). */
  sameAmount: boolean;
  status: "unmatched" | "late";
  reason: (a: string | null, b: string) => string[];
}[] = [
  {
    name: "A cancelled, B approved within the cooldown: B gets another amount",
    ending: "cancelled",
    sameAmount: false,
    status: "unmatched",
    reason: (a) => [`Task ${a} with this amount is cancelled, not awaiting payment`],
  },
  {
    name: "A expired, B approved within the cooldown: B gets another amount",
    ending: "expired",
    sameAmount: false,
    status: "late",
    reason: (a) => [`inside task ${a}'s payment window`, "confirmed after the task had expired"],
  },
  {
    name: "A cancelled, no cooldown: B gets A's amount but not A's earlier transfer",
    ending: "cancelled",
    cooldown: "0",
    sameAmount: true,
    status: "unmatched",
    reason: (a, b) => [`Task ${a} with this amount is cancelled`, `task ${b} was given this amount only at`],
  },
  {
    name: "A expired, no cooldown: B gets A's amount but not A's earlier transfer",
    ending: "expired",
    cooldown: "0",
    sameAmount: true,
    status: "late",
    reason: (a, b) => [`inside task ${a}'s payment window`, `task ${b} was given this amount only at`],
  },
  {
    name: "a transfer sent before any task had the amount does not pay the task that gets it",
    ending: "none",
    sameAmount: true,
    status: "unmatched",
    reason: (_a, b) => ["No task awaited a payment of exactly", `task ${b} was given this amount only at`],
  },
];

describe("a transfer pays only the task that held its amount when it was sent", () => {
  it.each(CASES.map((c, i) => ({ ...c, price: 269.57 + i * 10 })))("$name", async (c) => {
    configure(c.cooldown);
    let a: Awaited<ReturnType<typeof approve>> | null = null;
    let amount: bigint;
    if (c.ending === "none") {
      amount = cadToMicroUsdc(c.price, RATE);
    } else {
      a = await approve(c.price);
      amount = a.paymentUsdcMicro!;
    }
    const early = await send(amount);

    if (c.ending === "cancelled") {
      const cancelled = await cancelTask(a!.id, keyHeaders(admin));
      expect(cancelled.res.status).toBe(200);
    } else if (c.ending === "expired") {
      // The window closes after the transfer was mined, before the checker saw it.
      const closes = new Date(Math.max(Date.now(), early.blockTime.getTime()) + 1000);
      await (await getDb()).update(tasks).set({ paymentExpiresAt: closes }).where(eq(tasks.id, a!.id));
      await expireOverduePayments(new Date(closes.getTime() + 1000));
      expect((await taskRow(a!.id)).status).toBe("payment_expired");
    }

    await waitPast(early.blockTime);
    const b = await approve(c.price);
    expect(b.paymentUsdcMicro === amount).toBe(c.sameAmount);

    const run = await checkPayments();
    expect(run.ok).toBe(true);
    expect((await taskRow(b.id)).status).toBe("accepted_pending_payment");
    const row = await transferOf(early.tx);
    expect(row.status).toBe(c.status);
    expect(row.taskId).toBe(a?.id ?? null);
    for (const part of c.reason(a?.id ?? null, b.id)) expect(row.reason).toContain(part);

    // The operator sees it with its reason.
    const listed = await call(listTransfers, `/api/chain-transfers?status=${c.status}`, {
      headers: keyHeaders(admin),
    });
    expect(listed.body.transfers.find((t: { tx_hash: string }) => t.tx_hash === early.tx)).toMatchObject({
      status: c.status,
      reason: row.reason,
    });

    // B's own payment, sent after its approval, pays it.
    const own = await send(b.paymentUsdcMicro!);
    await checkPayments();
    expect(await taskRow(b.id)).toMatchObject({ status: "paid", paymentTxHash: own.tx });
    expect(await transferOf(own.tx)).toMatchObject({ status: "matched", taskId: b.id });
  });
});

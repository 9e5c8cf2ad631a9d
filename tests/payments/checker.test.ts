/**
 * The payment checker against two real local EVM chains (Hardhat, chain ids 31337 as
 * "ethereum" and 31338 as "base"), each with the TestUSDC token: real approvals, real
 * transfers, the real cron endpoint and /api/status.
 */
import { and, eq } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listTransfers } from "../../api/chain-transfers.js";
import { GET as cronCheck } from "../../api/cron/check-payments.js";
import { GET as statusGet } from "../../api/status.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { chainCursors, chainTransfers, invoices, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { checkPayments } from "../../lib/jobs/check-payments.js";
import { formatUsdc } from "../../lib/money.js";
import { paymentNetworks } from "../../lib/payments/networks.js";
import { expireOverduePayments } from "../../lib/tasks/expire-payments.js";
import { ACCOUNTS, type LocalChain, startLocalChain } from "../../scripts/dev/local-chain.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { getStatus, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

const WALLET = "0x5e1f000000000000000000000000000000c0ffee" as Address;
let l1: LocalChain;
let l2: LocalChain;
let l1Token: Address;
let l2Token: Address;
let admin: string;
const saved = { ...process.env };

function useNetworks(overrides: Record<string, string> = {}) {
  Object.assign(process.env, {
    ETHEREUM_RPC_URL: l1.url,
    ETHEREUM_CHAIN_ID: String(l1.chainId),
    ETHEREUM_USDC_CONTRACT: l1Token,
    ETHEREUM_WALLET: WALLET,
    ETHEREUM_CONFIRMATIONS: "1",
    ETHEREUM_START_BLOCK: "0",
    BASE_RPC_URL: l2.url,
    BASE_CHAIN_ID: String(l2.chainId),
    BASE_USDC_CONTRACT: l2Token,
    BASE_WALLET: WALLET,
    BASE_CONFIRMATIONS: "2",
    BASE_START_BLOCK: "0",
    CHECKER_BLOCK_RANGE: "4",
    CHECKER_RESCAN_BLOCKS: "6",
    // Nothing here hangs: the bound (the default) only guards against a hang, and must never be
    // reached by the local nodes' answers on a loaded machine.
    CHECKER_RPC_TIMEOUT_MS: "10000",
    ...overrides,
  });
  resetConfig();
}

beforeAll(async () => {
  [l1, l2] = await Promise.all([startLocalChain(31337), startLocalChain(31338)]);
  [l1Token, l2Token] = await Promise.all([l1.deployToken(), l2.deployToken()]);
  for (const [chain, token] of [
    [l1, l1Token],
    [l2, l2Token],
  ] as const) {
    await chain.mint(token, ACCOUNTS.payer, 10_000_000_000n);
    await chain.mint(token, ACCOUNTS.otherPayer, 10_000_000_000n);
  }
  useNetworks();
  admin = await makeKey(["admin"]);
}, 60_000);

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetConfig();
  await Promise.all([l1?.close(), l2?.close()]);
});

/** Submits and approves a task; returns its id and exact amount (micro-USDC). */
async function approvedTask(
  body: Record<string, unknown> = {},
  action: "approve" | "counter_offer" = "approve",
  headers: Record<string, string> = {},
) {
  const { body: created } = await submitTask({ ...validTask, ...body }, headers);
  expect(created.task_id).toBeTruthy();
  const review = await reviewTask(admin, {
    task_id: created.task_id,
    action,
    ...(action === "counter_offer" ? { counter_offer_amount: 321.45 } : {}),
  });
  expect(review.res.status).toBe(200);
  const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, created.task_id));
  return { id: created.task_id as string, micro: row!.paymentUsdcMicro! };
}

async function transfersOf(txHash: string) {
  return (await getDb()).select().from(chainTransfers).where(eq(chainTransfers.txHash, txHash.toLowerCase()));
}

async function taskRow(id: string) {
  const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
  return row!;
}

async function cursor(network: string) {
  const [row] = await (await getDb()).select().from(chainCursors).where(eq(chainCursors.network, network));
  return row;
}

describe("payment networks", () => {
  it("lists both configured networks, layer 1 first, in status responses and /api/status", async () => {
    expect(paymentNetworks().map((n) => [n.network, n.chain_id])).toEqual([
      ["ethereum", 31337],
      ["base", 31338],
    ]);
    const { id } = await approvedTask();
    const { body } = await getStatus(id, keyHeaders(admin));
    expect(body.payment.networks).toHaveLength(2);
    expect(body.payment.networks[0]).toMatchObject({
      network: "ethereum",
      chain_id: 31337,
      usdc_contract: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      wallet: getAddress(WALLET), // EIP-55 checksummed for payers
      confirmations: 1,
    });
    expect(body.payment.networks[0].usdc_contract.toLowerCase()).toBe(l1Token);
    const status = await call(statusGet, "/api/status");
    expect(status.body.blockchain.networks).toEqual(["ethereum", "base"]);
  });
});

describe("payment checker", () => {
  it("marks a task paid on an exact transfer, storing tx, log, block and sender", async () => {
    const { id, micro } = await approvedTask();
    const tx = await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, micro);
    const result = await checkPayments();
    expect(result.ok).toBe(true);
    expect(result.details).toMatchObject({ matched: 1, networks_scanned: 2 });
    const task = await taskRow(id);
    expect(task.status).toBe("paid");
    expect(task.paymentMethod).toBe("usdc");
    expect(task.paymentNetwork).toBe("ethereum");
    expect(task.paymentTxHash).toBe(tx);
    const [transfer] = await transfersOf(tx);
    const receipt = await l1.publicClient.getTransactionReceipt({ hash: tx });
    expect(transfer).toMatchObject({
      status: "matched",
      taskId: id,
      network: "ethereum",
      chainId: 31337,
      fromAddress: ACCOUNTS.payer,
      toAddress: WALLET,
      tokenAddress: l1Token,
      amountMicro: micro,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      logIndex: receipt.logs[0]!.logIndex,
    });
    expect(transfer!.blockTime).toBeInstanceOf(Date);
    const { body } = await getStatus(id, keyHeaders(admin));
    expect(body.status).toBe("paid");
    expect(body.payment).toMatchObject({ network: "ethereum", tx_hash: tx, payment_usdc: formatUsdc(micro) });
    // The payment's receipt was issued in the checker's batch transaction (docs/taxes.md "USDC receipts").
    const [issued] = await (await getDb()).select().from(invoices).where(eq(invoices.taskId, id));
    expect(body.payment.receipt_invoice_id).toBe(issued!.id);
    expect(issued).toMatchObject({
      kind: "usdc_receipt",
      number: expect.stringMatching(/^\d{4}-\d{6}$/),
      paymentNetwork: "ethereum",
      paymentTxHash: tx,
      usdcMicro: micro,
      exchangeRate: task.exchangeRate,
      amountCad: task.priceCad,
    });
  });

  it("keeps a wrong amount as unmatched and shows it to the operator", async () => {
    const { id, micro } = await approvedTask();
    const wrong = micro + 1_000_000n; // one USDC too much
    const tx = await l1.transfer(l1Token, ACCOUNTS.otherPayer, WALLET, wrong);
    const result = await checkPayments();
    expect(result.details).toMatchObject({ matched: 0, unmatched: 1 });
    expect((await taskRow(id)).status).toBe("accepted_pending_payment");
    const [transfer] = await transfersOf(tx);
    expect(transfer).toMatchObject({ status: "unmatched", taskId: null, fromAddress: ACCOUNTS.otherPayer });
    expect(transfer!.reason).toContain(`No task awaits a payment of exactly ${formatUsdc(wrong)} USDC`);

    const { res, body } = await call(listTransfers, "/api/chain-transfers", { headers: keyHeaders(admin) });
    expect(res.status).toBe(200);
    const listed = body.transfers.find((t: { tx_hash: string }) => t.tx_hash === tx);
    expect(listed).toMatchObject({
      status: "unmatched",
      amount_usdc: formatUsdc(wrong),
      from: ACCOUNTS.otherPayer,
      network: "ethereum",
      chain_id: 31337,
    });
    expect(body.transfers.every((t: { status: string }) => ["unmatched", "late"].includes(t.status))).toBe(
      true,
    );
    const matched = await call(listTransfers, "/api/chain-transfers?status=matched&network=ethereum", {
      headers: keyHeaders(admin),
    });
    expect(matched.body.transfers.length).toBeGreaterThan(0);
    expect(matched.body.transfers.every((t: { status: string }) => t.status === "matched")).toBe(true);
  });

  it("changes nothing when run again, even over the same blocks from scratch", async () => {
    const db = await getDb();
    const before = await db.select().from(chainTransfers);
    const paidEvents = await db.select().from(taskEvents).where(eq(taskEvents.type, "task.paid"));
    const again = await checkPayments();
    expect(again.details).toMatchObject({ matched: 0, unmatched: 0, late: 0 });
    // Forget the cursors: the whole chain is scanned again.
    await db.delete(chainCursors);
    const rescan = await checkPayments();
    expect(rescan.ok).toBe(true);
    expect((rescan.details as { transfers_seen: number }).transfers_seen).toBeGreaterThanOrEqual(2);
    expect(rescan.details).toMatchObject({ matched: 0, unmatched: 0, late: 0, reorged: 0 });
    const after = await db.select().from(chainTransfers);
    expect(after.map((t) => [t.id, t.status, t.updatedAt.getTime()]).sort()).toEqual(
      before.map((t) => [t.id, t.status, t.updatedAt.getTime()]).sort(),
    );
    expect(await db.select().from(taskEvents).where(eq(taskEvents.type, "task.paid"))).toHaveLength(
      paidEvents.length,
    );
  });

  it("keeps a second payment of a paid task as unmatched, naming the task", async () => {
    const { id, micro } = await approvedTask();
    const first = await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, micro);
    const second = await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, micro);
    const result = await checkPayments();
    expect(result.details).toMatchObject({ matched: 1, unmatched: 1 });
    expect((await transfersOf(first))[0]).toMatchObject({ status: "matched", taskId: id });
    const [dup] = await transfersOf(second);
    expect(dup).toMatchObject({ status: "unmatched", taskId: id });
    expect(dup!.reason).toContain(`Task ${id} was already paid`);
    const events = await (await getDb())
      .select()
      .from(taskEvents)
      .where(and(eq(taskEvents.taskId, id), eq(taskEvents.type, "task.paid")));
    expect(events).toHaveLength(1);
  });

  it("pays many tasks in several batches running side by side, each paid once with its event", async () => {
    useNetworks({ CHECKER_PAY_BATCH: "2" });
    try {
      const approved = [];
      for (let i = 0; i < 5; i++) approved.push(await approvedTask(i % 2 ? {} : { urgency: "urgent" }));
      // One transaction, five Transfer logs: five payments, three batches of at most two.
      const tx = await l1.batchTransfer(
        l1Token,
        ACCOUNTS.payer,
        WALLET,
        approved.map((a) => a.micro),
      );
      const result = await checkPayments();
      expect(result.ok).toBe(true);
      expect(result.details).toMatchObject({ matched: 5, unmatched: 0 });
      const transfers = await transfersOf(tx);
      expect(transfers.map((t) => [t.taskId, t.status]).sort()).toEqual(
        approved.map((a) => [a.id, "matched"]).sort(),
      );
      for (const { id, micro } of approved) {
        const task = await taskRow(id);
        expect(task).toMatchObject({ status: "paid", paymentTxHash: tx, paymentNetwork: "ethereum" });
        expect(transfers.find((t) => t.taskId === id)!.amountMicro).toBe(micro);
        const paid = await (await getDb())
          .select()
          .from(taskEvents)
          .where(and(eq(taskEvents.taskId, id), eq(taskEvents.type, "task.paid")));
        expect(paid).toHaveLength(1);
        expect(paid[0]!.payload).toMatchObject({
          status: "paid",
          tx_hash: tx,
          execution_deadline: task.executionDeadline.toISOString(),
        });
      }
    } finally {
      useNetworks();
    }
  });

  it("pays a counter-offer with its own amount", async () => {
    const { id, micro } = await approvedTask({}, "counter_offer");
    expect((await taskRow(id)).status).toBe("counter_offered");
    await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, micro);
    await checkPayments();
    const task = await taskRow(id);
    expect(task.status).toBe("paid");
    expect(task.priceCad).toBe(321.45);
  });

  it("keeps a payment after the window as late, and the task expires", async () => {
    const db = await getDb();
    const { id, micro } = await approvedTask();
    await db
      .update(tasks)
      .set({ paymentExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(tasks.id, id));
    const tx = await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, micro);
    const result = await checkPayments();
    expect(result.details).toMatchObject({ matched: 0, late: 1 });
    const [late] = await transfersOf(tx);
    expect(late).toMatchObject({ status: "late", taskId: id });
    expect(late!.reason).toContain("after task");
    expect((await taskRow(id)).status).toBe("accepted_pending_payment");
    await expireOverduePayments();
    expect((await taskRow(id)).status).toBe("payment_expired");

    // A payment arriving once the task is already payment_expired is late too.
    const again = await l1.transfer(l1Token, ACCOUNTS.otherPayer, WALLET, micro);
    await checkPayments();
    expect((await transfersOf(again))[0]).toMatchObject({ status: "late", taskId: id });
    const { body } = await call(listTransfers, "/api/chain-transfers?status=late", {
      headers: keyHeaders(admin),
    });
    expect(body.transfers.map((t: { tx_hash: string }) => t.tx_hash)).toEqual(
      expect.arrayContaining([tx, again]),
    );
  });

  it("never matches a sandbox task's amount", async () => {
    const { body: created } = await submitTask(validTask, { "x-service-mode": "sandbox" });
    await getStatus(created.task_id); // sandbox advances to accepted_pending_payment
    const sandbox = await taskRow(created.task_id);
    expect(sandbox.status).toBe("accepted_pending_payment");
    // Sandbox amounts skip uniqueness: take real tasks with the same amount out of the way.
    const db = await getDb();
    await db
      .update(tasks)
      .set({ status: "cancelled" })
      .where(and(eq(tasks.paymentUsdcMicro, sandbox.paymentUsdcMicro!), eq(tasks.sandbox, false)));
    const tx = await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, sandbox.paymentUsdcMicro!);
    await checkPayments();
    expect((await taskRow(sandbox.id)).status).toBe("accepted_pending_payment");
    const [transfer] = await transfersOf(tx);
    expect(transfer?.status).toBe("unmatched");
    expect(transfer?.taskId).not.toBe(sandbox.id);
  });

  it("pays on two networks in one run, counting Base blocks only after 2 confirmations", async () => {
    const a = await approvedTask();
    const b = await approvedTask();
    await l1.transfer(l1Token, ACCOUNTS.payer, WALLET, a.micro);
    const onBase = await l2.transfer(l2Token, ACCOUNTS.payer, WALLET, b.micro);
    const first = await checkPayments();
    expect(first.details).toMatchObject({ matched: 1 });
    expect((await taskRow(a.id)).paymentNetwork).toBe("ethereum");
    expect((await taskRow(b.id)).status).toBe("accepted_pending_payment"); // 1 confirmation of 2
    await l2.mine(1);
    const second = await checkPayments();
    expect(second.details).toMatchObject({ matched: 1 });
    const task = await taskRow(b.id);
    expect(task).toMatchObject({ status: "paid", paymentNetwork: "base", paymentTxHash: onBase });
    expect((await transfersOf(onBase))[0]).toMatchObject({ chainId: 31338, network: "base" });
    const base = await cursor("base");
    expect(base!.lastScannedBlock).toBe((await l2.publicClient.getBlockNumber()) - 1n);
    expect(base!.lastBlockHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("runs as the every-minute cron endpoint and reports a healthy checker", async () => {
    const { res, body } = await call(cronCheck, "/api/cron/check-payments");
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ job: "check-payments", ok: true });
    const status = await call(statusGet, "/api/status");
    expect(status.body.services.payment_checker.status).toBe("healthy");
    expect(typeof status.body.services.payment_checker.pending_checked).toBe("number");
  });
});

describe("GET /api/chain-transfers", () => {
  it.each([
    ["status=paid", "VALIDATION_ERROR"],
    ["limit=0", "VALIDATION_ERROR"],
    ["limit=501", "VALIDATION_ERROR"],
    ["offset=-1", "VALIDATION_ERROR"],
  ])("rejects %s with %s", async (query, code) => {
    const { res, body } = await call(listTransfers, `/api/chain-transfers?${query}`, {
      headers: keyHeaders(admin),
    });
    // e.g. `status.0` for the first item of the comma-separated list
    expect(expectEnvelope(body, res, 422, code).field).toMatch(new RegExp(`^${query.split("=")[0]}`));
  });

  it("is for the operator only", async () => {
    const anonymous = await call(listTransfers, "/api/chain-transfers");
    expectEnvelope(anonymous.body, anonymous.res, 401, "UNAUTHORIZED");
    const agent = await makeKey();
    const { res, body } = await call(listTransfers, "/api/chain-transfers", { headers: keyHeaders(agent) });
    expectEnvelope(body, res, 403, "FORBIDDEN");
  });

  it("paginates newest first with the total", async () => {
    const all = await call(listTransfers, "/api/chain-transfers?status=matched,unmatched,late", {
      headers: keyHeaders(admin),
    });
    const page = await call(
      listTransfers,
      "/api/chain-transfers?status=matched,unmatched,late&limit=2&offset=1",
      {
        headers: keyHeaders(admin),
      },
    );
    expect(page.body).toMatchObject({ total: all.body.total, limit: 2, offset: 1 });
    expect(page.body.transfers.map((t: { id: string }) => t.id)).toEqual(
      all.body.transfers.slice(1, 3).map((t: { id: string }) => t.id),
    );
  });
});

describe("reorgs", () => {
  it("never counts a payment that was reorganized away before confirmation", async () => {
    const { id, micro } = await approvedTask();
    const snapshot = await l2.rpc<string>("evm_snapshot");
    await l2.transfer(l2Token, ACCOUNTS.payer, WALLET, micro);
    await checkPayments(); // 1 confirmation of 2: not counted
    await l2.rpc("evm_revert", [snapshot]);
    await l2.mine(3);
    const result = await checkPayments();
    expect(result.ok).toBe(true);
    expect((await taskRow(id)).status).toBe("accepted_pending_payment");
  });

  it("marks a recorded transfer that disappears from the re-scan window as reorged", async () => {
    const { micro } = await approvedTask();
    const snapshot = await l2.rpc<string>("evm_snapshot");
    const wrong = micro + 7n * 1_000_000n;
    const tx = await l2.transfer(l2Token, ACCOUNTS.otherPayer, WALLET, wrong);
    await l2.mine(1);
    await checkPayments();
    expect((await transfersOf(tx))[0]?.status).toBe("unmatched");
    await l2.rpc("evm_revert", [snapshot]);
    await l2.mine(4); // a longer chain without the transfer
    const result = await checkPayments();
    expect(result.details).toMatchObject({ reorged: 1 });
    const [gone] = await transfersOf(tx);
    expect(gone).toMatchObject({ status: "reorged" });
    expect(gone!.reason).toContain("no longer on chain");
    const { body } = await call(listTransfers, "/api/chain-transfers?status=reorged", {
      headers: keyHeaders(admin),
    });
    expect(body.transfers.map((t: { tx_hash: string }) => t.tx_hash)).toContain(tx);
  });
});

/**
 * Exact amounts (micro-USDC, never floats), the uniqueness rule among open payments,
 * the network configuration, and the committed test-token artifact.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { paymentAmounts, tasks } from "../../lib/db/schema/index.js";
import { cadToMicroUsdc, formatUsdc } from "../../lib/money.js";
import { configuredNetworkNames, networkConfigs, paymentNetworks } from "../../lib/payments/networks.js";
import { reserveAmount } from "../../lib/tasks/state/amount-reservations.js";
import { compileTestToken } from "../../scripts/compile-test-token.js";
import { testToken } from "../../scripts/dev/local-chain.js";
import { useTestDatabase } from "../helpers/db.js";

useTestDatabase();

const WALLET = "0x1111111111111111111111111111111111111111";

describe("amounts", () => {
  it("converts CAD to micro-USDC exactly, rounding half up", () => {
    expect(cadToMicroUsdc(329.72, 0.71)).toBe(234_101_200n);
    expect(cadToMicroUsdc(0.01, 0.71684588)).toBe(7_168n); // 7168.4588 → 7168
    expect(cadToMicroUsdc(0.07, 0.71684588)).toBe(50_179n); // 50179.2116
    expect(cadToMicroUsdc(1, 0.0000005)).toBe(1n); // 0.5 micro rounds up
    expect(cadToMicroUsdc(999_999.99, 0.99999999)).toBe(999_999_980_000n);
    expect(formatUsdc(234_070_001n)).toBe("234.070001");
    expect(formatUsdc(5n)).toBe("0.000005");
  });

  it("gives the smallest amount no task holds or released within the cooldown", async () => {
    const db = await getDb();
    const base = 100_000_000n;
    const HOUR = 3_600_000;
    const now = new Date("2026-11-23T12:00:00Z");
    const row = (id: string, status: string, amount: bigint, sandbox = false) => ({
      id,
      sandbox,
      serviceType: "SVC-01" as const,
      status: status as never,
      locationAddress: "Laval",
      taskDescription: "x",
      requesterContact: "a@example.com",
      reviewDeadline: new Date(),
      executionDeadline: new Date(),
      paymentUsdcMicro: amount,
    });
    await db
      .insert(tasks)
      .values([
        row("TASK-A", "accepted_pending_payment", base),
        row("TASK-B", "counter_offered", base + 1n),
        row("TASK-C", "cancelled", base + 2n),
        row("TASK-D", "payment_expired", base + 3n),
        row("TASK-E", "paid", base + 4n),
        row("SANDBOX-F", "accepted_pending_payment", base + 5n, true),
        row("TASK-G", "received", base + 6n),
        row("TASK-H", "received", base + 7n),
        row("TASK-I", "received", base + 8n),
      ]);
    const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * HOUR);
    await db.insert(paymentAmounts).values([
      // TASK-A: held (open). TASK-B: open, inserted without a reservation row (still counts).
      { taskId: "TASK-A", amountMicro: base, assignedAt: at(2) },
      // Released 10 h ago: cooling down. Released 200 h ago: free again.
      { taskId: "TASK-C", amountMicro: base + 2n, assignedAt: at(20), releasedAt: at(10) },
      { taskId: "TASK-D", amountMicro: base + 3n, assignedAt: at(300), releasedAt: at(200) },
    ]);
    await db.transaction(async (tx) => {
      expect(await reserveAmount(tx, "TASK-G", base, now, 168)).toBe(base + 3n);
      // Sandbox amounts and paid tasks without a reservation do not count.
      expect(await reserveAmount(tx, "TASK-H", base + 4n, now, 168)).toBe(base + 4n);
      // Without cooldown, the amount released 10 h ago is free at once.
      expect(await reserveAmount(tx, "TASK-I", base, now, 0)).toBe(base + 2n);
    });
    const held = await db.select().from(paymentAmounts);
    expect(held.filter((h) => h.releasedAt === null).map((h) => [h.taskId, h.amountMicro])).toEqual(
      expect.arrayContaining([
        ["TASK-A", base],
        ["TASK-G", base + 3n],
        ["TASK-H", base + 4n],
        ["TASK-I", base + 2n],
      ]),
    );
    expect(held.find((h) => h.taskId === "TASK-G")!.assignedAt).toEqual(now);
  });
});

describe("network configuration", () => {
  it("counts a network as configured when its RPC URL and wallet are set", () => {
    expect(configuredNetworkNames(parseConfig({}))).toEqual([]);
    expect(configuredNetworkNames(parseConfig({ BASE_RPC_URL: "https://base.example" }))).toEqual([]);
    const both = parseConfig({
      ETHEREUM_RPC_URL: "https://eth.example",
      ETHEREUM_WALLET: WALLET,
      BASE_RPC_URL: "https://base.example",
      BASE_WALLET: WALLET,
    });
    expect(configuredNetworkNames(both)).toEqual(["ethereum", "base"]);
    expect(paymentNetworks(both)).toEqual([
      {
        network: "ethereum",
        chain_id: 1,
        usdc_contract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        wallet: WALLET,
        finality: "finalized",
      },
      {
        network: "base",
        chain_id: 8453,
        usdc_contract: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        wallet: WALLET,
        finality: "safe",
      },
    ]);
    const onlyBase = parseConfig({
      BASE_RPC_URL: "https://b.example",
      BASE_WALLET: WALLET,
      BASE_CONFIRMATIONS: "12",
    });
    expect(networkConfigs(onlyBase)).toEqual([
      expect.objectContaining({ name: "base", layer: 2, confirmation: { confirmations: 12 } }),
    ]);
    expect(paymentNetworks(onlyBase)[0]).toMatchObject({ confirmations: 12 });
  });

  it.each([
    ["ETHEREUM_WALLET", "0x123"],
    ["BASE_USDC_CONTRACT", "usdc"],
    ["ETHEREUM_CONFIRMATIONS", "0"],
    ["BASE_CONFIRMATIONS", "pending"],
    ["ETHEREUM_RPC_URL", "not a url"],
    ["BASE_CHAIN_ID", "0"],
    ["ETHEREUM_START_BLOCK", "-1"],
    ["CHECKER_BLOCK_RANGE", "0"],
  ])("rejects %s=%s", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});

describe("test token", () => {
  it("ships an artifact compiled from contracts/TestUSDC.sol (npx tsx scripts/compile-test-token.ts)", () => {
    const fresh = compileTestToken();
    expect(testToken).toMatchObject({ bytecode: fresh.bytecode, sourceSha256: fresh.sourceSha256 });
    expect(fresh.abi).toContainEqual(expect.objectContaining({ name: "decimals", type: "function" }));
  });
});

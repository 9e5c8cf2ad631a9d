/**
 * Shared setup of the x402 tests: two local Hardhat chains (31337 as "ethereum", 31338 as "base")
 * with the EIP-3009 TestUSDC, the payer funded, the relayer configured (Hardhat account #4, which
 * holds ETH for gas), the service running on a real local HTTP host; helpers to approve tasks and
 * to sign x402 payments by hand (for the bad inputs the official client would never send).
 */
import { eq } from "drizzle-orm";
import { type Address, type Hex, toHex } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { chainTransfers, taskEvents, tasks, x402Settlements } from "../../lib/db/schema/index.js";
import { outboxIdle } from "../../lib/events/kick-outbox.js";
import { resetLimiters } from "../../lib/ratelimit/limiter.js";
import { ACCOUNTS, type LocalChain, startLocalChain } from "../../scripts/dev/local-chain.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { reviewTask, submitTask, validTask } from "../helpers/tasks.js";

/** Our receiving wallet on both chains. */
export const WALLET = "0x5e1f000000000000000000000000000000c0ffee" as Address;
/** Hardhat account #4: the relayer (pays the gas of transferWithAuthorization). */
export const RELAYER_KEY = "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a";
/** Hardhat account #1 (ACCOUNTS.payer): the paying agent, holding USDC. */
export const payer: PrivateKeyAccount = privateKeyToAccount(
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
);
/** Hardhat account #5: a payer without USDC. */
export const brokePayer: PrivateKeyAccount = privateKeyToAccount(
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
);

/** The running world of a test file. */
export const world = {} as {
  l1: LocalChain;
  l2: LocalChain;
  l1Token: Address;
  l2Token: Address;
  host: LocalHost;
  admin: string;
  /** The agent's key (audit_only, task_create). */
  agent: string;
};

/** Starts the chains, the host and the keys for the file; stops them after it. */
export function useX402World(): void {
  const saved = { ...process.env };
  beforeAll(async () => {
    const [l1, l2] = await Promise.all([startLocalChain(31337), startLocalChain(31338)]);
    const [l1Token, l2Token] = await Promise.all([l1.deployToken(), l2.deployToken()]);
    for (const [chain, token] of [
      [l1, l1Token],
      [l2, l2Token],
    ] as const) {
      await chain.mint(token, ACCOUNTS.payer, 100_000_000_000n);
    }
    Object.assign(process.env, {
      ETHEREUM_RPC_URL: l1.url,
      ETHEREUM_CHAIN_ID: "31337",
      ETHEREUM_USDC_CONTRACT: l1Token,
      ETHEREUM_WALLET: WALLET,
      ETHEREUM_CONFIRMATIONS: "1",
      ETHEREUM_START_BLOCK: "0",
      BASE_RPC_URL: l2.url,
      BASE_CHAIN_ID: "31338",
      BASE_USDC_CONTRACT: l2Token,
      BASE_WALLET: WALLET,
      BASE_CONFIRMATIONS: "1",
      BASE_START_BLOCK: "0",
      X402_RELAYER_PRIVATE_KEY: RELAYER_KEY,
    });
    delete process.env.X402_FACILITATOR_URL;
    delete process.env.X402_ENABLED;
    resetConfig();
    resetLimiters();
    const host = await startTestHost();
    Object.assign(world, {
      l1,
      l2,
      l1Token,
      l2Token,
      host,
      admin: await makeKey(["admin"]),
      agent: await makeKey(["audit_only", "task_create"]),
    });
  }, 120_000);
  afterAll(async () => {
    await world.host?.close();
    await outboxIdle();
    await Promise.all([world.l1?.close(), world.l2?.close()]);
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetConfig();
  });
}

/** Submits a task with the agent's key and approves (or counter-offers) it; its id and exact amount (micro-USDC). */
export async function approvedTask(action: "approve" | "counter_offer" = "approve") {
  const { body: created } = await submitTask(validTask, { "x-api-key": world.agent });
  expect(created.task_id).toBeTruthy();
  const review = await reviewTask(world.admin, {
    task_id: created.task_id,
    action,
    ...(action === "counter_offer" ? { counter_offer_amount: 321.45 } : {}),
  });
  expect(review.res.status).toBe(200);
  return { id: created.task_id as string, micro: (await taskRow(created.task_id)).paymentUsdcMicro! };
}

export async function taskRow(id: string) {
  const [row] = await (await getDb()).select().from(tasks).where(eq(tasks.id, id));
  return row!;
}

/** What is recorded about task `id`: its status, payment events, chain transfers and x402 settlements. */
export async function recordedFor(id: string) {
  const db = await getDb();
  const task = await taskRow(id);
  const paidEvents = (await db.select().from(taskEvents).where(eq(taskEvents.taskId, id))).filter(
    (e) => e.type === "task.paid",
  );
  const transfers = await db.select().from(chainTransfers).where(eq(chainTransfers.taskId, id));
  const settlements = await db.select().from(x402Settlements).where(eq(x402Settlements.taskId, id));
  return { task, paidEvents, transfers, settlements };
}

/** The pay URL of task `id` on the running host. */
export const payUrl = (id: string) => `${world.host.url}/api/task-pay?task_id=${encodeURIComponent(id)}`;

/** A requirement as x402 v2 writes it. */
export interface Requirement {
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string };
}

/** The PaymentRequired of a 402 (its PAYMENT-REQUIRED header decoded). */
export function decodeRequired(res: Response): {
  x402Version: number;
  error?: string;
  accepts: Requirement[];
} {
  const header = res.headers.get("payment-required");
  expect(header).toBeTruthy();
  return JSON.parse(Buffer.from(header!, "base64").toString("utf8"));
}

/**
 * An x402 v2 payment payload signed by `account` for `req` (EIP-3009 TransferWithAuthorization
 * under the requirement's EIP-712 domain), with `overrides` of the authorization.
 */
export async function signPayment(
  account: PrivateKeyAccount,
  req: Requirement,
  overrides: Partial<{
    value: bigint;
    to: Address;
    validAfter: bigint;
    validBefore: bigint;
    nonce: Hex;
  }> = {},
) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: account.address,
    to: overrides.to ?? (req.payTo as Address),
    value: overrides.value ?? BigInt(req.amount),
    validAfter: overrides.validAfter ?? now - 600n,
    validBefore: overrides.validBefore ?? now + 120n,
    nonce: overrides.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await account.signTypedData({
    domain: {
      name: req.extra.name,
      version: req.extra.version,
      chainId: Number(req.network.split(":")[1]),
      verifyingContract: req.asset as Address,
    },
    types: {
      TransferWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  return {
    x402Version: 2,
    accepted: req,
    payload: {
      signature,
      authorization: {
        ...authorization,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
      },
    },
  };
}

/** Base64 JSON, as x402 headers carry payloads. */
export const header = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

/** POSTs to the pay URL of `id` with the agent's key and `headers`. */
export function pay(id: string, headers: Record<string, string> = {}) {
  return fetch(payUrl(id), { method: "POST", headers: { "x-api-key": world.agent, ...headers } });
}

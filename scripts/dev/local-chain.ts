/**
 * A real local EVM chain for `npm run dev`, the payment tests and the checker benchmark: Hardhat 2's
 * in-process network (EDR native binary, works offline on Node 20) behind Hardhat's own
 * JSON-RPC HTTP server on 127.0.0.1 (port 0), started from code without the CLI or a
 * config file. Each call starts an independent chain with its own chain id, so two
 * payment networks run at once. The USDC stand-in is contracts/TestUSDC.json (6
 * decimals; compiled from contracts/TestUSDC.sol with the npm `solc`).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from "viem";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);

/** The compiled test token (contracts/TestUSDC.json). */
export const testToken = JSON.parse(readFileSync(path.join(root, "contracts", "TestUSDC.json"), "utf8")) as {
  abi: readonly unknown[];
  bytecode: Hex;
};

/** Hardhat's default funded, unlocked accounts (derived from its well-known test mnemonic). */
export const ACCOUNTS = {
  deployer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  payer: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  otherPayer: "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  /** The receiving wallet `npm run dev` configures for both networks (Hardhat account #3). */
  devWallet: "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
} as const satisfies Record<string, Address>;

/**
 * Private keys of Hardhat's well-known test accounts (its public test mnemonic; worthless outside a
 * local chain): the payer (ACCOUNTS.payer, signs x402 payments in `npm run dev:pay -- --x402` and
 * the examples) and the x402 relayer `npm run dev` configures (account #4, funded with ETH for gas).
 */
export const DEV_KEYS = {
  payer: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  relayer: "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
} as const satisfies Record<string, Hex>;

/** A running local chain. */
export interface LocalChain {
  url: string;
  chainId: number;
  publicClient: PublicClient;
  /** Raw JSON-RPC (evm_mine, evm_snapshot, evm_revert, evm_setAutomine …). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Deploys the test token; returns its address (lowercase). */
  deployToken(): Promise<Address>;
  /** Mints `amount` micro-USDC to `to`. */
  mint(token: Address, to: Address, amount: bigint): Promise<void>;
  /**
   * One USDC transfer from `from` to `to`; returns the transaction hash (mined at once, in a
   * block dated no earlier than the wall clock).
   */
  transfer(token: Address, from: Address, to: Address, amount: bigint): Promise<Hex>;
  /** One transaction emitting a Transfer to `to` per amount. */
  batchTransfer(token: Address, from: Address, to: Address, amounts: bigint[]): Promise<Hex>;
  /** Mines `n` empty blocks. */
  mine(n?: number): Promise<void>;
  close(): Promise<void>;
}

interface HardhatServer {
  listen(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

let edrContext: Promise<unknown> | undefined;

/**
 * Creates Hardhat's process-wide EDR context once, before any provider. Hardhat 2 creates it
 * lazily and marks it created before its provider factory is registered, so two chains started
 * at once (Promise.all) could let the second one use it too early and fail with "Provider for
 * provided chain type does not exist". Awaiting one shared promise closes that race.
 */
function edrContextReady(): Promise<unknown> {
  const { getGlobalEdrContext } = require("hardhat/internal/hardhat-network/provider/provider") as {
    getGlobalEdrContext(): Promise<unknown>;
  };
  edrContext ??= getGlobalEdrContext();
  return edrContext;
}

/**
 * Starts a chain with `chainId` on 127.0.0.1 (automine on, block gas limit 1e9 so
 * large batch transfers fit). Close it with `close()`.
 */
export async function startLocalChain(chainId: number): Promise<LocalChain> {
  const { resolveConfig } = require("hardhat/internal/core/config/config-resolution") as {
    resolveConfig(configPath: string, userConfig: unknown): unknown;
  };
  const { createProvider } = require("hardhat/internal/core/providers/construction") as {
    createProvider(config: unknown, network: string): Promise<unknown>;
  };
  const { JsonRpcServer } = require("hardhat/internal/hardhat-network/jsonrpc/server") as {
    JsonRpcServer: new (c: { hostname: string; port: number; provider: unknown }) => HardhatServer;
  };
  // resolveConfig only needs an existing file to anchor project paths; nothing is written there.
  const config = resolveConfig(path.join(root, "package.json"), {
    networks: {
      hardhat: { chainId, blockGasLimit: 1_000_000_000, loggingEnabled: false, mining: { auto: true } },
    },
  });
  await edrContextReady();
  const provider = await createProvider(config, "hardhat");
  const server = new JsonRpcServer({ hostname: "127.0.0.1", port: 0, provider });
  const { port } = await server.listen();
  return connectLocalChain(`http://127.0.0.1:${port}`, chainId, () => server.close());
}

/**
 * A client of a Hardhat chain already running at `url` (`npm run dev`'s chains, for
 * `npm run dev:pay`): the same operations as `startLocalChain` returns; `close` runs `onClose`.
 */
export function connectLocalChain(
  url: string,
  chainId: number,
  onClose: () => Promise<void> = async () => {},
): LocalChain {
  const chain = defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(url) }) as PublicClient;
  const wallet = createWalletClient({ chain, transport: http(url) });
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  // Hardhat dates a block by its own clock, which starts a second or more behind the wall
  // clock, or one second after its parent, which runs ahead of it after a burst of blocks.
  // A transfer's block is dated at the wall clock (rounded up to the second) or just after
  // its parent: never before it was sent, as on a chain whose clock agrees with ours (the
  // checker pays a task only with transfers dated at or after its approval).
  const dateNextBlock = async () => {
    const parent = await publicClient.getBlock({ blockTag: "latest" });
    const wall = BigInt(Math.ceil(Date.now() / 1000));
    const next = wall > parent.timestamp ? wall : parent.timestamp + 1n;
    await rpc("evm_setNextBlockTimestamp", [Number(next)]);
  };
  const send = async (from: Address, to: Address, functionName: string, args: unknown[]) => {
    await dateNextBlock();
    const hash = await wallet.writeContract({
      account: from,
      address: to,
      abi: testToken.abi as never,
      functionName: functionName as never,
      args: args as never,
      chain,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    return hash;
  };
  return {
    url,
    chainId,
    publicClient,
    rpc,
    async deployToken() {
      const hash = await wallet.deployContract({
        account: ACCOUNTS.deployer,
        abi: testToken.abi as never,
        bytecode: testToken.bytecode,
        chain,
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      return receipt.contractAddress!.toLowerCase() as Address;
    },
    async mint(token, to, amount) {
      await send(ACCOUNTS.deployer, token, "mint", [to, amount]);
    },
    transfer: (token, from, to, amount) => send(from, token, "transfer", [to, amount]),
    batchTransfer: (token, from, to, amounts) => send(from, token, "batchTransfer", [to, amounts]),
    async mine(n = 1) {
      await rpc("hardhat_mine", [`0x${n.toString(16)}`]);
    },
    close: onClose,
  };
}

/**
 * Who verifies and settles an x402 payment (docs/x402.md): in-process, the `@x402/core`
 * `x402Facilitator` with the `@x402/evm` `exact` scheme over viem, the relayer
 * (`X402_RELAYER_PRIVATE_KEY`) submitting EIP-3009 `transferWithAuthorization` and paying its
 * gas; or, when `X402_FACILITATOR_URL` is set, that facilitator over HTTP (`POST /verify`,
 * `POST /settle`, x402 "Facilitator API"). Plus our own reads of the token (EIP-3009
 * `authorizationState`, `balanceOf`) and of the settled transaction's `Transfer` log, which
 * we record like the payment checker does.
 *
 * viem and the x402 packages are imported by the first payment, not with this module (cold
 * start, docs/performance.md).
 */
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import type { Chain, PublicClient } from "viem";
import { type Config, getConfig } from "../../config.js";
import { TRANSFER_TOPIC } from "../chain-reader.js";
import type { NetworkConfig } from "../networks.js";

/** The minimal EIP-3009 / ERC-20 ABI we read (FiatToken v2). */
const TOKEN_ABI = [
  {
    type: "function",
    name: "authorizationState",
    stateMutability: "view",
    inputs: [
      { name: "authorizer", type: "address" },
      { name: "nonce", type: "bytes32" },
    ],
    outputs: [{ type: "bool" }],
  },
  {
    type: "function",
    name: "balanceOf",
    stateMutability: "view",
    inputs: [{ name: "account", type: "address" }],
    outputs: [{ type: "uint256" }],
  },
] as const;

/** Verifies and settles; `onBroadcast` is told the transaction hash as soon as it is sent (in-process only). */
export interface Settler {
  /** `inprocess` (our relayer) or `facilitator` (X402_FACILITATOR_URL). */
  kind: "inprocess" | "facilitator";
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    onBroadcast: (txHash: `0x${string}`) => Promise<void>,
  ): Promise<SettleResponse>;
}

/** The viem chain of `net` (its id and RPC URL). */
async function chainOf(net: NetworkConfig): Promise<Chain> {
  const { defineChain } = await import("viem");
  return defineChain({
    id: net.chainId,
    name: net.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [net.rpcUrl] } },
  });
}

const publicClients = new Map<string, Promise<PublicClient>>();

/** A public client of `net` (one per network and RPC URL). */
export function publicClientOf(net: NetworkConfig): Promise<PublicClient> {
  const key = `${net.chainId}:${net.rpcUrl}`;
  let client = publicClients.get(key);
  if (!client) {
    client = (async () => {
      const { createPublicClient, http } = await import("viem");
      const chain = await chainOf(net);
      return createPublicClient({ chain, transport: http(net.rpcUrl, { retryCount: 1 }) }) as PublicClient;
    })();
    client.catch(() => publicClients.delete(key));
    publicClients.set(key, client);
  }
  return client;
}

/** The relayer's account, one per key, with viem's nonce manager (concurrent settlements never reuse a nonce). */
const relayerAccounts = new Map<string, Promise<import("viem").LocalAccount>>();

async function relayerAccount(privateKey: `0x${string}`) {
  let account = relayerAccounts.get(privateKey);
  if (!account) {
    account = (async () => {
      const [{ privateKeyToAccount }, { nonceManager }] = await Promise.all([
        import("viem/accounts"),
        import("viem"),
      ]);
      return privateKeyToAccount(privateKey, { nonceManager });
    })();
    relayerAccounts.set(privateKey, account);
  }
  return account;
}

/** The relayer's address, or null without a relayer key. */
export async function relayerAddress(config: Config = getConfig()): Promise<`0x${string}` | null> {
  const key = config.X402_RELAYER_PRIVATE_KEY as `0x${string}` | undefined;
  return key ? (await relayerAccount(key)).address : null;
}

/** The in-process settler of `net`: x402Facilitator + ExactEvmScheme, the relayer signing. */
async function inProcessSettler(
  net: NetworkConfig,
  privateKey: `0x${string}`,
  receiptWaitMs: number,
): Promise<Settler> {
  const [
    { createWalletClient, http, publicActions },
    { x402Facilitator },
    { ExactEvmScheme },
    { toFacilitatorEvmSigner },
  ] = await Promise.all([
    import("viem"),
    import("@x402/core/facilitator"),
    import("@x402/evm/exact/facilitator"),
    import("@x402/evm"),
  ]);
  const account = await relayerAccount(privateKey);
  const chain = await chainOf(net);
  const client = createWalletClient({
    account,
    chain,
    transport: http(net.rpcUrl, { retryCount: 1 }),
  }).extend(publicActions);
  /** A facilitator whose signer tells `onBroadcast` each transaction it sends. */
  const facilitator = (onBroadcast?: (txHash: `0x${string}`) => Promise<void>) => {
    const signer = toFacilitatorEvmSigner(
      {
        address: account.address,
        readContract: (args) => client.readContract(args as never) as Promise<unknown>,
        verifyTypedData: (args) => client.verifyTypedData(args as never),
        writeContract: async (args) => {
          const hash = await client.writeContract({ ...(args as object), account, chain } as never);
          await onBroadcast?.(hash);
          return hash;
        },
        sendTransaction: async (args) => {
          const hash = await client.sendTransaction({ ...args, account, chain });
          await onBroadcast?.(hash);
          return hash;
        },
        waitForTransactionReceipt: (args) =>
          client.waitForTransactionReceipt({ ...args, pollingInterval: 250 }) as never,
        getCode: (args) => client.getCode(args),
      },
      { confirmationTimeoutMs: receiptWaitMs },
    );
    return new x402Facilitator().register(`eip155:${net.chainId}`, new ExactEvmScheme(signer));
  };
  return {
    kind: "inprocess",
    verify: (payload, requirements) => facilitator().verify(payload, requirements),
    settle: (payload, requirements, onBroadcast) => facilitator(onBroadcast).settle(payload, requirements),
  };
}

/** The HTTP facilitator at `url` (x402 Facilitator API). */
async function remoteSettler(url: string): Promise<Settler> {
  const { HTTPFacilitatorClient } = await import("@x402/core/server");
  const client = new HTTPFacilitatorClient({ url, timeoutMs: 60_000 });
  return {
    kind: "facilitator",
    // A refusal may come as a non-2xx answer (the client throws VerifyError / SettleError): the
    // same refusal as a 200 with isValid / success false.
    async verify(payload, requirements) {
      try {
        return await client.verify(payload, requirements);
      } catch (error) {
        const e = error as { name?: string; invalidReason?: string; invalidMessage?: string };
        if (e.name !== "VerifyError") throw error;
        return {
          isValid: false,
          invalidReason: e.invalidReason ?? "invalid_payment",
          ...(e.invalidMessage ? { invalidMessage: e.invalidMessage } : {}),
        };
      }
    },
    // The facilitator broadcasts: its hash is known only from its answer.
    async settle(payload, requirements) {
      try {
        return await client.settle(payload, requirements);
      } catch (error) {
        const e = error as {
          name?: string;
          errorReason?: string;
          errorMessage?: string;
          transaction?: string;
        };
        if (e.name !== "SettleError") throw error;
        return {
          success: false,
          errorReason: e.errorReason ?? "settle_failed",
          ...(e.errorMessage ? { errorMessage: e.errorMessage } : {}),
          transaction: e.transaction ?? "",
          network: requirements.network,
        };
      }
    },
  };
}

/**
 * The settler of `net` per configuration: the HTTP facilitator when X402_FACILITATOR_URL is set,
 * else the in-process one with the relayer key.
 * @throws Error when neither is configured (x402 is then off, so this is not reached)
 */
export function settlerFor(net: NetworkConfig, config: Config = getConfig()): Promise<Settler> {
  if (config.X402_FACILITATOR_URL) return remoteSettler(config.X402_FACILITATOR_URL);
  if (config.X402_RELAYER_PRIVATE_KEY) {
    return inProcessSettler(
      net,
      config.X402_RELAYER_PRIVATE_KEY as `0x${string}`,
      config.X402_RECEIPT_WAIT_MS,
    );
  }
  throw new Error("x402: neither X402_FACILITATOR_URL nor X402_RELAYER_PRIVATE_KEY is set");
}

/**
 * On-chain state of an authorization (EIP-3009): whether `nonce` of `from` is used, and `from`'s
 * USDC balance in micro-units.
 */
export async function authorizationFacts(
  net: NetworkConfig,
  from: `0x${string}`,
  nonce: `0x${string}`,
): Promise<{ nonceUsed: boolean; balance: bigint }> {
  const client = await publicClientOf(net);
  const [nonceUsed, balance] = await Promise.all([
    client.readContract({
      address: net.usdcContract,
      abi: TOKEN_ABI,
      functionName: "authorizationState",
      args: [from, nonce],
    }),
    client.readContract({
      address: net.usdcContract,
      abi: TOKEN_ABI,
      functionName: "balanceOf",
      args: [from],
    }),
  ]);
  return { nonceUsed, balance };
}

/** The `Transfer` log of a settled payment, as the checker records one (chain_transfers). */
export interface SettledTransfer {
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: bigint;
  blockHash: `0x${string}`;
  blockTime: Date;
}

/**
 * The outcome of transaction `txHash` on `net`: `pending` (no receipt yet), `reverted`, or the
 * `Transfer(from → wallet, value)` log of the USDC contract it emitted (`mined`); `mismatch` when
 * it succeeded without such a log.
 */
export async function transferOf(
  net: NetworkConfig,
  txHash: `0x${string}`,
  from: `0x${string}`,
  value: bigint,
): Promise<
  | { state: "pending" }
  | { state: "reverted" }
  | { state: "mismatch" }
  | { state: "mined"; transfer: SettledTransfer }
> {
  const client = await publicClientOf(net);
  let receipt: Awaited<ReturnType<PublicClient["getTransactionReceipt"]>>;
  try {
    receipt = await client.getTransactionReceipt({ hash: txHash });
  } catch (error) {
    if ((error as { name?: string }).name === "TransactionReceiptNotFoundError") return { state: "pending" };
    throw error;
  }
  if (receipt.status !== "success") return { state: "reverted" };
  const word = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;
  const log = receipt.logs.find(
    (l) =>
      l.address.toLowerCase() === net.usdcContract &&
      l.topics[0] === TRANSFER_TOPIC &&
      l.topics[1]?.toLowerCase() === word(from) &&
      l.topics[2]?.toLowerCase() === word(net.wallet) &&
      BigInt(l.data) === value,
  );
  if (!log) return { state: "mismatch" };
  const block = await client.getBlock({ blockHash: receipt.blockHash });
  return {
    state: "mined",
    transfer: {
      txHash: receipt.transactionHash.toLowerCase() as `0x${string}`,
      logIndex: Number(log.logIndex),
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash.toLowerCase() as `0x${string}`,
      blockTime: new Date(Number(block.timestamp) * 1000),
    },
  };
}

/** The relayer's ETH balance on `net`, wei (null without a relayer key). */
export async function relayerBalance(
  net: NetworkConfig,
  config: Config = getConfig(),
): Promise<bigint | null> {
  const address = await relayerAddress(config);
  if (!address) return null;
  return (await publicClientOf(net)).getBalance({ address });
}

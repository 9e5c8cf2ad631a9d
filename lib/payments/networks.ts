/**
 * The payment networks accepted (spec "What the service does" 3: one layer-1, one
 * layer-2): Ethereum and Base, each configured by `ETHEREUM_*` / `BASE_*` variables (RPC
 * URL, chain id, USDC contract, receiving wallet, confirmations, start block). A network
 * is configured, and so offered to payers and scanned by the checker, when its RPC URL
 * and wallet are both set. docs/payments.md "Payments".
 *
 * Confirmation (`<NET>_CONFIRMATIONS`): `finalized` / `safe` / `latest` (that block tag's
 * head) or N (a block counts once N blocks, itself included, are on the chain: head =
 * latest − N + 1). Defaults: Ethereum `finalized` (~13 min), Base `safe` (its batch is
 * posted to Ethereum, a few minutes).
 */
import { type Config, getConfig } from "../config.js";
import { checksumAddress } from "./checksum-address.js";

/** A network as shown to payers (status responses, payment e-mails). */
export interface PaymentNetwork {
  network: string;
  chain_id: number;
  usdc_contract: string;
  wallet: string;
  /** Confirmations required, when configured as a number. */
  confirmations?: number;
  /** Block tag a payment must reach (`finalized`, `safe`, `latest`), when configured as a tag. */
  finality?: "finalized" | "safe" | "latest";
}

/** When a block counts as confirmed: a block tag's head, or N confirmations below `latest`. */
export type Confirmation = { tag: "finalized" | "safe" | "latest" } | { confirmations: number };

/** Everything the checker needs about one configured network. */
export interface NetworkConfig {
  /** `ethereum` or `base`. */
  name: string;
  /** `1` for layer 1, `2` for layer 2. */
  layer: 1 | 2;
  rpcUrl: string;
  chainId: number;
  /** USDC contract, lowercase. */
  usdcContract: `0x${string}`;
  /** Receiving wallet, lowercase. */
  wallet: `0x${string}`;
  confirmation: Confirmation;
  /** First block scanned when no cursor exists (undefined: confirmed head − CHECKER_RESCAN_BLOCKS). */
  startBlock?: number;
}

function parseConfirmation(value: string): Confirmation {
  return value === "finalized" || value === "safe" || value === "latest"
    ? { tag: value }
    : { confirmations: Number(value) };
}

/** The configured networks, layer 1 first (RPC URL and wallet set). */
export function networkConfigs(config: Config = getConfig()): NetworkConfig[] {
  const all = [
    {
      name: "ethereum",
      layer: 1 as const,
      rpcUrl: config.ETHEREUM_RPC_URL,
      chainId: config.ETHEREUM_CHAIN_ID,
      usdc: config.ETHEREUM_USDC_CONTRACT,
      wallet: config.ETHEREUM_WALLET,
      confirmations: config.ETHEREUM_CONFIRMATIONS,
      startBlock: config.ETHEREUM_START_BLOCK,
    },
    {
      name: "base",
      layer: 2 as const,
      rpcUrl: config.BASE_RPC_URL,
      chainId: config.BASE_CHAIN_ID,
      usdc: config.BASE_USDC_CONTRACT,
      wallet: config.BASE_WALLET,
      confirmations: config.BASE_CONFIRMATIONS,
      startBlock: config.BASE_START_BLOCK,
    },
  ];
  const configured: NetworkConfig[] = [];
  for (const n of all) {
    if (!n.rpcUrl || !n.wallet) continue;
    configured.push({
      name: n.name,
      layer: n.layer,
      rpcUrl: n.rpcUrl,
      chainId: n.chainId,
      usdcContract: n.usdc.toLowerCase() as `0x${string}`,
      wallet: n.wallet.toLowerCase() as `0x${string}`,
      confirmation: parseConfirmation(n.confirmations),
      ...(n.startBlock === undefined ? {} : { startBlock: n.startBlock }),
    });
  }
  return configured;
}

/** Networks accepting payment, layer 1 first, as shown to payers. Empty when none is configured. */
export function paymentNetworks(config: Config = getConfig()): PaymentNetwork[] {
  return networkConfigs(config).map((n) => ({
    network: n.name,
    chain_id: n.chainId,
    // EIP-55 checksummed, as wallets display them.
    usdc_contract: checksumAddress(n.usdcContract),
    wallet: checksumAddress(n.wallet),
    ...("tag" in n.confirmation
      ? { finality: n.confirmation.tag }
      : { confirmations: n.confirmation.confirmations }),
  }));
}

/** Names of the configured networks (GET /api/status `blockchain.networks`). */
export function configuredNetworkNames(config: Config = getConfig()): string[] {
  return networkConfigs(config).map((n) => n.name);
}

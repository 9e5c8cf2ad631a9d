/**
 * The payment networks accepted (spec: one layer-1 and one layer-2). The payments
 * work adds per-network configuration (RPC URL, chain id, USDC contract, wallet).
 */

/** Names of the configured networks, layer 1 first. */
export function configuredNetworkNames(): string[] {
  return ["ethereum", "base"];
}

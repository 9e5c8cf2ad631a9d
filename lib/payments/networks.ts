/**
 * The payment networks accepted (spec: one layer-1 and one layer-2). Per-network
 * settings (RPC URL, chain id, USDC contract, receiving wallet, confirmations) are
 * added with the on-chain payment checker; until then no network is configured and
 * status responses list none.
 */

/** A network as shown to payers. */
export interface PaymentNetwork {
  network: string;
  chain_id: number;
  usdc_contract: string;
  wallet: string;
  confirmations?: number;
}

/** Networks accepting payment, layer 1 first. */
export function paymentNetworks(): PaymentNetwork[] {
  return [];
}

/** Names of the supported networks (status page). */
export function configuredNetworkNames(): string[] {
  return ["ethereum", "base"];
}

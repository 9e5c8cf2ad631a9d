/**
 * EIP-55 mixed-case checksum of an Ethereum address: each hex letter of the lower-case address
 * is upper-cased when the matching nibble of keccak-256(lower-case hex, as ASCII) is 8 or more.
 * It is how wallets display addresses. Uses @noble/hashes' keccak-256 (the hash viem itself
 * uses) so that endpoints showing an address do not load viem (cold start, docs/performance.md).
 */
import { keccak_256 } from "@noble/hashes/sha3";

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * @param address a 0x-prefixed 20-byte address in any case (configuration validates the form)
 * @returns the same address with EIP-55 checksum casing, e.g. `0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913`
 * @throws TypeError when `address` is not 0x followed by 40 hex digits (a programming error:
 *   configured addresses are validated when the configuration is read)
 */
export function checksumAddress(address: string): `0x${string}` {
  if (!HEX_ADDRESS.test(address)) throw new TypeError(`not a 20-byte hex address: ${address}`);
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out as `0x${string}`;
}

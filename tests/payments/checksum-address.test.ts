/** EIP-55 checksums made without viem agree with viem's `getAddress` and the EIP's own examples. */
import { randomBytes } from "node:crypto";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { checksumAddress } from "../../lib/payments/checksum-address.js";

describe("checksumAddress", () => {
  it("reproduces the examples of EIP-55", () => {
    for (const address of [
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
      "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ]) {
      expect(checksumAddress(address.toLowerCase())).toBe(address);
      expect(checksumAddress(`0x${address.slice(2).toUpperCase()}`)).toBe(address);
    }
  });

  it("agrees with viem on random addresses", () => {
    for (let i = 0; i < 500; i++) {
      const address = `0x${randomBytes(20).toString("hex")}`;
      expect(checksumAddress(address)).toBe(getAddress(address));
    }
  });

  it("refuses what is not a 20-byte hex address", () => {
    expect(() => checksumAddress("0x1234")).toThrow(TypeError);
    expect(() => checksumAddress(`0x${"g".repeat(40)}`)).toThrow(TypeError);
  });
});

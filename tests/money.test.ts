/**
 * The one money module (lib/money.ts): the rounding rule at the half-cent, negative amounts
 * (refunds, credits, ledger charges), large values, micro-USDC conversion, and its users
 * (e-mail formatting, discounts, estimates).
 */
import { describe, expect, it } from "vitest";
import { formatCad } from "../lib/mail/format.js";
import {
  applyDiscount,
  cadToMicroUsdc,
  cadToUsd,
  divideRounded,
  fixRate,
  formatUsdc,
  fromCents,
  roundCad,
  roundHalfAwayFromZero,
  toCents,
} from "../lib/money.js";
import { computeEstimate } from "../lib/pricing/compute-estimate.js";

describe("toCents: half away from zero on the decimal value", () => {
  it.each([
    // [CAD, cents] — the binary value of each of the first four is just below the half
    [1.005, 101], // Math.round(1.005 * 100) gives 100
    [2.675, 268],
    [1.015, 102],
    [0.125, 13], // exactly representable: a true half
    [0.005, 1],
    [0.004, 0],
    [0.0049999, 0],
    [329.67, 32967],
    [0.1 + 0.2, 30], // float noise above the cent
    [0.03 * 5.5, 17], // 0.16499999999999998 in binary: the decimal product is 0.165
    [-1.005, -101], // refunds and credits round like the positive amount, with their sign
    [-2.675, -268],
    [-0.125, -13],
    [-0.005, -1],
    [-329.67, -32967],
    [1_000_000, 100_000_000],
    [9_999_999.995, 1_000_000_000], // 999999999.4999999 in binary
    [-9_999_999.995, -1_000_000_000],
    [12_345_678.905, 1_234_567_891],
    [9_999_999_999.99, 999_999_999_999], // the largest numeric(12,2)
    [-9_999_999_999.99, -999_999_999_999],
  ])("%d CAD → %d cents", (cad, cents) => {
    expect(toCents(cad)).toBe(cents);
  });

  it("never gives -0", () => {
    expect(Object.is(toCents(-0.004), 0)).toBe(true);
    expect(Object.is(roundHalfAwayFromZero(-0.2), 0)).toBe(true);
  });

  it("refuses what it cannot round exactly", () => {
    expect(() => toCents(Number.NaN)).toThrow(RangeError);
    expect(() => toCents(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => toCents(1e300)).toThrow(RangeError);
    expect(() => roundHalfAwayFromZero(2 ** 54)).toThrow(RangeError);
  });

  it("fromCents needs whole cents; roundCad rounds to the cent", () => {
    expect(fromCents(32967)).toBe(329.67);
    expect(fromCents(-101)).toBe(-1.01);
    expect(() => fromCents(100.5)).toThrow(RangeError);
    expect(roundCad(234.0657)).toBe(234.07);
    expect(roundCad(1.005)).toBe(1.01);
    expect(roundCad(-1.005)).toBe(-1.01);
  });

  it("divideRounded: integer division, half away from zero", () => {
    expect(divideRounded(5n, 2n)).toBe(3n);
    expect(divideRounded(-5n, 2n)).toBe(-3n);
    expect(divideRounded(5n, -2n)).toBe(-3n);
    expect(divideRounded(7n, 3n)).toBe(2n);
    expect(divideRounded(-7n, 3n)).toBe(-2n);
    expect(() => divideRounded(1n, 0n)).toThrow(RangeError);
  });
});

describe("applyDiscount", () => {
  it.each([
    [329.67, 10, 296.7], // 29670.3 cents
    [0.05, 50, 0.03], // 2.5 cents: the half goes up
    [0.01, 50, 0.01],
    [100, 0, 100],
    [100, 100, 0],
    [199.99, 12.5, 174.99], // 17499.125 cents
    [1_000_000, 33.33, 666_700],
  ])("%d CAD at %d %% → %d CAD", (price, percent, expected) => {
    expect(applyDiscount(price, percent)).toBe(expected);
  });
});

describe("micro-USDC", () => {
  it("converts cents × 10⁴ × rate (8 decimals), rounded to the micro-unit", () => {
    expect(cadToMicroUsdc(329.67, 0.71)).toBe(234_065_700n);
    expect(cadToMicroUsdc(1_000_000, 0.71)).toBe(710_000_000_000n);
    // 0.01 CAD at 0.70005 = 0.0070005 USDC: exactly half a micro-unit → away from zero
    expect(cadToMicroUsdc(0.01, 0.70005)).toBe(7001n);
    expect(cadToMicroUsdc(-0.01, 0.70005)).toBe(-7001n);
    // the CAD amount is rounded to the cent by the rule first (1.005 → 1.01 CAD)
    expect(cadToMicroUsdc(1.005, 1)).toBe(1_010_000n);
    // the rate is fixed to 8 decimals first
    expect(cadToMicroUsdc(100, 0.123456784)).toBe(cadToMicroUsdc(100, 0.12345678));
  });

  it("fixes a rate to 8 decimals and gives the USD estimate to the cent", () => {
    expect(fixRate(1 / 1.4085)).toBe(0.70997515);
    expect(cadToUsd(329.67, 0.71)).toBe(234.07); // 234.0657
    expect(cadToUsd(10, 0.2675)).toBe(2.68); // 2.675
  });

  it("formats micro-units with 6 decimals", () => {
    expect(formatUsdc(234_070_001n)).toBe("234.070001");
    expect(formatUsdc(0n)).toBe("0.000000");
    expect(formatUsdc(-5n)).toBe("-0.000005");
    expect(formatUsdc(710_000_000_000n)).toBe("710000.000000");
  });
});

describe("users of the rule", () => {
  it("e-mails format an amount rounded by the rule, not by its binary value", () => {
    // 0.03 × 5.5 is 0.16499999999999998 in binary; Intl alone would print 0.16
    expect(formatCad(0.03 * 5.5, "en")).toBe("$0.17 CAD");
    expect(formatCad(1.005, "en")).toBe("$1.01 CAD");
    expect(formatCad(-2.675, "en")).toBe("-$2.68 CAD");
  });

  it("estimates round each component and the urgent total by the rule", () => {
    // 0.35 km one way → 0.7 km round trip → 0.63 CAD; 0.7 km ÷ 60 km/h × 100 = 1.1666… CAD
    const e = computeEstimate({ siteHours: 0.25, distanceKmOneWay: 0.35, urgency: "urgent", speedKmh: 60 });
    expect(e.km_cost).toBe(0.63);
    expect(e.transport_cost).toBe(1.17);
    expect(e.subtotal).toBe(76.8);
    expect(e.total_cad).toBe(96); // 7680 × 1.25 = 9600
    // a half cent in the urgent total: 1.01 × 1.25 … 50.02 × 1.25 = 62.525 → 62.53
    const half = computeEstimate({ siteHours: 0.0002, distanceKmOneWay: 0, urgency: "urgent", speedKmh: 60 });
    expect(half.subtotal).toBe(50.02);
    expect(half.total_cad).toBe(62.53);
  });
});

/**
 * GST/QST with worked figures (docs/taxes.md): the Revenu Québec example, the half-cent cases of
 * each tax, per-invoice (not per-line) rounding, proportional reversal on credit notes, rates by
 * effective date in Quebec time, and the registration-number formats.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../lib/config.js";
import {
  isGstNumber,
  isQstNumber,
  rateAt,
  reverseTaxes,
  reverseTaxesLeft,
  SALES_TAX_RATES,
  taxesForAmount,
  taxesOn,
} from "../lib/taxes.js";

const day = new Date("2026-06-15T12:00:00Z");

describe("sales taxes", () => {
  it("computes Revenu Québec's example: 100.00 → GST 5.00, QST 9.98 (9.975 rounds up), total 114.98", () => {
    expect(taxesOn(10_000, day)).toEqual({ subtotal: 10_000, gst: 500, qst: 998, total: 11_498 });
  });

  it("rounds a half cent up and less than half down, for each tax", () => {
    // GST: 0.10 × 5 % = 0.5 ¢ → 1 ¢; 0.09 → 0.45 ¢ → 0; 0.30 → 1.5 ¢ → 2 ¢.
    expect(taxesOn(10, day).gst).toBe(1);
    expect(taxesOn(9, day).gst).toBe(0);
    expect(taxesOn(30, day).gst).toBe(2);
    // QST: 20.00 × 9.975 % = 199.5 ¢ → 2.00; 19.95 → 199.00125 ¢ → 1.99; 20.05 → 199.99875 ¢ → 2.00.
    expect(taxesOn(2_000, day).qst).toBe(200);
    expect(taxesOn(1_995, day).qst).toBe(199);
    expect(taxesOn(2_005, day).qst).toBe(200);
    // QST is on the price before GST: 20.00 → 1.00 GST + 2.00 QST (not 9.975 % of 21.00).
    expect(taxesOn(2_000, day)).toEqual({ subtotal: 2_000, gst: 100, qst: 200, total: 2_300 });
  });

  it("taxes a typical estimate once per invoice: 329.67 → GST 16.48, QST 32.88, total 379.03", () => {
    expect(taxesForAmount(329.67, true, day)).toEqual({
      taxes: { gst_cad: 16.48, qst_cad: 32.88 },
      total_with_taxes_cad: 379.03,
    });
    expect(taxesForAmount(329.67, false, day)).toBeNull();
  });

  it("rounds on the invoice subtotal, not per line (two lines of 0.10: GST 0.01, not 0.02)", () => {
    expect(taxesOn(10 + 10, day).gst).toBe(1);
    expect(taxesOn(10, day).gst + taxesOn(10, day).gst).toBe(2);
  });

  it("reverses taxes in proportion on a credit note; a full refund reverses them exactly", () => {
    const invoice = taxesOn(10_000, day); // 114.98
    expect(reverseTaxes(invoice, invoice.total)).toEqual(invoice);
    expect(reverseTaxes(invoice, 5_749)).toEqual({ subtotal: 5_000, gst: 250, qst: 499, total: 5_749 });
    // 10.00 of 114.98: GST 500 × 1000 / 11498 = 43.49 → 43; QST 998 × 1000 / 11498 = 86.80 → 87.
    expect(reverseTaxes(invoice, 1_000)).toEqual({ subtotal: 870, gst: 43, qst: 87, total: 1_000 });
    expect(() => reverseTaxes(invoice, invoice.total + 1)).toThrow(RangeError);
  });

  it("lets the last of several partial credit notes reverse exactly the taxes left (no cent of drift)", () => {
    const invoice = taxesOn(10_000, day); // 114.98: GST 5.00, QST 9.98
    // Three thirds (38.33, 38.33, 38.32): GST 500 × 3833 / 11498 = 166.68 → 167 each, so rounding each
    // third in proportion would reverse 167 + 167 + 167 = 5.01 of GST for 5.00 charged.
    expect(reverseTaxes(invoice, 3_832).gst).toBe(167);
    const first = reverseTaxesLeft(invoice, { total: 0, gst: 0, qst: 0 }, 3_833);
    expect(first).toEqual({ subtotal: 3_333, gst: 167, qst: 333, total: 3_833 });
    const second = reverseTaxesLeft(invoice, first, 3_833);
    const creditedTwice = { total: 7_666, gst: 334, qst: 666 };
    expect(second).toEqual(first);
    const last = reverseTaxesLeft(invoice, creditedTwice, 3_832);
    expect(last).toEqual({ subtotal: 3_334, gst: 166, qst: 332, total: 3_832 });
    expect(first.gst + second.gst + last.gst).toBe(invoice.gst);
    expect(first.qst + second.qst + last.qst).toBe(invoice.qst);
    expect(() => reverseTaxesLeft(invoice, creditedTwice, 3_833)).toThrow(RangeError);
  });

  it("applies a rate from its effective date, in Quebec time", () => {
    const table = [
      ...SALES_TAX_RATES,
      { tax: "gst" as const, effective_from: "2027-01-01", rate_e5: 6000, percent: "6" },
    ];
    // 2027-01-01 04:59 UTC is still 2026-12-31 in Quebec (UTC−5).
    expect(rateAt("gst", new Date("2027-01-01T04:59:00Z"), table).rate_e5).toBe(5000);
    expect(rateAt("gst", new Date("2027-01-01T05:00:00Z"), table).rate_e5).toBe(6000);
    expect(taxesOn(10_000, new Date("2027-02-01T12:00:00Z"), table).gst).toBe(600);
    expect(() => rateAt("qst", new Date("2012-06-01T12:00:00Z"))).toThrow(RangeError);
  });

  it("validates GST and QST numbers and requires both when registered", () => {
    expect(isGstNumber("123456789RT0001")).toBe(true);
    expect(isGstNumber("123456789RT001")).toBe(false);
    expect(isQstNumber("1234567890TQ0001")).toBe(true);
    expect(isQstNumber("123456789TQ0001")).toBe(false);
    expect(parseConfig({}).TAX_REGISTERED).toBe(false);
    expect(() => parseConfig({ GST_NUMBER: "12345RT0001" })).toThrow(/GST_NUMBER/);
    expect(() => parseConfig({ QST_NUMBER: "1234567890RT0001" })).toThrow(/QST_NUMBER/);
    expect(() => parseConfig({ TAX_REGISTERED: "true", GST_NUMBER: "123456789RT0001" })).toThrow(
      /QST_NUMBER/,
    );
    const ok = parseConfig({
      TAX_REGISTERED: "true",
      GST_NUMBER: "123456789RT0001",
      QST_NUMBER: "1234567890TQ0001",
    });
    expect(ok.TAX_REGISTERED).toBe(true);
  });
});

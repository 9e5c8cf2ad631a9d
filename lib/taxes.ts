/**
 * Quebec sales taxes (GST and QST) as data with effective dates, in integer cents (docs/taxes.md).
 *
 * - Rates: GST 5 % (federal, since 2008-01-01); QST 9.975 % (Quebec, since 2013-01-01), computed
 *   on the price **before** GST (the two-step calculation: each tax on the same selling price).
 *   A rate applies to a supply dated (Quebec time) on or after its `effective_from`; a new rate is
 *   a new row, never an edit, so old invoices keep their figures.
 * - Rounding: each tax is computed **once per invoice, on its taxable subtotal**, and a fraction
 *   of half a cent or more counts as a whole cent (Revenu Québec's "Calculating the taxes": the
 *   taxes may be computed on the total of the goods and services sold before rounding, and only a
 *   fraction ≥ $0.005 becomes a cent). For the positive amounts invoiced this is the service's one
 *   rounding rule (lib/money.ts, half away from zero).
 * - Credit notes reverse the taxes in proportion: refunding R of an invoice total T reverses
 *   round(gst × R / T) of GST and round(qst × R / T) of QST; a full refund reverses them exactly.
 * - Registration: `TAX_REGISTERED=false` (default) is the small supplier, who charges no tax; the
 *   invoices then say so. Registered, `GST_NUMBER` (9 digits, `RT`, 4 digits) and `QST_NUMBER`
 *   (10 digits, `TQ`, 4 digits) are required and printed on every invoice.
 */
import { divideRounded, fromCents, toCents } from "./money.js";

/** One tax rate from a date on. `rate_e5` is the rate in hundred-thousandths (5 % = 5000). */
export interface SalesTaxRate {
  tax: "gst" | "qst";
  /** First day (YYYY-MM-DD, Quebec time) the rate applies. */
  effective_from: string;
  rate_e5: number;
  /** The rate as printed, e.g. "9.975". */
  percent: string;
}

/** The rates, oldest first per tax. Add a row for a new rate (with its effective date). */
export const SALES_TAX_RATES: readonly SalesTaxRate[] = [
  { tax: "gst", effective_from: "2008-01-01", rate_e5: 5000, percent: "5" },
  { tax: "qst", effective_from: "2013-01-01", rate_e5: 9975, percent: "9.975" },
];

/** Taxes of one amount, in cents. */
export interface TaxCents {
  subtotal: number;
  gst: number;
  qst: number;
  total: number;
}

/** The taxes as published in estimates, statuses and invoices (CAD). */
export interface TaxesView {
  gst_cad: number;
  qst_cad: number;
}

/** YYYY-MM-DD of `at` in Quebec (America/Toronto: Quebec's zone). */
export function quebecDate(at: Date): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/Toronto",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
}

/**
 * The rate of `tax` on the supply date `at`.
 * @throws RangeError when no rate applies yet (a date before the table)
 */
export function rateAt(
  tax: "gst" | "qst",
  at: Date,
  table: readonly SalesTaxRate[] = SALES_TAX_RATES,
): SalesTaxRate {
  const day = quebecDate(at);
  const rate = table
    .filter((r) => r.tax === tax && r.effective_from <= day)
    .sort((a, b) => (a.effective_from < b.effective_from ? 1 : -1))[0];
  if (!rate) throw new RangeError(`no ${tax} rate on ${day}`);
  return rate;
}

/**
 * GST and QST on a taxable subtotal of `subtotalCents`, supplied on `at` (see the module comment).
 * E.g. 10 000 cents → GST 500, QST 998 (997.5 rounds up), total 11 498.
 * @param subtotalCents integer cents, ≥ 0
 */
export function taxesOn(
  subtotalCents: number,
  at: Date,
  table: readonly SalesTaxRate[] = SALES_TAX_RATES,
): TaxCents {
  if (!Number.isSafeInteger(subtotalCents) || subtotalCents < 0) {
    throw new RangeError(`not a taxable subtotal in cents: ${subtotalCents}`);
  }
  const of = (tax: "gst" | "qst") =>
    Number(divideRounded(BigInt(subtotalCents) * BigInt(rateAt(tax, at, table).rate_e5), 100_000n));
  const gst = of("gst");
  const qst = of("qst");
  return { subtotal: subtotalCents, gst, qst, total: subtotalCents + gst + qst };
}

/**
 * The taxes to reverse when `refundCents` of an invoice `original` (its total with taxes) is
 * credited: each tax in proportion, rounded by the rule; the rest is the subtotal reversed.
 * @param refundCents 0 ≤ refund ≤ original.total
 */
export function reverseTaxes(original: TaxCents, refundCents: number): TaxCents {
  if (!Number.isSafeInteger(refundCents) || refundCents < 0 || refundCents > original.total) {
    throw new RangeError(`refund ${refundCents} not within 0..${original.total} cents`);
  }
  if (original.total === 0) return { subtotal: 0, gst: 0, qst: 0, total: 0 };
  const share = (tax: number) =>
    Number(divideRounded(BigInt(tax) * BigInt(refundCents), BigInt(original.total)));
  const gst = share(original.gst);
  const qst = share(original.qst);
  return { subtotal: refundCents - gst - qst, gst, qst, total: refundCents };
}

/**
 * The taxes to reverse when `refundCents` of an invoice `original` is credited after earlier
 * credit notes on the same invoice already reversed `credited` (their totals and taxes, cents).
 * The credit note that brings the credited total to the invoice's total reverses exactly the
 * taxes left, so an invoice's credit notes together never reverse a cent more or less tax than
 * it charged (proportional rounding on each partial note could otherwise drift); the others
 * reverse in proportion (`reverseTaxes`), capped at what is left of each tax.
 * @param refundCents 0 ≤ refund ≤ original.total − credited.total
 * @throws RangeError when the refund exceeds what is left to credit
 */
export function reverseTaxesLeft(
  original: TaxCents,
  credited: Pick<TaxCents, "total" | "gst" | "qst">,
  refundCents: number,
): TaxCents {
  const left = original.total - credited.total;
  if (!Number.isSafeInteger(refundCents) || refundCents < 0 || refundCents > left) {
    throw new RangeError(`refund ${refundCents} not within 0..${left} cents left to credit`);
  }
  const gstLeft = original.gst - credited.gst;
  const qstLeft = original.qst - credited.qst;
  if (refundCents === left) {
    return { subtotal: refundCents - gstLeft - qstLeft, gst: gstLeft, qst: qstLeft, total: refundCents };
  }
  const share = reverseTaxes(original, refundCents);
  const gst = Math.min(share.gst, gstLeft);
  const qst = Math.min(share.qst, qstLeft);
  return { subtotal: refundCents - gst - qst, gst, qst, total: refundCents };
}

/**
 * The taxes on `amountCad` when `registered`, as CAD figures, else null (small supplier).
 * @returns `{ taxes: { gst_cad, qst_cad }, total_with_taxes_cad }` or null
 */
export function taxesForAmount(
  amountCad: number,
  registered: boolean,
  at: Date,
): { taxes: TaxesView; total_with_taxes_cad: number } | null {
  if (!registered) return null;
  const t = taxesOn(toCents(amountCad), at);
  return {
    taxes: { gst_cad: fromCents(t.gst), qst_cad: fromCents(t.qst) },
    total_with_taxes_cad: fromCents(t.total),
  };
}

/** The total to charge for `amountCad` (taxes added when `registered`), CAD. */
export function totalWithTaxes(amountCad: number, registered: boolean, at: Date): number {
  return taxesForAmount(amountCad, registered, at)?.total_with_taxes_cad ?? amountCad;
}

/** True for a GST/HST registration number as printed: 9 digits, `RT`, 4 digits. */
export function isGstNumber(value: string): boolean {
  return /^\d{9}RT\d{4}$/.test(value);
}

/** True for a QST registration number as printed: 10 digits, `TQ`, 4 digits. */
export function isQstNumber(value: string): boolean {
  return /^\d{10}TQ\d{4}$/.test(value);
}

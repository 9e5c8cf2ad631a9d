/**
 * Money, in one place: CAD as integer cents, USDC as integer micro-units (bigint), and the
 * one rounding rule of the service. Every amount the service computes (estimates, charges,
 * discounts, refunds, balances, USDC payment amounts, analytics sums, amounts in e-mails)
 * goes through these functions; nothing else multiplies by 100 or calls `Math.round` on money.
 *
 * **The rounding rule** (docs/tasks.md "Money and rounding"): an amount is rounded to the cent **half
 * away from zero, on its decimal value**. A JS number holds the nearest binary fraction of a
 * decimal (1.005 is stored as 1.00499999999999989…), so the value in cents is first written as a
 * decimal with 6 places (`toFixed(6)`), which removes that noise, then rounded on its decimal
 * digits: 1.005 → 101 cents, 2.675 → 268, 0.125 → 13, −1.005 → −101 (a refund or credit
 * rounds like the same positive amount, with its sign). The rule is exact for any amount whose
 * decimal value has at most 8 places and whose size is at most 10⁷ CAD (the service accepts at
 * most 1 000 000 CAD per amount), and for every 2-decimal amount up to
 * `Number.MAX_SAFE_INTEGER` cents (database values are `numeric(12,2)`).
 *
 * Why this rule: the spec ("GET /api/estimate") wants estimates exact to the cent, and the
 * same amount must round the same way in every module; before this module, billing rounded the
 * binary value (1.005 → 100 cents) and pricing the decimal one (1.005 → 101).
 *
 * USDC: micro = cents × 10⁴ × rate, with the rate (USD per CAD) fixed to 8 decimals, rounded
 * half away from zero to the micro-unit in integer arithmetic (no float).
 */

/** Micro-units per USDC (the token has 6 decimals). */
export const MICRO_PER_USDC = 1_000_000n;

/** Scale of exchange rates: a rate is fixed to 8 decimals. */
const RATE_SCALE = 100_000_000n;

/**
 * Rounds `value` to an integer, half away from zero, on its decimal value (snapped to 6 places
 * first; see the module docstring).
 * @param value a finite number; `|value|` ≤ `Number.MAX_SAFE_INTEGER`
 * @returns an integer (never −0)
 * @throws RangeError when `value` is not finite or too large to round exactly
 */
export function roundHalfAwayFromZero(value: number): number {
  if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`cannot round ${value}: not a finite number within ±2^53`);
  }
  if (Number.isInteger(value)) return value === 0 ? 0 : value; // nothing to round (−0 → 0)
  const text = Math.abs(value).toFixed(6); // "100.500000": no exponent below 1e21
  const dot = text.indexOf(".");
  const whole = Number(text.slice(0, dot));
  const rounded = text.charCodeAt(dot + 1) >= 53 /* "5" */ ? whole + 1 : whole;
  return value < 0 && rounded !== 0 ? -rounded : rounded;
}

/**
 * CAD → integer cents, by the rounding rule (half away from zero on the decimal value).
 * @param cad an amount in CAD (any sign; e.g. a ledger charge is negative)
 * @returns integer cents, e.g. 1.005 → 101, −2.675 → −268
 * @throws RangeError when `cad` is not finite or beyond ±2^53 cents
 */
export function toCents(cad: number): number {
  if (!Number.isFinite(cad)) throw new RangeError(`not an amount: ${cad}`);
  return roundHalfAwayFromZero(cad * 100);
}

/**
 * Integer cents → CAD, a number with at most 2 decimals (e.g. 32967 → 329.67).
 * @throws RangeError when `cents` is not a safe integer (a caller rounded nothing)
 */
export function fromCents(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
  return cents / 100;
}

/** CAD rounded to the cent by the rule, as CAD (e.g. 234.0657 → 234.07, 1.005 → 1.01). */
export function roundCad(cad: number): number {
  return fromCents(toCents(cad));
}

/**
 * `numerator / denominator` of integers, rounded half away from zero, exactly (bigint).
 * @throws RangeError when `denominator` is 0
 */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("division by zero");
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const q = (2n * n + d) / (2n * d); // floor((n + d/2) / d): half up on the magnitude
  return negative ? -q : q;
}

/**
 * The price after `discountPercent` of discount, CAD, rounded to the cent by the rule
 * (e.g. 329.67 at 10 % → 296.70; 0.05 at 50 % → 0.03).
 * @param priceCad the list price, CAD
 * @param discountPercent 0 to 100, at most 2 decimals (an account's `discount_percent`)
 */
export function applyDiscount(priceCad: number, discountPercent: number): number {
  const basisPoints = BigInt(toCents(discountPercent)); // hundredths of a percent: 10 % → 1000
  const cents = divideRounded(BigInt(toCents(priceCad)) * (10_000n - basisPoints), 10_000n);
  return fromCents(Number(cents));
}

/**
 * An exchange rate fixed to 8 decimals, half away from zero (e.g. 1 / 1.4085 → 0.70997515).
 * @throws RangeError when `rate` is not finite
 */
export function fixRate(rate: number): number {
  return roundHalfAwayFromZero(rate * 1e8) / 1e8;
}

/**
 * CAD at `rate` (USD per CAD) → micro-USDC: cents × 10⁴ × rate, the rate fixed to 8 decimals,
 * rounded half away from zero to the micro-unit (integer arithmetic).
 * E.g. 329.67 CAD at 0.71 → 234065700n (234.065700 USDC).
 * @param cad the amount, CAD (rounded to the cent first, by the rule)
 * @param rate USD per CAD, positive
 * @throws RangeError when an input is not finite
 */
export function cadToMicroUsdc(cad: number, rate: number): bigint {
  const cents = BigInt(toCents(cad));
  const rateE8 = BigInt(roundHalfAwayFromZero(rate * 1e8));
  return divideRounded(cents * 10_000n * rateE8, RATE_SCALE);
}

/**
 * USD (or USDC) value of `cad` at `rate`, rounded to the cent by the rule: the estimate's
 * `usd.estimated_usdc` (e.g. 329.67 CAD at 0.71 → 234.07). The exact payment amount is
 * {@link cadToMicroUsdc}.
 */
export function cadToUsd(cad: number, rate: number): number {
  return roundCad(cad * rate);
}

/** micro-USDC → decimal string with 6 decimals, e.g. 234070001n → "234.070001", −5n → "-0.000005". */
export function formatUsdc(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const whole = abs / MICRO_PER_USDC;
  const frac = (abs % MICRO_PER_USDC).toString().padStart(6, "0");
  return `${negative ? "-" : ""}${whole}.${frac}`;
}

/**
 * CAD arithmetic in integer cents, so that sums and discounts never drift by a
 * floating-point fraction (amounts are `numeric(12,2)` in the database).
 */

/** CAD → integer cents. */
export function toCents(cad: number): number {
  return Math.round(cad * 100);
}

/** Integer cents → CAD number with at most 2 decimals. */
export function fromCents(cents: number): number {
  return Math.round(cents) / 100;
}

/**
 * The price after `discountPercent` (0-100, 2 decimals), CAD, rounded half up to the cent.
 * E.g. 329.67 at 10 % → 296.70.
 */
export function applyDiscount(priceCad: number, discountPercent: number): number {
  const bp = Math.round(discountPercent * 100); // basis points of a percent: 10 % → 1000
  return fromCents(Math.round((toCents(priceCad) * (10_000 - bp)) / 10_000));
}

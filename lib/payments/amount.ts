/**
 * USDC payment amounts (6 decimals), exact: integers of micro-USDC, never floats.
 *
 * Conversion: micro = round_half_up(cents × 10⁴ × rate), with the rate (USD per CAD)
 * fixed to 8 decimals. Uniqueness (so a transfer identifies its task): among tasks
 * still awaiting payment, an amount is used once; a colliding amount is raised by the
 * smallest number of micro-units that makes it unique (so the requester pays at most a
 * few micro-USDC more). The partial unique index on `tasks.payment_usdc_micro` makes
 * this safe under concurrency: a racing duplicate fails and the transition is retried.
 */
import { and, between, eq, inArray, isNotNull } from "drizzle-orm";
import type { Tx } from "../db/client.js";
import { tasks } from "../db/schema/index.js";

/** How far above the base amount uniqueness may go, micro-USDC. */
export const MAX_UNIQUENESS_BUMP = 10_000;

/** CAD (2 decimals) at `rate` (USD per CAD) → micro-USDC. */
export function cadToMicroUsdc(cad: number, rate: number): bigint {
  const cents = BigInt(Math.round(cad * 100));
  const rateE8 = BigInt(Math.round(rate * 1e8));
  const scaled = cents * 10_000n * rateE8; // micro × 1e8
  return (scaled + 50_000_000n) / 100_000_000n;
}

/** micro-USDC → decimal string with 6 decimals, e.g. 234070001n → "234.070001". */
export function formatUsdc(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(6, "0");
  return `${negative ? "-" : ""}${whole}.${frac}`;
}

/**
 * The smallest amount ≥ `base` not used by another task awaiting payment (sandbox
 * excluded), read inside transaction `tx`.
 * @throws Error when MAX_UNIQUENESS_BUMP amounts in a row are taken (never in practice).
 */
export async function uniqueOpenAmount(tx: Tx, base: bigint, excludeTaskId?: string): Promise<bigint> {
  const rows = await tx
    .select({ amount: tasks.paymentUsdcMicro, id: tasks.id })
    .from(tasks)
    .where(
      and(
        inArray(tasks.status, ["accepted_pending_payment", "counter_offered"]),
        eq(tasks.sandbox, false),
        isNotNull(tasks.paymentUsdcMicro),
        between(tasks.paymentUsdcMicro, base, base + BigInt(MAX_UNIQUENESS_BUMP)),
      ),
    );
  const taken = new Set(rows.filter((r) => r.id !== excludeTaskId).map((r) => r.amount!));
  for (let candidate = base; candidate <= base + BigInt(MAX_UNIQUENESS_BUMP); candidate++) {
    if (!taken.has(candidate)) return candidate;
  }
  throw new Error(`no free payment amount within ${MAX_UNIQUENESS_BUMP} micro-USDC of ${base}`);
}

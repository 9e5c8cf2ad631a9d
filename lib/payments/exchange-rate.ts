/**
 * The CAD→USD exchange rate used to convert CAD prices to USDC.
 *
 * For now the configured fallback (`CAD_USD_FALLBACK_RATE`); the payments work plugs
 * a live provider (Bank of Canada Valet, series FXUSDCAD) in behind this function.
 */
import { getConfig } from "../config.js";

/** A rate quote: USD per 1 CAD, where it came from and when it was observed. */
export interface RateQuote {
  rate_cad_usd: number;
  rate_source: string;
  as_of: string;
}

/** The current rate quote. */
export async function currentCadUsdRate(): Promise<RateQuote> {
  const config = getConfig();
  return {
    rate_cad_usd: config.CAD_USD_FALLBACK_RATE,
    rate_source: "configured fallback (CAD_USD_FALLBACK_RATE)",
    as_of: new Date().toISOString(),
  };
}

/** Converts CAD (2 decimals) to USDC at `rate` (USD per CAD), rounded to the cent of USD for display. */
export function cadToUsdEstimate(cad: number, rate: number): number {
  return Math.round(cad * rate * 100) / 100;
}

/**
 * The CAD→USD exchange rate used to convert CAD prices to USDC (spec "What the service
 * does" 3: USDC "at the current CAD-to-USD exchange rate"). docs/payments.md "Payments".
 *
 * Providers (`EXCHANGE_RATE_PROVIDER`; unset = `valet` in production, `fixed` otherwise):
 * - `fixed`: `CAD_USD_FALLBACK_RATE`, as of now (local development, tests).
 * - `valet`: the Bank of Canada Valet API, series FXUSDCAD (CAD per 1 USD, published once
 *   per business day); the rate is its inverse (USD per 1 CAD), rounded to 8 decimals.
 *   Quotes are cached in `exchange_rates` (pair `CADUSD`, with `as_of` and source) and
 *   re-fetched after `EXCHANGE_RATE_REFRESH_MINUTES`; when Valet fails, the newest cached
 *   row is used. A rate whose `as_of` is more than `EXCHANGE_RATE_MAX_AGE_HOURS` old is
 *   stale: approval is refused with 503 EXCHANGE_RATE_UNAVAILABLE. Estimates (informative
 *   only) then show `CAD_USD_FALLBACK_RATE`, labelled as the fallback.
 */
import { type Config, getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { DomainError } from "../errors.js";
import { fixRate } from "../money.js";

/** A rate quote: USD per 1 CAD, where it came from and when it was observed (ISO 8601). */
export interface RateQuote {
  rate_cad_usd: number;
  rate_source: string;
  as_of: string;
}

/** Options of `currentCadUsdRate`. */
export interface RateOptions {
  /**
   * With the `valet` provider and no fresh rate, return the configured fallback rate
   * instead of throwing (estimates, sandbox tasks). Default false (approval).
   */
  allowFallback?: boolean;
  /** Clock, for tests. */
  now?: Date;
}

/** The `exchange_rates.pair` of USD per CAD. */
export const RATE_PAIR = "CADUSD";
/** Valet series: CAD per 1 USD. */
export const VALET_SERIES = "FXUSDCAD";
/** Source label of Valet quotes. */
export const VALET_SOURCE = "Bank of Canada Valet FXUSDCAD";

/** The provider in effect: the configured one, else `valet` in production and `fixed` elsewhere. */
export function rateProvider(config: Config = getConfig()): "fixed" | "valet" {
  return config.EXCHANGE_RATE_PROVIDER ?? (config.NODE_ENV === "production" ? "valet" : "fixed");
}

function fallbackQuote(config: Config, now: Date, label: string): RateQuote {
  return { rate_cad_usd: config.CAD_USD_FALLBACK_RATE, rate_source: label, as_of: now.toISOString() };
}

/**
 * Fetches the latest FXUSDCAD observation from Valet (`GET {VALET_URL}/observations/FXUSDCAD/json?recent=1`)
 * and converts it to USD per CAD (8 decimals). `as_of` is the observation date at 16:30
 * Toronto time (the Bank publishes its daily rate around then).
 * @throws Error on a network failure, a timeout (`EXCHANGE_RATE_TIMEOUT_MS`), a non-2xx status or a malformed body.
 */
export async function fetchValetRate(config: Config = getConfig()): Promise<RateQuote> {
  const url = `${config.VALET_URL.replace(/\/+$/, "")}/observations/${VALET_SERIES}/json?recent=1`;
  const response = await fetch(url, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(config.EXCHANGE_RATE_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`Valet answered HTTP ${response.status}`);
  const body = (await response.json()) as {
    observations?: { d?: unknown; [series: string]: unknown }[];
  };
  const observation = body.observations?.at(-1);
  const date = observation?.d;
  const value = (observation?.[VALET_SERIES] as { v?: unknown } | undefined)?.v;
  const cadPerUsd = typeof value === "string" || typeof value === "number" ? Number(value) : Number.NaN;
  if (typeof date !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    throw new Error("Valet response has no observation date");
  }
  if (!Number.isFinite(cadPerUsd) || cadPerUsd < 0.2 || cadPerUsd > 10) {
    throw new Error(`Valet ${VALET_SERIES} value is not a plausible rate: ${String(value)}`);
  }
  // luxon loads with the first Valet answer, not with every function that converts prices (cold start).
  const { DateTime } = await import("luxon");
  const asOf = DateTime.fromISO(`${date}T16:30:00`, { zone: "America/Toronto" });
  if (!asOf.isValid) throw new Error(`Valet observation date is invalid: ${date}`);
  return {
    rate_cad_usd: fixRate(1 / cadPerUsd),
    rate_source: VALET_SOURCE,
    as_of: asOf.toUTC().toISO()!,
  };
}

/**
 * drizzle-orm's operators and the rate table, imported when the cache is first read: with the
 * `fixed` provider the estimate never touches the database (cold start, docs/performance.md).
 */
async function rateTable() {
  const [{ desc, eq }, { exchangeRates }] = await Promise.all([
    import("drizzle-orm"),
    import("../db/schema/index.js"),
  ]);
  return { desc, eq, exchangeRates };
}

/** The newest cached quote, with when it was fetched. */
async function cachedQuote(): Promise<(RateQuote & { fetchedAt: Date }) | null> {
  const { desc, eq, exchangeRates } = await rateTable();
  const db = await getDb();
  const [row] = await db
    .select()
    .from(exchangeRates)
    .where(eq(exchangeRates.pair, RATE_PAIR))
    .orderBy(desc(exchangeRates.fetchedAt), desc(exchangeRates.id))
    .limit(1);
  if (!row) return null;
  return {
    rate_cad_usd: row.rate,
    rate_source: row.source,
    as_of: row.asOf.toISOString(),
    fetchedAt: row.fetchedAt,
  };
}

/**
 * The current rate quote (USD per 1 CAD).
 * @throws DomainError EXCHANGE_RATE_UNAVAILABLE (503) with the `valet` provider when neither
 *   Valet nor the cache has a rate at most `EXCHANGE_RATE_MAX_AGE_HOURS` old (unless `allowFallback`).
 */
export async function currentCadUsdRate(options: RateOptions = {}): Promise<RateQuote> {
  return currentCadUsdRateNow(options);
}

/**
 * `currentCadUsdRate` answered at once, without a promise, with the `fixed` provider (which
 * reads nothing); a promise of it with `valet` (the cache table, maybe the Valet API).
 * @throws (or rejects with) what `currentCadUsdRate` rejects with
 */
export function currentCadUsdRateNow(options: RateOptions = {}): RateQuote | Promise<RateQuote> {
  const config = getConfig();
  const now = options.now ?? new Date();
  if (rateProvider(config) === "fixed") return fallbackQuote(config, now, "fixed (CAD_USD_FALLBACK_RATE)");
  return valetRate(config, now, options);
}

/** The `valet` provider's quote (`currentCadUsdRate`). */
async function valetRate(config: Config, now: Date, options: RateOptions): Promise<RateQuote> {
  let quote = await cachedQuote();
  let fetchError: string | null = null;
  const refreshAfter = config.EXCHANGE_RATE_REFRESH_MINUTES * 60_000;
  if (!quote || now.getTime() - quote.fetchedAt.getTime() >= refreshAfter) {
    try {
      const live = await fetchValetRate(config);
      const { exchangeRates } = await rateTable();
      const db = await getDb();
      await db.insert(exchangeRates).values({
        pair: RATE_PAIR,
        rate: live.rate_cad_usd,
        source: live.rate_source,
        asOf: new Date(live.as_of),
        fetchedAt: now,
      });
      quote = { ...live, fetchedAt: now };
    } catch (error) {
      fetchError = error instanceof Error ? error.message : String(error);
    }
  }
  const maxAgeMs = config.EXCHANGE_RATE_MAX_AGE_HOURS * 3_600_000;
  if (quote && now.getTime() - new Date(quote.as_of).getTime() <= maxAgeMs) {
    return { rate_cad_usd: quote.rate_cad_usd, rate_source: quote.rate_source, as_of: quote.as_of };
  }
  if (options.allowFallback) {
    return fallbackQuote(config, now, "fallback (CAD_USD_FALLBACK_RATE): no fresh Bank of Canada rate");
  }
  throw new DomainError(
    "EXCHANGE_RATE_UNAVAILABLE",
    `No CAD→USD exchange rate newer than ${config.EXCHANGE_RATE_MAX_AGE_HOURS} h is available` +
      (quote ? ` (newest is as of ${quote.as_of})` : "") +
      (fetchError ? `; the Bank of Canada Valet API failed: ${fetchError}` : "") +
      ". Approval needs a current rate; retry later.",
    {
      retryAfterSeconds: 300,
      extra: { rate_as_of: quote?.as_of ?? null, max_age_hours: config.EXCHANGE_RATE_MAX_AGE_HOURS },
    },
  );
}

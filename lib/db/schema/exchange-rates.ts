import { index, pgTable, serial, text } from "drizzle-orm/pg-core";
import { exchangeRate, timestamptz } from "./columns.js";

/** Fetched exchange rates; the newest row of a pair is the current rate (and the fallback when fetching fails). */
export const exchangeRates = pgTable(
  "exchange_rates",
  {
    id: serial("id").primaryKey(),
    /** Base then quote currency, e.g. `CADUSD` (USD per 1 CAD). */
    pair: text("pair").notNull(),
    /** Quote units per base unit. */
    rate: exchangeRate("rate").notNull(),
    /** Provider name (or `fixed` for a configured rate). */
    source: text("source").notNull(),
    /** Time the provider says the rate is for. */
    asOf: timestamptz("as_of").notNull(),
    /** Time the service fetched it. */
    fetchedAt: timestamptz("fetched_at").notNull().defaultNow(),
  },
  (t) => [index("exchange_rates_pair_fetched_at_idx").on(t.pair, t.fetchedAt.desc())],
);

export type ExchangeRate = typeof exchangeRates.$inferSelect;
export type NewExchangeRate = typeof exchangeRates.$inferInsert;

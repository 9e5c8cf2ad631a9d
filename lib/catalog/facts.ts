/**
 * Facts quoted in prose, built from their one source (issue 30 item 1): the catalog's size and id
 * range (SERVICE_TYPES, lib/db/schema/enums.ts), the price formula (PRICING, lib/catalog/services.ts),
 * the hub (HUB_NAME, lib/geo/known-locations.ts) and the default road speed (lib/config/server.ts).
 * Every description, /llms.txt line and tool text that states one of them calls these, and
 * tests/architecture/facts.test.ts fails when any published text states a different number.
 */
import { DEFAULT_TRANSPORT_SPEED_KMH, HUB_NAME } from "../config/server.js";
import { SERVICE_TYPES } from "../db/schema/enums.js";
import { PRICING } from "./pricing.js";

const NUMBER_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
];

/** The number of services in words ("five"), or in digits past twelve. */
export function serviceCountWord(): string {
  return NUMBER_WORDS[SERVICE_TYPES.length] ?? String(SERVICE_TYPES.length);
}

/** The id range of the catalog: "SVC-01 to SVC-05". */
export function serviceIdRange(): string {
  return `${SERVICE_TYPES[0]} to ${SERVICE_TYPES[SERVICE_TYPES.length - 1]}`;
}

/** A CAD rate as the texts write it: 2 decimals below 1 CAD (0.90), else as is (100). */
function rate(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/**
 * The price formula in words: `50 + site_hours×100 + transport_hours×100 + km_roundtrip×0.90, ×1.25
 * when urgent` (`ascii`: `*` and `x` for `×`).
 */
export function pricingFormula(ascii = false): string {
  const times = ascii ? "*" : "×";
  const urgent = ascii ? "x" : "×";
  return (
    `${rate(PRICING.base_fee_cad)} + site_hours${times}${rate(PRICING.hourly_rate_cad)} + ` +
    `transport_hours${times}${rate(PRICING.hourly_rate_cad)} + km_roundtrip${times}${rate(PRICING.km_rate_cad)}, ` +
    `${urgent}${PRICING.urgency_multiplier} when urgent`
  );
}

/** How distance becomes transport time: round trip from the hub, default speed. */
export function transportRule(ascii = false): string {
  return ascii
    ? `Round trip = 2 x one-way km from ${HUB_NAME}; transport hours = round-trip km / ${DEFAULT_TRANSPORT_SPEED_KMH} km/h (TRANSPORT_SPEED_KMH)`
    : `Round trip = 2 × the one-way distance from the ${HUB_NAME} hub; transport hours = round-trip km ÷ ${DEFAULT_TRANSPORT_SPEED_KMH} km/h (TRANSPORT_SPEED_KMH)`;
}

/** The km rate as the texts write it (0.90). */
export const KM_RATE_TEXT = rate(PRICING.km_rate_cad);

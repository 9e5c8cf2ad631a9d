/**
 * The price formula (spec "GET /api/estimate"; docs/api-conventions.md "Estimate response"):
 *
 *   total = (base_fee + site_hours × hourly_rate + transport_hours × hourly_rate
 *            + km_roundtrip × km_rate) × urgency_multiplier
 *
 * with km_roundtrip = 2 × one-way km from the hub and transport_hours =
 * km_roundtrip ÷ TRANSPORT_SPEED_KMH. Money is computed in integer cents (lib/money.ts):
 * each component is rounded to the cent by the service's one rule (half away from zero on
 * the decimal value), the urgent total too, and nothing is rounded to dollars (so payment
 * amounts stay distinct).
 */
import { PRICING } from "../catalog/services.js";
import { fromCents, roundHalfAwayFromZero, toCents } from "../money.js";

/** Inputs of the formula. */
export interface EstimateInput {
  /** Hours on site, 0.25 to 168. */
  siteHours: number;
  /** One-way road distance from the hub, km. */
  distanceKmOneWay: number;
  urgency: "standard" | "urgent";
  /** Average road speed, km/h. */
  speedKmh: number;
  /**
   * The service's own terms (`servicePricing`, lib/catalog/services.ts; issue 46 item 3):
   * base fee in CAD and minimum billed hours on site. Omitted: `PRICING.base_fee_cad` and no
   * minimum (today's estimate without a service).
   */
  service?: { base_fee_cad: number; minimum_hours: number };
}

/** The breakdown of an estimate; amounts in CAD (2 decimals), hours to 4 decimals. */
export interface EstimateBreakdown {
  base_fee: number;
  site_hours: number;
  site_cost: number;
  distance_km_one_way: number;
  km_roundtrip: number;
  km_cost: number;
  transport_hours: number;
  transport_cost: number;
  urgency_multiplier: number;
  subtotal: number;
  total_cad: number;
}

/**
 * Applies the formula. Pure; no I/O. With `input.service`, its base fee replaces the common one
 * and `site_hours` is at least its minimum (the hours billed, not the hours asked).
 */
export function computeEstimate(input: EstimateInput): EstimateBreakdown {
  const kmRoundtrip = Number((input.distanceKmOneWay * 2).toFixed(4));
  const transportHoursExact = kmRoundtrip / input.speedKmh;
  const siteHours = Math.max(input.siteHours, input.service?.minimum_hours ?? 0);
  const baseCents = toCents(input.service?.base_fee_cad ?? PRICING.base_fee_cad);
  const siteCents = toCents(siteHours * PRICING.hourly_rate_cad);
  const kmCents = toCents(kmRoundtrip * PRICING.km_rate_cad);
  const transportCents = toCents(transportHoursExact * PRICING.hourly_rate_cad);
  const subtotalCents = baseCents + siteCents + kmCents + transportCents;
  const multiplier = input.urgency === "urgent" ? PRICING.urgency_multiplier : 1;
  const totalCents = roundHalfAwayFromZero(subtotalCents * multiplier);
  return {
    base_fee: fromCents(baseCents),
    site_hours: siteHours,
    site_cost: fromCents(siteCents),
    distance_km_one_way: input.distanceKmOneWay,
    km_roundtrip: kmRoundtrip,
    km_cost: fromCents(kmCents),
    transport_hours: Number(transportHoursExact.toFixed(4)),
    transport_cost: fromCents(transportCents),
    urgency_multiplier: multiplier,
    subtotal: fromCents(subtotalCents),
    total_cad: fromCents(totalCents),
  };
}

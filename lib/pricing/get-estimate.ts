/**
 * Builds the GET /api/estimate response (docs/api-conventions.md "Estimate response"): resolves
 * the location, applies the formula and adds the USDC equivalent.
 */
import { type ServicePricing, servicePricing } from "../catalog/services.js";
import { getConfig } from "../config.js";
import { type ResolvedLocation, resolveLocationNow } from "../geo/resolve-location.js";
import { locationNotFound } from "../geo/suggest-places.js";
import { cadToUsd } from "../money.js";
import { currentCadUsdRateNow, type RateQuote } from "../payments/exchange-rate.js";
import { taxesForAmount } from "../taxes.js";
import { computeEstimate } from "./compute-estimate.js";
import type { EstimateQuery, EstimateResponse } from "./schemas.js";

/**
 * The estimate for `query`; with `service_type`, that service's base fee and minimum hours
 * (`servicePricing`, issue 46 item 3) and a `service` member; without it, the common terms.
 * @throws DomainError LOCATION_NOT_FOUND (422) when the location matches no known place.
 */
export async function getEstimate(query: EstimateQuery): Promise<EstimateResponse> {
  return estimateNow(query);
}

/**
 * `getEstimate` answered at once, without a promise, when neither the location (no distance-matrix
 * call) nor the exchange rate (the `fixed` provider) has to be waited for; else a promise of it.
 * @throws (or rejects with) DomainError LOCATION_NOT_FOUND (422) when the location matches no known place.
 */
export function estimateNow(query: EstimateQuery): EstimateResponse | Promise<EstimateResponse> {
  const place = resolveLocationNow(query.location);
  return place instanceof Promise ? place.then((p) => withPlace(query, p)) : withPlace(query, place);
}

/** The estimate of `query` once its location is resolved (`place`, null: not found). */
function withPlace(
  query: EstimateQuery,
  place: ResolvedLocation | null,
): EstimateResponse | Promise<EstimateResponse> {
  const config = getConfig();
  if (!place) throw locationNotFound(String(query.location), "location");
  const service = query.service_type === undefined ? undefined : servicePricing(query.service_type);
  const breakdown = computeEstimate({
    siteHours: query.hours,
    distanceKmOneWay: place.distance_km_one_way,
    urgency: query.urgency,
    speedKmh: config.TRANSPORT_SPEED_KMH,
    service,
  });
  const rate = currentCadUsdRateNow({ allowFallback: true });
  return rate instanceof Promise
    ? rate.then((r) => response(query, place, breakdown, r, service))
    : response(query, place, breakdown, rate, service);
}

/** The response body from its parts. */
function response(
  query: EstimateQuery,
  place: ResolvedLocation,
  breakdown: ReturnType<typeof computeEstimate>,
  rate: RateQuote,
  service: ServicePricing | undefined,
): EstimateResponse {
  const { total_cad, ...rest } = breakdown;
  // Registered for the sales taxes: taxes and the total with taxes beside total_cad (docs/taxes.md).
  const taxed = taxesForAmount(total_cad, getConfig().TAX_REGISTERED, new Date());
  return {
    currency: "CAD",
    total_cad,
    ...(taxed ?? {}),
    breakdown: rest,
    ...(service && {
      service: {
        id: service.id,
        name: service.name,
        base_fee_cad: service.base_fee_cad,
        minimum_hours: service.minimum_hours,
        minimum_applied: query.hours < service.minimum_hours,
      },
    }),
    location: {
      query: query.location ?? null,
      matched: place.matched,
      source: place.source,
      in_service_zone: place.in_service_zone,
      coordinates: place.coordinates,
    },
    usd: {
      rate_cad_usd: rate.rate_cad_usd,
      estimated_usdc: cadToUsd(taxed?.total_with_taxes_cad ?? total_cad, rate.rate_cad_usd),
      rate_source: rate.rate_source,
      as_of: rate.as_of,
    },
  };
}

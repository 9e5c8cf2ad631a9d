/**
 * Builds the GET /api/estimate response (docs/api-conventions.md "Estimate response"): resolves
 * the location, applies the formula and adds the USDC equivalent.
 */
import { getConfig } from "../config.js";
import { resolveLocation } from "../geo/resolve-location.js";
import { locationNotFound } from "../geo/suggest-places.js";
import { cadToUsd } from "../money.js";
import { currentCadUsdRate } from "../payments/exchange-rate.js";
import { taxesForAmount } from "../taxes.js";
import { computeEstimate } from "./compute-estimate.js";
import type { EstimateQuery, EstimateResponse } from "./schemas.js";

/**
 * The estimate for `query`.
 * @throws DomainError LOCATION_NOT_FOUND (422) when the location matches no known place.
 */
export async function getEstimate(query: EstimateQuery): Promise<EstimateResponse> {
  const config = getConfig();
  const place = await resolveLocation(query.location);
  if (!place) throw locationNotFound(String(query.location), "location");
  const breakdown = computeEstimate({
    siteHours: query.hours,
    distanceKmOneWay: place.distance_km_one_way,
    urgency: query.urgency,
    speedKmh: config.TRANSPORT_SPEED_KMH,
  });
  const { total_cad, ...rest } = breakdown;
  const rate = await currentCadUsdRate({ allowFallback: true });
  // Registered for the sales taxes: taxes and the total with taxes beside total_cad (docs/taxes.md).
  const taxed = taxesForAmount(total_cad, config.TAX_REGISTERED, new Date());
  return {
    currency: "CAD",
    total_cad,
    ...(taxed ?? {}),
    breakdown: rest,
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

/** The price constants (one source; quoted in prose through lib/catalog/facts.ts). */
/**
 * Pricing constants in CAD (spec "GET /api/estimate" formula and "Service catalog entry"):
 * total = base_fee + hourly_rate x (site_hours + transport_hours) + km_rate x km_roundtrip,
 * x urgency_multiplier when urgent; exact cents, no rounding.
 */
export const PRICING = Object.freeze({
  /** Fixed fee per task, CAD. */
  base_fee_cad: 50,
  /** Per hour on site and per hour of transport, CAD/h. */
  hourly_rate_cad: 100,
  /** Per round-trip kilometre from the Terrebonne hub, CAD/km. */
  km_rate_cad: 0.9,
  /** Multiplier of the whole total for `urgency: "urgent"` (+25 %). */
  urgency_multiplier: 1.25,
} as const);

/**
 * Hours on site an estimate accepts (spec "GET /api/estimate": 0.25 to 168). The lower bound is
 * also every service's minimum billed hours unless its catalog entry sets its own (issue 46 item 3).
 */
export const SITE_HOURS = Object.freeze({ min: 0.25, max: 168 } as const);

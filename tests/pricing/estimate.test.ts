import { describe, expect, it } from "vitest";
import { GET } from "../../api/estimate.js";
import { GET as services } from "../../api/services.js";
import { getService, servicePricing } from "../../lib/catalog/services.js";
import { SERVICE_TYPES } from "../../lib/db/schema/enums.js";
import { computeEstimate } from "../../lib/pricing/compute-estimate.js";
import { call, expectEnvelope } from "../helpers/request.js";

describe("computeEstimate", () => {
  it("applies the spec formula exactly to the cent (Montreal, 1 h)", () => {
    const e = computeEstimate({ siteHours: 1, distanceKmOneWay: 35, urgency: "standard", speedKmh: 60 });
    expect(e).toMatchObject({
      base_fee: 50,
      site_cost: 100,
      km_roundtrip: 70,
      km_cost: 63,
      transport_hours: 1.1667,
      transport_cost: 116.67,
      subtotal: 329.67,
      total_cad: 329.67,
    });
  });

  it("multiplies by 1.25 when urgent and keeps cents", () => {
    const e = computeEstimate({ siteHours: 1, distanceKmOneWay: 35, urgency: "urgent", speedKmh: 60 });
    expect(e.total_cad).toBe(412.09); // 329.67 × 1.25 = 412.0875 → 412.09
    expect(e.urgency_multiplier).toBe(1.25);
  });

  it("costs only base fee and site time at the hub", () => {
    const e = computeEstimate({ siteHours: 0.25, distanceKmOneWay: 0, urgency: "standard", speedKmh: 60 });
    expect(e.total_cad).toBe(75);
  });

  it("uses a service's own base fee and bills at least its minimum hours (issue 46 item 3)", () => {
    // The example of a sixth service: 60 CAD base fee, 1.5 h minimum.
    const service = { base_fee_cad: 60, minimum_hours: 1.5 };
    const below = computeEstimate({
      siteHours: 1,
      distanceKmOneWay: 0,
      urgency: "standard",
      speedKmh: 60,
      service,
    });
    expect(below).toMatchObject({ base_fee: 60, site_hours: 1.5, site_cost: 150, total_cad: 210 });
    const above = computeEstimate({
      siteHours: 2,
      distanceKmOneWay: 0,
      urgency: "standard",
      speedKmh: 60,
      service,
    });
    expect(above).toMatchObject({ base_fee: 60, site_hours: 2, total_cad: 260 });
  });

  it("is exact for awkward distances (no dollar rounding)", () => {
    const e = computeEstimate({ siteHours: 1.5, distanceKmOneWay: 22.25, urgency: "standard", speedKmh: 60 });
    // 50 + 150 + 44.5 km × 0.9 = 40.05 + 44.5/60 h × 100 = 74.17
    expect(e.total_cad).toBe(314.22);
  });
});

describe("GET /api/estimate", () => {
  it("prices a known location", async () => {
    const { res, body } = await call(GET, "/api/estimate?hours=1&location=Montreal");
    expect(res.status).toBe(200);
    expect(body.total_cad).toBe(329.67);
    expect(body.currency).toBe("CAD");
    expect(body.location).toMatchObject({
      matched: "Montreal",
      source: "known_location",
      in_service_zone: true,
    });
    expect(body.usd.estimated_usdc).toBeCloseTo(329.67 * body.usd.rate_cad_usd, 2);
  });

  it("finds the city inside a full street address, accents and abbreviations included", async () => {
    const a = await call(
      GET,
      `/api/estimate?hours=2&location=${encodeURIComponent("1000 Rue Sherbrooke O, Montréal, QC H3A 3G4")}`,
    );
    expect(a.body.location.matched).toBe("Montreal");
    const b = await call(GET, `/api/estimate?hours=2&location=${encodeURIComponent("St-Jérôme")}`);
    expect(b.body.location.matched).toBe("Saint-Jerome");
    expect(b.body.breakdown.km_roundtrip).toBe(80);
  });

  it("uses the hub when no location is given", async () => {
    const { body } = await call(GET, "/api/estimate?hours=2");
    expect(body.location.source).toBe("hub");
    expect(body.total_cad).toBe(250);
  });

  it("flags places outside the service zone", async () => {
    const { res, body } = await call(
      GET,
      `/api/estimate?hours=1&location=${encodeURIComponent("Sherbrooke, QC")}`,
    );
    expect(res.status).toBe(200);
    expect(body.location).toMatchObject({
      matched: "Sherbrooke",
      source: "gazetteer",
      in_service_zone: false,
    });
  });

  it("quotes a service's base fee and minimum hours with service_type, as its catalog entry states them", async () => {
    const catalog = await call(services, "/api/services");
    expect(catalog.res.status).toBe(200);
    for (const id of SERVICE_TYPES) {
      const entry = catalog.body.services.find((s: { id: string }) => s.id === id);
      const { res, body } = await call(GET, `/api/estimate?hours=0.25&location=Laval&service_type=${id}`);
      expect(res.status).toBe(200);
      expect(body.breakdown.base_fee).toBe(entry.contract.pricing.base_fee);
      expect(body.breakdown.site_hours).toBe(Math.max(0.25, entry.contract.pricing.minimum_hours));
      expect(body.service).toEqual({
        id,
        name: getService(id)!.name,
        base_fee_cad: entry.contract.pricing.base_fee,
        minimum_hours: entry.contract.pricing.minimum_hours,
        minimum_applied: 0.25 < entry.contract.pricing.minimum_hours,
      });
      expect(servicePricing(id)).toMatchObject({ base_fee_cad: body.service.base_fee_cad });
    }
  });

  it("answers exactly as before without service_type (no service member)", async () => {
    const plain = await call(GET, "/api/estimate?hours=1&location=Montreal");
    expect(plain.body).not.toHaveProperty("service");
    expect(plain.body.total_cad).toBe(329.67);
    const quoted = await call(GET, "/api/estimate?hours=1&location=Montreal&service_type=SVC-01");
    const { service: _service, ...rest } = quoted.body;
    // The five services keep the common terms today (docs/decisions.md entry 60); `as_of` is the
    // fixed rate's reading time.
    expect({ ...rest, usd: { ...rest.usd, as_of: "" } }).toEqual({
      ...plain.body,
      usd: { ...plain.body.usd, as_of: "" },
    });
  });

  it("refuses an unknown service_type as POST /api/submit-task does (422 VALIDATION_ERROR)", async () => {
    const { res, body } = await call(GET, "/api/estimate?hours=1&service_type=SVC-99");
    const error = expectEnvelope(body, res, 422, "VALIDATION_ERROR");
    expect(error.field).toBe("service_type");
    expect(error.message).toBe(`service_type must be one of ${SERVICE_TYPES.join(", ")}`);
  });

  it("accepts the hour bounds 0.25 and 168", async () => {
    expect((await call(GET, "/api/estimate?hours=0.25")).res.status).toBe(200);
    expect((await call(GET, "/api/estimate?hours=168")).res.status).toBe(200);
  });

  it.each([
    ["", 400, "MISSING_FIELD", "hours"],
    ["hours=abc", 400, "INVALID_FORMAT", "hours"],
    ["hours=0.24", 422, "VALIDATION_ERROR", "hours"],
    ["hours=168.01", 422, "VALIDATION_ERROR", "hours"],
    ["hours=-1", 422, "VALIDATION_ERROR", "hours"],
    ["hours=2&urgency=asap", 422, "VALIDATION_ERROR", "urgency"],
    ["hours=2&location=Atlantis%20City", 422, "LOCATION_NOT_FOUND", "location"],
    [`hours=2&location=${"x".repeat(301)}`, 422, "FIELD_TOO_LONG", "location"],
  ])("?%s → %i %s", async (qs, status, code, field) => {
    const { res, body } = await call(GET, `/api/estimate?${qs}`);
    expect(expectEnvelope(body, res, status, code).field).toBe(field);
  });
});

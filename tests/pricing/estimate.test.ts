import { describe, expect, it } from "vitest";
import { GET } from "../../api/estimate.js";
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

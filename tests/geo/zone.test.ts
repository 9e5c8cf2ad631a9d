import { describe, expect, it } from "vitest";
import { KNOWN_LOCATIONS } from "../../lib/geo/known-locations.js";
import { isInServiceZone, SERVICE_ZONE, SERVICE_ZONE_BBOX } from "../../lib/geo/zone.js";

const [WEST, SOUTH, EAST, NORTH] = SERVICE_ZONE_BBOX;
const inBbox = ([lon, lat]: readonly [number, number]) =>
  lon >= WEST && lon <= EAST && lat >= SOUTH && lat <= NORTH;

describe("SERVICE_ZONE", () => {
  it("is a GeoJSON Feature<Polygon> with the spec's bounding box", () => {
    expect(SERVICE_ZONE.type).toBe("Feature");
    expect(SERVICE_ZONE.geometry.type).toBe("Polygon");
    expect(SERVICE_ZONE.bbox).toEqual([-74.35, 45.35, -73.4, 46.25]);
  });

  it("has a closed, counter-clockwise ring whose vertices span exactly the bbox", () => {
    const ring = SERVICE_ZONE.geometry.coordinates[0] ?? [];
    expect(ring.length).toBeGreaterThanOrEqual(4);
    expect(ring[0]).toEqual(ring.at(-1));
    for (const [lon, lat] of ring as [number, number][]) expect(inBbox([lon, lat])).toBe(true);
    const lons = ring.map((p) => p[0] ?? 0);
    const lats = ring.map((p) => p[1] ?? 0);
    expect([Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)]).toEqual([
      ...SERVICE_ZONE_BBOX,
    ]);
    let twiceArea = 0;
    for (let i = 0; i + 1 < ring.length; i++) {
      const [x1 = 0, y1 = 0] = ring[i] ?? [];
      const [x2 = 0, y2 = 0] = ring[i + 1] ?? [];
      twiceArea += x1 * y2 - x2 * y1;
    }
    expect(twiceArea).toBeGreaterThan(0);
  });
});

describe("isInServiceZone", () => {
  it("contains Montreal, Laval, Longueuil and the hub", () => {
    expect(isInServiceZone([-73.58781, 45.50884])).toBe(true);
    expect(isInServiceZone([-73.692, 45.56995])).toBe(true);
    expect(isInServiceZone([-73.51806, 45.53121])).toBe(true);
    expect(isInServiceZone([-73.64732, 45.70004])).toBe(true);
  });

  it("excludes Quebec City, Ottawa, Sherbrooke, Gatineau and Trois-Rivières", () => {
    expect(isInServiceZone([-71.21454, 46.81228])).toBe(false);
    expect(isInServiceZone([-75.69812, 45.41117])).toBe(false);
    expect(isInServiceZone([-71.89908, 45.40008])).toBe(false);
    expect(isInServiceZone([-75.70164, 45.47723])).toBe(false);
    expect(isInServiceZone([-72.54, 46.35])).toBe(false);
  });

  it("is false for invalid coordinates", () => {
    expect(isInServiceZone([Number.NaN, 45.5])).toBe(false);
    expect(isInServiceZone([-73.6, Number.POSITIVE_INFINITY])).toBe(false);
    expect(isInServiceZone([-73.6, 145.5])).toBe(false);
  });

  it("agrees with the table for every known location inside the bbox", () => {
    for (const place of KNOWN_LOCATIONS.filter((p) => inBbox(p.coordinates))) {
      expect({ name: place.name, inZone: isInServiceZone(place.coordinates) }).toEqual({
        name: place.name,
        inZone: place.in_service_zone,
      });
    }
  });

  it("documents the spec conflict: only Wentworth-Nord, Mont-Tremblant and L'Ascension lie outside the bbox", () => {
    const outside = KNOWN_LOCATIONS.filter((p) => !inBbox(p.coordinates));
    expect(outside.map((p) => p.name)).toEqual(["Wentworth-Nord", "Mont-Tremblant", "L'Ascension"]);
    for (const p of outside) expect(isInServiceZone(p.coordinates)).toBe(false);
    expect(outside.map((p) => p.in_service_zone)).toEqual([true, true, false]);
  });
});

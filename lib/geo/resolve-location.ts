/**
 * Location resolution for price estimates (docs/api-conventions.md "GET /api/estimate" and
 * "Known locations"; docs/api-conventions.md "Estimate response": `location` { query, matched, source,
 * in_service_zone } and `breakdown.distance_km_one_way`).
 *
 * Order: empty query → the hub; the known-locations table (distance as given); the offline
 * Quebec gazetteer (distance from the configured distance-matrix provider, or great-circle
 * km × ROAD_FACTOR when there is none or it fails); otherwise unknown (null).
 *
 * Matching inside addresses, e.g. "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4":
 *   1. a comma segment that is exactly a place name, scanning segments last to first;
 *   2. a place name ending a segment ("123 rue Principale Mascouche");
 *   3. a place name anywhere in a segment ("Laval-des-Rapides", "Montréal-Nord").
 * Passes 2 and 3 ignore names used as street names: right after a civic number or a street
 * word ("rue", "boulevard", "chemin", "street", …, possibly followed by "de"/"du"/"des"),
 * so "Rue Sherbrooke" never means Sherbrooke. The known-locations table is tried before the
 * gazetteer within passes 1-2, then the gazetteer's exact names, then pass 3, so that a
 * gazetteer town such as "L'Ascension-de-Notre-Seigneur" is not taken for L'Ascension.
 */

import distance from "@turf/distance";
import { BoundedCache } from "../bounded-cache.js";
import { getConfig } from "../config.js";
import { getDistanceProvider } from "./distance-provider.js";
import { type GazetteerPlace, gazetteerLongestName, getGazetteer } from "./gazetteer.js";
import { HUB_COORDINATES, HUB_NAME, KNOWN_LOCATIONS, type KnownLocation } from "./known-locations.js";
import {
  addressSegments,
  cityLikeRegionSegments,
  keyOfWords,
  normalizeWords,
  placeKey,
} from "./normalize.js";
import { isInServiceZone } from "./zone.js";

/** A resolved location (the estimate's `location` object plus distance and coordinates). */
export interface ResolvedLocation {
  /** The input as given. */
  query: string;
  /** Canonical place name, e.g. "Montreal", "Saint-Jerome", "Sainte-Thérèse". */
  matched: string;
  source: "hub" | "known_location" | "gazetteer" | "distance_matrix";
  /** One-way km from the hub, 2 decimals max. */
  distance_km_one_way: number;
  /** [lon, lat], or null when unknown. */
  coordinates: [number, number] | null;
  in_service_zone: boolean;
}

const STREET_WORDS: ReadonlySet<string> = new Set([
  "rue",
  "avenue",
  "av",
  "ave",
  "boulevard",
  "boul",
  "blvd",
  "bd",
  "chemin",
  "ch",
  "route",
  "rte",
  "rang",
  "montee",
  "place",
  "pl",
  "cote",
  "croissant",
  "impasse",
  "allee",
  "terrasse",
  "promenade",
  "autoroute",
  "street",
  "road",
  "rd",
  "drive",
  "dr",
  "lane",
  "highway",
  "hwy",
  "way",
  "court",
  "crescent",
  "square",
  "carre",
  "parc",
]);
const PARTICLES: ReadonlySet<string> = new Set(["de", "du", "des", "la", "le", "les", "l", "d", "of", "the"]);
const CIVIC_NUMBER = /^\d+[a-z]?$/;

type Lookup<T> = (key: string) => T | undefined;

interface PlaceIndex<T> {
  lookup: Lookup<T>;
  /** Most words a name can span (bounds window searches). */
  maxWords: number;
}

const knownIndex: PlaceIndex<KnownLocation> = (() => {
  const map = new Map<string, KnownLocation>();
  let maxWords = 1;
  for (const location of KNOWN_LOCATIONS) {
    for (const name of [location.name, ...location.aliases]) {
      map.set(placeKey(name), location);
      maxWords = Math.max(maxWords, normalizeWords(name).length);
    }
  }
  return { lookup: (key) => map.get(key), maxWords };
})();

function gazetteerIndex(): PlaceIndex<GazetteerPlace> {
  const map = getGazetteer();
  return { lookup: (key) => map.get(key), maxWords: gazetteerLongestName() };
}

/** Whether the words before `start` make the window a street name (civic number or street word). */
function isStreetContext(words: readonly string[], start: number): boolean {
  let i = start - 1;
  while (i >= 0 && PARTICLES.has(words[i] ?? "")) i--;
  const previous = words[i];
  if (previous === undefined) return false;
  return STREET_WORDS.has(previous) || (i === start - 1 && CIVIC_NUMBER.test(previous));
}

/** Pass 1: a segment that is exactly a place name, last segment first. */
function matchWholeSegment<T>(segments: readonly string[][], index: PlaceIndex<T>): T | undefined {
  for (let s = segments.length - 1; s >= 0; s--) {
    const found = index.lookup(keyOfWords(segments[s] ?? []));
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Passes 2-3: a run of words naming a place, not in street context; last segment first,
 * rightmost run first, longest first. `suffixOnly` restricts runs to the segment's end.
 */
function matchWindow<T>(
  segments: readonly string[][],
  index: PlaceIndex<T>,
  suffixOnly: boolean,
): T | undefined {
  for (let s = segments.length - 1; s >= 0; s--) {
    const words = segments[s] ?? [];
    const lastEnd = suffixOnly ? words.length : 1;
    for (let end = words.length; end >= lastEnd; end--) {
      for (let start = Math.max(0, end - index.maxWords - 1); start < end; start++) {
        if (start === 0 && end === words.length) continue; // pass 1 covered it
        const found = index.lookup(keyOfWords(words.slice(start, end)));
        if (found !== undefined && !isStreetContext(words, start)) return found;
      }
    }
  }
  return undefined;
}

type Match = { kind: "known"; place: KnownLocation } | { kind: "gazetteer"; place: GazetteerPlace };

function findPlace(segments: readonly string[][]): Match | undefined {
  const known = matchWholeSegment(segments, knownIndex) ?? matchWindow(segments, knownIndex, true);
  if (known) return { kind: "known", place: known };
  const gazetteer = gazetteerIndex();
  const exact = matchWholeSegment(segments, gazetteer) ?? matchWindow(segments, gazetteer, true);
  if (exact) return { kind: "gazetteer", place: exact };
  const partialKnown = matchWindow(segments, knownIndex, false);
  if (partialKnown) return { kind: "known", place: partialKnown };
  const partial = matchWindow(segments, gazetteer, false);
  return partial ? { kind: "gazetteer", place: partial } : undefined;
}

/**
 * The place `query` names (passes 1-3, then a trailing "Québec" read as the city, as in "2500
 * Boulevard Laurier, Québec"), or null. The tables are fixed for the process, so answers are
 * remembered per query text (at most `PLACE_CACHE` texts, then forgotten all at once): a repeated
 * location skips the word splitting and window searches (docs/performance.md, issue 14).
 */
function placeOf(query: string): Match | null {
  let match = places.get(query);
  if (match === undefined) {
    const segments = addressSegments(query);
    match =
      segments.length === 0
        ? null
        : (findPlace(segments) ?? findPlace(cityLikeRegionSegments(query)) ?? null);
    places.set(query, match);
  }
  return match;
}

/** Query texts whose place `placeOf` remembers. */
const PLACE_CACHE = 1000;
const places = new BoundedCache<string, Match | null>(PLACE_CACHE);

/** Rounds km to at most 2 decimals. */
function roundKm(km: number): number {
  return Math.round(km * 100) / 100;
}

/**
 * Finds the known-locations entry an address or city names, without loading the
 * gazetteer (passes 1-3 on the table only).
 * @param query untrusted text.
 * @returns the table entry, or undefined.
 */
export function matchKnownLocation(query: string): KnownLocation | undefined {
  const segments = addressSegments(query);
  return (
    matchWholeSegment(segments, knownIndex) ??
    matchWindow(segments, knownIndex, true) ??
    matchWindow(segments, knownIndex, false)
  );
}

/**
 * Resolves an estimate's `location` (address or city) to a place, its one-way distance
 * from the Terrebonne hub (km) and its service-zone membership.
 *
 * - empty, blank or absent → the hub (Terrebonne, 0 km, source "hub", in zone);
 * - a known-locations entry → the table's km (source "known_location");
 * - another Quebec place of the gazetteer → the distance-matrix provider's road km
 *   (source "distance_matrix") when `DISTANCE_PROVIDER` is set and it answers, else
 *   great-circle km from the hub × ROAD_FACTOR (source "gazetteer"); km rounded to 2 decimals;
 * - a street address followed by "Québec" alone, when nothing else names a place → Quebec City;
 * - anything else → null (`suggestPlaces` offers the closest names).
 * Zone membership: polygon of zone.ts, except table entries, which carry their own flag.
 * @param query untrusted text (only its first MAX_INPUT_CHARS characters are read).
 * @throws ConfigError (lib/config.ts) on an invalid environment; never on the query's content.
 */
export async function resolveLocation(query: string | undefined | null): Promise<ResolvedLocation | null> {
  return resolveLocationNow(query);
}

/**
 * `resolveLocation` answered at once, without a promise, unless the distance-matrix provider has
 * to be asked (a gazetteer place with `DISTANCE_PROVIDER` set): the estimate's usual case
 * (a table entry, the hub or a gazetteer place by great-circle km) waits on nothing.
 * @param query untrusted text
 * @returns what `resolveLocation` resolves to, or a promise of it
 * @throws ConfigError (lib/config.ts) on an invalid environment
 */
export function resolveLocationNow(
  query: string | undefined | null,
): ResolvedLocation | null | Promise<ResolvedLocation | null> {
  if (query === undefined || query === null) return hub("");
  if (typeof query !== "string") return null;
  if (query.trim() === "") return hub(query);

  const match = placeOf(query);
  if (!match) return null;

  if (match.kind === "known") {
    const { place } = match;
    return {
      query,
      matched: place.name,
      source: "known_location",
      distance_km_one_way: place.distance_km,
      coordinates: [place.coordinates[0], place.coordinates[1]],
      in_service_zone: place.in_service_zone,
    };
  }

  const coordinates: [number, number] = [match.place.coordinates[0], match.place.coordinates[1]];
  const base = {
    query,
    matched: match.place.name,
    coordinates,
    in_service_zone: isInServiceZone(coordinates),
  };
  const provider = getDistanceProvider();
  return provider ? byRoad(provider, base, coordinates) : byGreatCircle(base, coordinates);
}

/** A gazetteer place's fields but the distance and its source. */
type PlaceBase = Omit<ResolvedLocation, "source" | "distance_km_one_way">;

/** `base` at the distance-matrix provider's road km (source "distance_matrix"), else by great circle. */
async function byRoad(
  provider: NonNullable<ReturnType<typeof getDistanceProvider>>,
  base: PlaceBase,
  coordinates: [number, number],
): Promise<ResolvedLocation> {
  try {
    const road = await provider.roadDistanceKm(HUB_COORDINATES, coordinates);
    return { ...base, source: "distance_matrix", distance_km_one_way: roundKm(road.km) };
  } catch {
    // Provider down, slow or wrong: fall back to the gazetteer estimate.
    return byGreatCircle(base, coordinates);
  }
}

/** `base` at its great-circle km from the hub × ROAD_FACTOR (source "gazetteer"). */
function byGreatCircle(base: PlaceBase, coordinates: [number, number]): ResolvedLocation {
  const greatCircleKm = distance([HUB_COORDINATES[0], HUB_COORDINATES[1]], coordinates, {
    units: "kilometers",
  });
  return {
    ...base,
    source: "gazetteer",
    distance_km_one_way: roundKm(greatCircleKm * getConfig().ROAD_FACTOR),
  };
}

function hub(query: string): ResolvedLocation {
  return {
    query,
    matched: HUB_NAME,
    source: "hub",
    distance_km_one_way: 0,
    coordinates: [HUB_COORDINATES[0], HUB_COORDINATES[1]],
    in_service_zone: true,
  };
}

/**
 * "Did you mean": the place names closest to what was typed, for LOCATION_NOT_FOUND errors.
 *
 * Each comma segment of the input (region tokens and postal codes removed, lib/geo/normalize.ts),
 * and each run of its last one to three words, is compared with every name of the known-locations
 * table (names and aliases) and of the Quebec gazetteer, folded the same way (case, accents,
 * hyphens). The measure is the Levenshtein edit distance (insertions, deletions, substitutions of
 * one character each), bounded at a third of the name's length (at most 3), so "Montrael" →
 * "Montreal" (2) but unrelated words suggest nothing. Ties go to the known-locations table, then
 * to the more populous place.
 */
import { DomainError } from "../errors.js";
import { getGazetteer } from "./gazetteer.js";
import { KNOWN_LOCATIONS } from "./known-locations.js";
import { addressSegments, keyOfWords, placeKey } from "./normalize.js";

/** Most suggestions returned. */
export const MAX_SUGGESTIONS = 3;

/**
 * Levenshtein distance between `a` and `b`, or `max + 1` as soon as it must exceed `max`
 * (two rows, O(|a|·|b|) time at worst, early exit per row).
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

interface Candidate {
  key: string;
  name: string;
  /** 0 for the known-locations table, 1 for the gazetteer. */
  rank: number;
  population: number;
}

let candidates: Candidate[] | undefined;

function allCandidates(): Candidate[] {
  if (candidates) return candidates;
  const list: Candidate[] = [];
  for (const place of KNOWN_LOCATIONS) {
    for (const name of [place.name, ...place.aliases]) {
      list.push({ key: placeKey(name), name: place.name, rank: 0, population: Number.MAX_SAFE_INTEGER });
    }
  }
  for (const [key, place] of getGazetteer()) {
    list.push({ key, name: place.name, rank: 1, population: place.population });
  }
  candidates = list;
  return list;
}

/** The texts compared: each segment whole and its last 1-3 words. */
function queryKeys(input: string): string[] {
  const keys = new Set<string>();
  for (const words of addressSegments(input)) {
    keys.add(keyOfWords(words));
    for (let n = 1; n <= Math.min(3, words.length - 1); n++) keys.add(keyOfWords(words.slice(-n)));
  }
  keys.delete("");
  return [...keys];
}

/**
 * Up to MAX_SUGGESTIONS place names close to `input` (best first), each name once; empty when
 * nothing is close. Loads the gazetteer on first use.
 * @param input untrusted text (capped as in `addressSegments`).
 */
export function suggestPlaces(input: string): string[] {
  const keys = queryKeys(input);
  if (keys.length === 0) return [];
  // Keyed by the folded name, so "Montreal" (table) and "Montréal" (gazetteer) count once.
  const best = new Map<string, { name: string; distance: number; rank: number; population: number }>();
  for (const c of allCandidates()) {
    const max = Math.min(3, Math.floor(c.key.length / 3));
    if (max === 0) continue;
    let distance = max + 1;
    for (const key of keys) distance = Math.min(distance, boundedEditDistance(key, c.key, max));
    if (distance > max) continue;
    const folded = placeKey(c.name);
    const seen = best.get(folded);
    if (!seen || distance < seen.distance || (distance === seen.distance && c.rank < seen.rank)) {
      best.set(folded, { name: c.name, distance, rank: c.rank, population: c.population });
    }
  }
  return [...best.values()]
    .sort((x, y) => x.distance - y.distance || x.rank - y.rank || y.population - x.population)
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.name);
}

/** Longest part of the typed location echoed back in an error, characters. */
const ECHO_CHARS = 200;

/**
 * The LOCATION_NOT_FOUND error for `input` (the caller's own text) on `field`: its message quotes
 * the input and names up to three close places; `extra` carries `input` (as received, cut to 200
 * characters) and `suggestions` (possibly empty) for programs.
 */
export function locationNotFound(input: string, field: string): DomainError {
  const echoed = Array.from(input).slice(0, ECHO_CHARS).join("");
  const suggestions = suggestPlaces(input);
  const hint = suggestions.length
    ? `did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}? Give a full street address with its city`
    : `give a city (e.g. "Laval") or a full street address with its city`;
  return new DomainError("LOCATION_NOT_FOUND", `No place in Quebec matches "${echoed}"; ${hint}`, {
    field,
    extra: { input: echoed, suggestions },
  });
}

/**
 * Text normalization for place-name matching (used by the known-locations table and the
 * gazetteer; spec "GET /api/estimate": `location` is "address or city").
 *
 * - case- and accent-insensitive (NFD, combining marks removed, lower case);
 * - hyphens, apostrophes, dots and any other non-letter/digit become spaces; spaces collapse;
 * - whole-word abbreviations: `st` → `saint`, `ste` → `sainte`, `mt` → `mont`;
 * - in addresses: province/country tokens (`qc`, `quebec`, `québec`, `pq`, `canada`) and
 *   Canadian postal codes (`H3A 3G4`, `H3A3G4`) are dropped when they form their own comma
 *   segment or end a segment.
 *
 * The input is untrusted: it is capped in length, segments and words, and nothing here throws.
 */

/** Longest input considered, in UTF-16 units (addresses are ≤ 300 chars by the spec). */
export const MAX_INPUT_CHARS = 512;
/** Most comma segments considered (the last ones are kept: the city is near the end). */
export const MAX_SEGMENTS = 12;
/** Most words per segment considered (the last ones are kept). */
export const MAX_WORDS_PER_SEGMENT = 40;

const ABBREVIATIONS: Readonly<Record<string, string>> = { st: "saint", ste: "sainte", mt: "mont" };
const REGION_TOKENS: ReadonlySet<string> = new Set(["qc", "quebec", "pq", "canada"]);
/** Words that make a following "quebec" part of a place name (e.g. "Venise-en-Québec"). */
const NAME_PARTICLES: ReadonlySet<string> = new Set(["en", "de", "du", "des", "la", "le", "l", "d"]);
const POSTAL_FULL = /^[a-z]\d[a-z]\d[a-z]\d$/;
const POSTAL_FSA = /^[a-z]\d[a-z]$/;
const POSTAL_LDU = /^\d[a-z]\d$/;
const SEGMENT_SEPARATORS = /[,;\n\r|]+/;

/**
 * Normalizes free text into lower-case ASCII-ish words (accents removed, punctuation as
 * spaces, abbreviations expanded). Letters of other scripts are kept as they are.
 * @param text any string (not trimmed or capped here beyond MAX_INPUT_CHARS).
 * @returns the words; empty array when nothing is left.
 */
export function normalizeWords(text: string): string[] {
  const folded = String(text)
    .slice(0, MAX_INPUT_CHARS)
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  if (folded === "") return [];
  return folded.split(" ").map((w) => ABBREVIATIONS[w] ?? w);
}

/**
 * Normalized form of a name: its words joined by single spaces
 * (e.g. "St-Jérôme" → "saint jerome", "L'Ascension" → "l ascension").
 */
export function normalizeName(text: string): string {
  return normalizeWords(text).join(" ");
}

/**
 * Index key of a name: its normalized words with no separator, so that "L'Ascension",
 * "Lascension", "Mont Tremblant" and "Mont-Tremblant" compare equal by key.
 */
export function placeKey(text: string): string {
  return normalizeWords(text).join("");
}

/** Index key of already-normalized words (see `placeKey`). */
export function keyOfWords(words: readonly string[]): string {
  return words.join("");
}

function isPostalAt(words: readonly string[], end: number): 0 | 1 | 2 {
  const last = words[end - 1];
  if (last === undefined) return 0;
  if (POSTAL_FULL.test(last)) return 1;
  const before = words[end - 2];
  if (before !== undefined && POSTAL_FSA.test(before) && POSTAL_LDU.test(last)) return 2;
  return 0;
}

/**
 * Removes trailing postal codes (always) and trailing province/country tokens (only while
 * something else remains, and not right after "en"/"de"/… as in "Venise-en-Québec") from
 * one normalized segment.
 * @returns the remaining words, and whether the segment held region tokens only. A lone
 *   "quebec" followed by a province token ("Québec (Québec) G1R 4P5") is the city, not region.
 */
function stripRegion(words: readonly string[]): { words: string[]; regionOnly: boolean } {
  let end = words.length;
  let stripped = false;
  let provinceStripped = false;
  for (;;) {
    const postal = isPostalAt(words, end);
    if (postal > 0) {
      end -= postal;
      stripped = true;
      continue;
    }
    const last = words[end - 1];
    if (last === undefined || !REGION_TOKENS.has(last)) break;
    if (end === 1) {
      const city = last === "quebec" && provinceStripped;
      return { words: words.slice(0, 1), regionOnly: !city };
    }
    if (NAME_PARTICLES.has(words[end - 2] ?? "")) break;
    end -= 1;
    stripped = true;
    provinceStripped = true;
  }
  return { words: words.slice(0, end), regionOnly: stripped && end === 0 };
}

/**
 * Splits an address or city into normalized comma segments, region tokens removed.
 *
 * Segments made only of a province/country token are dropped when another segment is
 * left; otherwise they are kept, so that "Québec" or "Québec, QC" can still name Quebec City.
 * Segments made only of a postal code are dropped. Order is preserved.
 * @param input untrusted text (capped to MAX_INPUT_CHARS / MAX_SEGMENTS / MAX_WORDS_PER_SEGMENT).
 * @returns one array of words per segment; empty when nothing usable remains.
 */
export function addressSegments(input: string): string[][] {
  const { places, regionOnly } = splitSegments(input);
  return places.length > 0 ? places : regionOnly;
}

/**
 * The segments `addressSegments` drops as region tokens although a place segment is left, when
 * one of them is the word "Québec" alone: in "2500 Boulevard Laurier, Québec" it names the city
 * when the other segments name no place (`resolveLocation`'s last resort). Empty otherwise.
 * @param input untrusted text (same caps as `addressSegments`).
 */
export function cityLikeRegionSegments(input: string): string[][] {
  const { places, regionOnly } = splitSegments(input);
  if (places.length === 0) return [];
  return regionOnly.filter((w) => w.length === 1 && w[0] === "quebec");
}

function splitSegments(input: string): { places: string[][]; regionOnly: string[][] } {
  const raw = String(input).slice(0, MAX_INPUT_CHARS).split(SEGMENT_SEPARATORS).slice(-MAX_SEGMENTS);
  const places: string[][] = [];
  const regionOnly: string[][] = [];
  for (const part of raw) {
    const words = normalizeWords(part).slice(-MAX_WORDS_PER_SEGMENT);
    if (words.length === 0) continue;
    const result = stripRegion(words);
    if (result.regionOnly) regionOnly.push(result.words);
    else if (result.words.length > 0) places.push(result.words);
  }
  return { places, regionOnly: regionOnly.filter((w) => w.length > 0) };
}

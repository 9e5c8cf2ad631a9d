/**
 * The geofence of a task (issue 26 item 5; docs/decisions.md "Geofenced check-in"): how far a
 * reported position is from the place the task's address resolved to, and whether that is close
 * enough to count as on site.
 *
 * Rule: inside when `distance_m ≤ GEOFENCE_RADIUS_M + min(accuracy_m, GEOFENCE_ACCURACY_CAP_M)`.
 * The reported accuracy widens the fence (a phone indoors reports 30-80 m), but only up to the cap,
 * so a position claiming 5 km of accuracy does not open a 5 km fence. Distances are great-circle
 * (`@turf/distance`, haversine, metres) from `task.location.coordinates`, which are `[lon, lat]`
 * (GeoJSON order, as lib/receipts/capture.ts and the receipt read them). A task without coordinates
 * has no fence: every check-in there is outside (it needs a reason and is flagged).
 */
import distance from "@turf/distance";
import type { Config } from "../config.js";
import type { Task } from "../db/schema/index.js";
import { roundMetres } from "../tasks/state/site-visit.js";

/** `[longitude, latitude]` of the task's resolved place, or null. */
export function taskCoordinates(task: Pick<Task, "location">): [number, number] | null {
  const c = (task.location as { coordinates?: unknown } | null)?.coordinates;
  if (!Array.isArray(c) || c.length !== 2) return null;
  const [lon, lat] = c;
  return typeof lon === "number" && typeof lat === "number" && Number.isFinite(lon) && Number.isFinite(lat)
    ? [lon, lat]
    : null;
}

/** Where a reported position stands against a task's geofence (metres, 0.1 m). */
export interface GeofenceCheck {
  /** Distance to the task's place; null when the task has no coordinates. */
  distanceM: number | null;
  /** The fence applied: the radius plus the accuracy allowance. */
  geofenceM: number;
  within: boolean;
}

/**
 * Checks a reported position (`latitude`, `longitude` in degrees, `accuracyM` metres) against the
 * geofence of `task` under `config` (GEOFENCE_RADIUS_M, GEOFENCE_ACCURACY_CAP_M).
 */
export function checkGeofence(
  task: Pick<Task, "location">,
  position: { latitude: number; longitude: number; accuracyM: number },
  config: Pick<Config, "GEOFENCE_RADIUS_M" | "GEOFENCE_ACCURACY_CAP_M">,
): GeofenceCheck {
  const place = taskCoordinates(task);
  const geofenceM = roundMetres(
    config.GEOFENCE_RADIUS_M + Math.min(position.accuracyM, config.GEOFENCE_ACCURACY_CAP_M),
  );
  if (!place) return { distanceM: null, geofenceM, within: false };
  const distanceM = roundMetres(
    distance(place, [position.longitude, position.latitude], { units: "meters" }),
  );
  return { distanceM, geofenceM, within: distanceM <= geofenceM };
}

/** OpenStreetMap centred on `[lon, lat]` at zoom 17, with a marker. */
export function osmUrl([lon, lat]: [number, number]): string {
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`;
}

/** The RFC 5870 `geo:` URI of `[lon, lat]` (latitude first), which phones open in their map app. */
export function geoUri([lon, lat]: [number, number]): string {
  return `geo:${lat},${lon}`;
}

/**
 * Capture metadata of proof photos (issue 17): when and where a photo says it was taken, read
 * with `exifr` (EXIF of JPEG, HEIC/HEIF and PNG), and how that compares with the task:
 *
 * - `captured_at` (ISO 8601): `DateTimeOriginal` (else `CreateDate`) with `OffsetTimeOriginal`
 *   when present; without an offset the camera's wall clock is read in America/Toronto (the
 *   service zone) and `time_zone_assumed` is true;
 * - `gps` {latitude, longitude} (degrees, WGS 84) and `distance_km` (great-circle km) from the
 *   coordinates the task's address resolved to (a place, not the street: hence the generous
 *   {@link FAR_FROM_LOCATION_KM});
 * - `within_execution_window`: captured between dispatch (else payment) and completion, give
 *   or take {@link CLOCK_TOLERANCE_MINUTES} for camera clocks;
 * - `within_site_visit` (only when the task has a site visit, issue 26 item 6): captured between the
 *   field person's check-in and completion (or the upload, for a file sent from the field before
 *   completion), give or take the same tolerance;
 * - `flags`: NO_CAPTURE_TIME, NO_GPS, OUTSIDE_EXECUTION_WINDOW, OUTSIDE_SITE_VISIT,
 *   FAR_FROM_LOCATION, UNREADABLE_METADATA. Flags inform the operator and the requester; they never
 *   refuse a file.
 *
 * Files of other types (videos, PDF, text) get no capture record (null).
 */
import { createRequire } from "node:module";
import distance from "@turf/distance";
import { DateTime } from "luxon";

/** Types whose metadata `exifr` reads. */
export const CAPTURE_TYPES = ["image/jpeg", "image/heic", "image/heif", "image/png"] as const;
/** Distance from the task's resolved place beyond which a photo is flagged, km. */
export const FAR_FROM_LOCATION_KM = 10;
/** Camera clock drift tolerated around the execution window, minutes. */
export const CLOCK_TOLERANCE_MINUTES = 15;
/** Zone of a capture time without an offset. */
const ASSUMED_ZONE = "America/Toronto";

/** The capture record stored with a proof file and shown in `proof_files[].capture` (a type: it is stored as JSON). */
export type CaptureRecord = {
  captured_at: string | null;
  time_zone_assumed: boolean;
  gps: { latitude: number; longitude: number } | null;
  distance_km: number | null;
  within_execution_window: boolean | null;
  /** Present only when the task has a site visit: captured between check-in and `windowEnd`. */
  within_site_visit?: boolean | null;
  flags: string[];
};

/** What a capture is compared with. */
export interface CaptureContext {
  /** [lon, lat] of the task's resolved place, or null. */
  coordinates: [number, number] | null;
  /** Start of the window: dispatch, else payment; null when unknown. */
  windowStart: Date | null;
  /** End of the window: completion (or the upload of a file sent before completion). */
  windowEnd: Date;
  /** The site visit's check-in, when the task has one (else absent: no `within_site_visit`). */
  checkedInAt?: Date | null;
}

/** The subset of exifr's parse output this module reads (values not revived). */
interface RawExif {
  DateTimeOriginal?: unknown;
  CreateDate?: unknown;
  OffsetTimeOriginal?: unknown;
  OffsetTime?: unknown;
  latitude?: unknown;
  longitude?: unknown;
}

type Exifr = { parse(data: Uint8Array, options: Record<string, unknown>): Promise<RawExif | undefined> };
let exifr: Exifr | undefined;
/** exifr, loaded on first use: only completions with photos pay for it (cold starts of other endpoints do not). */
function loadExifr(): Exifr {
  const require = createRequire(import.meta.url);
  exifr ??= require(require.resolve("exifr")) as Exifr;
  return exifr;
}

/** `YYYY:MM:DD HH:MM:SS` (+ optional `±HH:MM`) as an instant, or null. */
function captureInstant(raw: unknown, offset: unknown): { at: Date; assumed: boolean } | null {
  if (typeof raw !== "string") return null;
  const m = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(raw.trim());
  if (!m) return null;
  const local = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`;
  const hasOffset = typeof offset === "string" && /^[+-]\d{2}:\d{2}$/.test(offset.trim());
  const dt = hasOffset
    ? DateTime.fromISO(`${local}${(offset as string).trim()}`, { setZone: true })
    : DateTime.fromISO(local, { zone: ASSUMED_ZONE });
  return dt.isValid ? { at: dt.toJSDate(), assumed: !hasOffset } : null;
}

/**
 * Reads the capture metadata of a proof file and compares it with `context`.
 * @param bytes the file's content; `mimeType` its (checked) type
 * @returns the capture record, or null for types without capture metadata ({@link CAPTURE_TYPES})
 *   Never throws for bad metadata: an unreadable block gives the UNREADABLE_METADATA flag.
 */
export async function readCapture(
  bytes: Uint8Array,
  mimeType: string,
  context: CaptureContext,
): Promise<CaptureRecord | null> {
  if (!(CAPTURE_TYPES as readonly string[]).includes(mimeType)) return null;
  const flags: string[] = [];
  let raw: RawExif | undefined;
  const reader = loadExifr(); // a missing module is a deployment error: it fails loudly
  try {
    raw = await reader.parse(bytes, { tiff: true, exif: true, gps: true, reviveValues: false });
  } catch {
    flags.push("UNREADABLE_METADATA");
  }
  const time = captureInstant(
    raw?.DateTimeOriginal ?? raw?.CreateDate,
    raw?.OffsetTimeOriginal ?? raw?.OffsetTime,
  );
  const lat = raw?.latitude;
  const lon = raw?.longitude;
  const gps =
    typeof lat === "number" && typeof lon === "number" && Number.isFinite(lat) && Number.isFinite(lon)
      ? { latitude: Number(lat.toFixed(6)), longitude: Number(lon.toFixed(6)) }
      : null;
  const distanceKm =
    gps && context.coordinates
      ? Number(
          distance(context.coordinates, [gps.longitude, gps.latitude], { units: "kilometers" }).toFixed(2),
        )
      : null;
  const tolerance = CLOCK_TOLERANCE_MINUTES * 60_000;
  const within =
    time && context.windowStart
      ? time.at.getTime() >= context.windowStart.getTime() - tolerance &&
        time.at.getTime() <= context.windowEnd.getTime() + tolerance
      : null;
  const visit = context.checkedInAt
    ? time
      ? time.at.getTime() >= context.checkedInAt.getTime() - tolerance &&
        time.at.getTime() <= context.windowEnd.getTime() + tolerance
      : null
    : undefined;
  if (!time) flags.push("NO_CAPTURE_TIME");
  if (!gps) flags.push("NO_GPS");
  if (within === false) flags.push("OUTSIDE_EXECUTION_WINDOW");
  if (visit === false) flags.push("OUTSIDE_SITE_VISIT");
  if (distanceKm !== null && distanceKm > FAR_FROM_LOCATION_KM) flags.push("FAR_FROM_LOCATION");
  return {
    captured_at: time ? time.at.toISOString() : null,
    time_zone_assumed: time?.assumed ?? false,
    gps,
    distance_km: distanceKm,
    within_execution_window: within,
    ...(visit === undefined ? {} : { within_site_visit: visit }),
    flags,
  };
}

/**
 * Capture metadata (lib/receipts/capture.ts) read with exifr from the committed sample JPEGs
 * (tests/fixtures/capture: EXIF written by hand, no camera needed): with GPS near the task's
 * place, with GPS far from it, a capture time only (outside the window, no offset), and none.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CaptureContext, readCapture } from "../../lib/receipts/capture.js";

const fixture = (name: string) =>
  readFileSync(path.join(import.meta.dirname, "..", "fixtures", "capture", name));

/** The task: 1000 Rue Sherbrooke O resolved to Montreal; dispatched 10:00, completed 11:00 (UTC−5). */
const context: CaptureContext = {
  coordinates: [-73.58781, 45.50884],
  windowStart: new Date("2026-11-20T15:00:00Z"),
  windowEnd: new Date("2026-11-20T16:00:00Z"),
};

describe("capture metadata", () => {
  it("reads time with its offset and GPS, near the place, inside the window: no flags", async () => {
    expect(await readCapture(fixture("with-gps.jpg"), "image/jpeg", context)).toEqual({
      captured_at: "2026-11-20T15:30:00.000Z",
      time_zone_assumed: false,
      gps: { latitude: 45.5048, longitude: -73.5772 },
      distance_km: expect.closeTo(0.9, 0),
      within_execution_window: true,
      flags: [],
    });
  });

  it("with a site visit, compares the capture time with check-in..completion", async () => {
    const inside = await readCapture(fixture("with-gps.jpg"), "image/jpeg", {
      ...context,
      checkedInAt: new Date("2026-11-20T15:20:00Z"),
    });
    expect(inside).toMatchObject({ within_site_visit: true, flags: [] });
    const before = await readCapture(fixture("with-gps.jpg"), "image/jpeg", {
      ...context,
      checkedInAt: new Date("2026-11-20T15:50:00Z"),
    });
    expect(before).toMatchObject({ within_site_visit: false, flags: ["OUTSIDE_SITE_VISIT"] });
  });

  it("flags a photo taken far from the task's place", async () => {
    const capture = await readCapture(fixture("far-gps.jpg"), "image/jpeg", context);
    expect(capture?.distance_km).toBeGreaterThan(200);
    expect(capture?.flags).toEqual(["FAR_FROM_LOCATION"]);
  });

  it("reads a time without offset in America/Toronto and flags it outside the window, without GPS", async () => {
    expect(await readCapture(fixture("time-only.jpg"), "image/jpeg", context)).toEqual({
      captured_at: "2019-06-01T12:00:00.000Z",
      time_zone_assumed: true,
      gps: null,
      distance_km: null,
      within_execution_window: false,
      flags: ["NO_GPS", "OUTSIDE_EXECUTION_WINDOW"],
    });
  });

  it("flags a photo without metadata, and gives no record for other types", async () => {
    expect(await readCapture(fixture("no-exif.jpg"), "image/jpeg", context)).toEqual({
      captured_at: null,
      time_zone_assumed: false,
      gps: null,
      distance_km: null,
      within_execution_window: null,
      flags: ["NO_CAPTURE_TIME", "NO_GPS"],
    });
    expect(await readCapture(Buffer.from("{}"), "application/json", context)).toBeNull();
  });

  it("leaves the window unknown when the task was never dispatched nor paid", async () => {
    const capture = await readCapture(fixture("with-gps.jpg"), "image/jpeg", {
      ...context,
      windowStart: null,
    });
    expect(capture?.within_execution_window).toBeNull();
  });
});

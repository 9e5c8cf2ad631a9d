import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../lib/config.js";
import {
  createOsrmProvider,
  DistanceProviderError,
  getDistanceProvider,
} from "../../lib/geo/distance-provider.js";
import { HUB_COORDINATES } from "../../lib/geo/known-locations.js";
import { resolveLocation } from "../../lib/geo/resolve-location.js";
import { type OsrmStub, startOsrmStub } from "./osrm-stub.js";

const ENV_KEYS = ["DISTANCE_PROVIDER", "OSRM_URL", "DISTANCE_TIMEOUT_MS", "ROAD_FACTOR"] as const;
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

function setEnv(values: Partial<Record<(typeof ENV_KEYS)[number], string>>): void {
  for (const key of ENV_KEYS) {
    const value = values[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  resetConfig();
}

const BOISBRIAND: [number, number] = [-73.83249, 45.61678];

/**
 * Bound of a request the stand-in answers, ms: it answers at once, so the bound only guards
 * against a hang, far above what a loaded machine takes.
 */
const ANSWERED_MS = 10_000;
/**
 * Bound of a request the stand-in never answers, ms: every such test waits it out; long enough
 * for the request to reach the stand-in (which counts it) before it is given up.
 */
const HANG_MS = 2000;

let stub: OsrmStub;

beforeAll(async () => {
  stub = await startOsrmStub();
});

afterEach(() => {
  for (const key of ENV_KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  resetConfig();
  stub.requests.length = 0;
  stub.setMode({ kind: "ok", meters: 30_000, seconds: 1500 });
});

afterAll(async () => {
  await stub.close();
});

describe("getDistanceProvider", () => {
  it("is null unless DISTANCE_PROVIDER=osrm", () => {
    setEnv({});
    expect(getDistanceProvider()).toBeNull();
    setEnv({ DISTANCE_PROVIDER: "none", OSRM_URL: stub.url });
    expect(getDistanceProvider()).toBeNull();
  });

  it("returns the OSRM provider when configured", () => {
    setEnv({ DISTANCE_PROVIDER: "osrm", OSRM_URL: stub.url });
    expect(getDistanceProvider()?.name).toBe("osrm");
  });
});

describe("OSRM provider against the loopback stand-in", () => {
  it("calls /table/v1/driving with both coordinates and reads distance and duration", async () => {
    stub.setMode({ kind: "ok", meters: 23_456.7, seconds: 1800 });
    const provider = createOsrmProvider(stub.url, ANSWERED_MS);
    const result = await provider.roadDistanceKm(HUB_COORDINATES, BOISBRIAND);
    expect(result.km).toBeCloseTo(23.4567, 6);
    expect(result.durationHours).toBeCloseTo(0.5, 6);
    expect(stub.requests).toEqual([
      "/table/v1/driving/-73.64732,45.70004;-73.83249,45.61678?sources=0&destinations=1&annotations=distance,duration",
    ]);
  });

  it("keeps a path prefix of OSRM_URL and ignores its trailing slash", async () => {
    const provider = createOsrmProvider(`${stub.url}/osrm/`, ANSWERED_MS);
    await provider.roadDistanceKm(HUB_COORDINATES, BOISBRIAND);
    expect(stub.requests[0]).toMatch(
      /^\/osrm\/table\/v1\/driving\/-73\.64732,45\.70004;-73\.83249,45\.61678\?/,
    );
  });

  // Each case fails for its own reason (the message says which): an answer the stand-in gives is
  // never outrun by the bound, which only the hanging case reaches.
  it.each([
    ["HTTP 500", { kind: "status", status: 500 } as const, /HTTP 500/],
    ["a non-JSON body", { kind: "garbage" } as const, /OSRM request failed \(SyntaxError/],
    ["no route (null distance)", { kind: "no-route" } as const, /no route distance/],
    ["no answer before the timeout", { kind: "hang" } as const, /OSRM request failed \(TimeoutError/],
  ])("rejects with DistanceProviderError on %s", async (_label, mode, message) => {
    stub.setMode(mode);
    const provider = createOsrmProvider(stub.url, mode.kind === "hang" ? HANG_MS : ANSWERED_MS);
    const error = await provider.roadDistanceKm(HUB_COORDINATES, BOISBRIAND).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DistanceProviderError);
    expect((error as Error).message).toMatch(message);
  });

  it("rejects invalid coordinates without a request", async () => {
    const provider = createOsrmProvider(stub.url, ANSWERED_MS);
    await expect(provider.roadDistanceKm(HUB_COORDINATES, [Number.NaN, 45])).rejects.toBeInstanceOf(
      DistanceProviderError,
    );
    expect(stub.requests).toHaveLength(0);
  });
});

describe("resolveLocation with DISTANCE_PROVIDER=osrm", () => {
  it("uses the road distance for gazetteer places (source distance_matrix)", async () => {
    setEnv({ DISTANCE_PROVIDER: "osrm", OSRM_URL: stub.url });
    stub.setMode({ kind: "ok", meters: 24_876, seconds: 1380 });
    const r = await resolveLocation("Boisbriand, QC");
    expect(r).toMatchObject({
      matched: "Boisbriand",
      source: "distance_matrix",
      distance_km_one_way: 24.88,
      in_service_zone: true,
    });
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]).toContain("/table/v1/driving/-73.64732,45.70004;-73.83249,45.61678?");
  });

  it("does not call the provider for known locations", async () => {
    setEnv({ DISTANCE_PROVIDER: "osrm", OSRM_URL: stub.url });
    const r = await resolveLocation("Montréal");
    expect(r).toMatchObject({ matched: "Montreal", source: "known_location", distance_km_one_way: 35 });
    expect(stub.requests).toHaveLength(0);
  });

  it.each([
    ["500", { kind: "status", status: 500 } as const],
    ["garbage", { kind: "garbage" } as const],
    ["hanging", { kind: "hang" } as const],
  ])("falls back to the gazetteer when the stand-in is %s", async (_label, mode) => {
    const bound = mode.kind === "hang" ? HANG_MS : ANSWERED_MS;
    setEnv({ DISTANCE_PROVIDER: "osrm", OSRM_URL: stub.url, DISTANCE_TIMEOUT_MS: String(bound) });
    stub.setMode(mode);
    // DISTANCE_TIMEOUT_MS is the bound the request gets (not the 2 s default): checked on the
    // abort signal itself rather than with a stopwatch, which a loaded machine would fool.
    const timeout = vi.spyOn(AbortSignal, "timeout");
    try {
      const r = await resolveLocation("Boisbriand");
      expect(r).toMatchObject({ matched: "Boisbriand", source: "gazetteer", in_service_zone: true });
      expect(r?.distance_km_one_way).toBeCloseTo(22.25, 2);
      expect(stub.requests).toHaveLength(1);
      expect(timeout).toHaveBeenCalledWith(bound);
    } finally {
      timeout.mockRestore();
    }
  });
});

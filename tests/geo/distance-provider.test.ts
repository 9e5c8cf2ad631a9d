import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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
    const provider = createOsrmProvider(stub.url, 1000);
    const result = await provider.roadDistanceKm(HUB_COORDINATES, BOISBRIAND);
    expect(result.km).toBeCloseTo(23.4567, 6);
    expect(result.durationHours).toBeCloseTo(0.5, 6);
    expect(stub.requests).toEqual([
      "/table/v1/driving/-73.64732,45.70004;-73.83249,45.61678?sources=0&destinations=1&annotations=distance,duration",
    ]);
  });

  it("keeps a path prefix of OSRM_URL and ignores its trailing slash", async () => {
    const provider = createOsrmProvider(`${stub.url}/osrm/`, 1000);
    await provider.roadDistanceKm(HUB_COORDINATES, BOISBRIAND);
    expect(stub.requests[0]).toMatch(
      /^\/osrm\/table\/v1\/driving\/-73\.64732,45\.70004;-73\.83249,45\.61678\?/,
    );
  });

  it.each([
    ["HTTP 500", { kind: "status", status: 500 } as const],
    ["a non-JSON body", { kind: "garbage" } as const],
    ["no route (null distance)", { kind: "no-route" } as const],
    ["no answer before the timeout", { kind: "hang" } as const],
  ])("rejects with DistanceProviderError on %s", async (_label, mode) => {
    stub.setMode(mode);
    const provider = createOsrmProvider(stub.url, 150);
    await expect(provider.roadDistanceKm(HUB_COORDINATES, BOISBRIAND)).rejects.toBeInstanceOf(
      DistanceProviderError,
    );
  });

  it("rejects invalid coordinates without a request", async () => {
    const provider = createOsrmProvider(stub.url, 1000);
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
    setEnv({ DISTANCE_PROVIDER: "osrm", OSRM_URL: stub.url, DISTANCE_TIMEOUT_MS: "150" });
    stub.setMode(mode);
    const started = Date.now();
    const r = await resolveLocation("Boisbriand");
    expect(r).toMatchObject({ matched: "Boisbriand", source: "gazetteer", in_service_zone: true });
    expect(r?.distance_km_one_way).toBeCloseTo(22.25, 2);
    expect(stub.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

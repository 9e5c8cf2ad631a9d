/**
 * Pluggable distance-matrix providers (spec "GET /api/estimate": "Round-trip distance is
 * computed with a distance-matrix provider from the Terrebonne hub"). Configuration:
 * `DISTANCE_PROVIDER` (`none` | `osrm`), `OSRM_URL`, `DISTANCE_TIMEOUT_MS` (lib/config.ts).
 */
import { getConfig } from "../config.js";

/** Road distance between two points, as a provider reports it. */
export interface RoadDistance {
  /** One-way road distance, km. */
  km: number;
  /** One-way driving time, hours; null when the provider does not report it. */
  durationHours: number | null;
}

/** A distance-matrix provider. */
export interface DistanceProvider {
  /** Short name for logs (e.g. "osrm"). */
  readonly name: string;
  /**
   * Road distance from `from` to `to`, both [lon, lat].
   * @throws DistanceProviderError on timeout, transport error, bad status or bad body.
   */
  roadDistanceKm(from: readonly [number, number], to: readonly [number, number]): Promise<RoadDistance>;
}

/** Any failure of a distance provider; callers fall back to the gazetteer estimate. */
export class DistanceProviderError extends Error {
  override name = "DistanceProviderError";
}

/** Largest OSRM response body read, bytes (a 1×1 table is a few hundred bytes). */
const MAX_RESPONSE_BYTES = 64 * 1024;

function formatCoordinate(point: readonly [number, number]): string {
  const [lon, lat] = point;
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
    throw new DistanceProviderError("invalid coordinates");
  }
  return `${lon},${lat}`;
}

function firstCell(matrix: unknown): unknown {
  if (!Array.isArray(matrix)) return undefined;
  const row: unknown = matrix[0];
  return Array.isArray(row) ? row[0] : undefined;
}

/**
 * Builds an OSRM provider using the Table service:
 * `GET {baseUrl}/table/v1/driving/{lon},{lat};{lon},{lat}?sources=0&destinations=1&annotations=distance,duration`.
 * A valid answer is `{ code: "Ok", distances: [[meters]], durations: [[seconds]] }`; anything
 * else (non-2xx, non-JSON, other `code`, null or negative distance) is an error.
 * @param baseUrl OSRM server origin, optionally with a path prefix (trailing slash ignored).
 * @param timeoutMs abort the request after this many milliseconds.
 * @param fetchImpl injectable fetch (defaults to the global one).
 */
export function createOsrmProvider(
  baseUrl: string,
  timeoutMs: number,
  fetchImpl: typeof fetch = fetch,
): DistanceProvider {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    name: "osrm",
    async roadDistanceKm(from, to) {
      const url =
        `${base}/table/v1/driving/${formatCoordinate(from)};${formatCoordinate(to)}` +
        "?sources=0&destinations=1&annotations=distance,duration";
      let body: unknown;
      try {
        const response = await fetchImpl(url, {
          headers: { accept: "application/json" },
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!response.ok) {
          await response.body?.cancel().catch(() => {});
          throw new DistanceProviderError(`OSRM answered HTTP ${response.status}`);
        }
        const text = await response.text();
        if (text.length > MAX_RESPONSE_BYTES) throw new DistanceProviderError("OSRM response too large");
        body = JSON.parse(text);
      } catch (error) {
        if (error instanceof DistanceProviderError) throw error;
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        throw new DistanceProviderError(`OSRM request failed (${reason})`);
      }
      if (typeof body !== "object" || body === null)
        throw new DistanceProviderError("OSRM body not an object");
      const { code, distances, durations } = body as Record<string, unknown>;
      if (code !== "Ok") throw new DistanceProviderError(`OSRM code ${JSON.stringify(code)}`);
      const meters = firstCell(distances);
      if (typeof meters !== "number" || !Number.isFinite(meters) || meters < 0) {
        throw new DistanceProviderError("OSRM returned no route distance");
      }
      const seconds = firstCell(durations);
      const durationHours =
        typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0 ? seconds / 3600 : null;
      return { km: meters / 1000, durationHours };
    },
  };
}

/**
 * The configured distance-matrix provider: OSRM when `DISTANCE_PROVIDER=osrm` (with
 * `OSRM_URL`, timeout `DISTANCE_TIMEOUT_MS`), else null (the caller then uses great-circle
 * km × ROAD_FACTOR).
 * @throws ConfigError (lib/config.ts) when the environment is invalid.
 */
export function getDistanceProvider(): DistanceProvider | null {
  const config = getConfig();
  if (config.DISTANCE_PROVIDER === "osrm" && config.OSRM_URL) {
    return createOsrmProvider(config.OSRM_URL, config.DISTANCE_TIMEOUT_MS);
  }
  return null;
}

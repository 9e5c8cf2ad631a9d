/**
 * Server, storage, identifiers, request sizes and distances (the local host, the database, id prefixes, body limits, the distance provider).
 * One entry a variable, with its default; part of the configuration schema (lib/config/load.ts).
 */
import { z } from "zod";
import { int, num, optionalString, optionalUrl } from "./values.js";

/** Name of the hub distances are measured from (spec item 5: "Hub and centre: Terrebonne, QC"). */
export const HUB_NAME = "Terrebonne";

/** Default of TRANSPORT_SPEED_KMH, km/h (the descriptions built in lib/catalog/facts.ts quote it). */
export const DEFAULT_TRANSPORT_SPEED_KMH = 60;

/** Server variables of the configuration schema, built on first use (lib/config/load.ts). */
export const serverSettings = () => ({
  /** `development`, `test` or `production`. */
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Port of the local host (`npm start`). */
  PORT: int(3000, 0, 65535),
  /** Host interface the local host binds to. */
  HOST: z.string().default("127.0.0.1"),
  /** Public origin used in links (`_links`, `api_url`); defaults to http://localhost:PORT. */
  PUBLIC_BASE_URL: optionalUrl(),

  /** Postgres URL. Unset: embedded PGlite under DATA_DIR. */
  DATABASE_URL: optionalString(),
  /** `auto` (neon for *.neon.tech hosts, else node-postgres), `pg`, `neon` or `pglite`. */
  DATABASE_DRIVER: z.enum(["auto", "pg", "neon", "pglite"]).default("auto"),
  /** Directory of the embedded database (and other local state). */
  DATA_DIR: z.string().default(".data"),
  /** Neon driver only: a plain-ws proxy host:port (e.g. websockify) instead of Neon's endpoint; tests use it. */
  NEON_WS_PROXY: optionalString(),
  /** Maximum connections of the node-postgres / Neon pool. */
  DATABASE_POOL_MAX: int(10, 1, 200),
  /**
   * Bound of every wait on a networked database (node-postgres or Neon), ms: one query, a new
   * connection or a free pooled one. Past it the request gets 503 STORAGE_ERROR and the
   * connection is discarded. The server cancels statements at 80 % of it and ends sessions
   * idle in a transaction after twice it (lib/db/pool-guard.ts `boundedPoolOptions`).
   */
  DB_QUERY_TIMEOUT_MS: int(5000, 100, 30_000),

  /** Prefix of API keys (`<prefix>_<random>`), docs/api-conventions.md. */
  KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, "lowercase letters and digits, 2-16 chars")
    .default("svc"),
  /** Prefix of task ids (`<prefix>-<base36>-<base36>`), docs/api-conventions.md. */
  TASK_PREFIX: z
    .string()
    .regex(/^[A-Z][A-Z0-9]{1,15}$/, "uppercase letters and digits, 2-16 chars")
    .default("TASK"),

  /** Largest request body accepted, bytes (413 above). Vercel itself caps bodies at 4.5 MB. */
  MAX_BODY_BYTES: int(1_048_576, 1024, 4_500_000),
  /** Largest body of the proof-upload operation (task-complete), bytes. */
  MAX_UPLOAD_BYTES: int(4_400_000, 1024, 4_500_000),

  /** Average road speed used to derive transport hours from round-trip km (docs/api-conventions.md). */
  TRANSPORT_SPEED_KMH: num(DEFAULT_TRANSPORT_SPEED_KMH, 1, 200),
  /** Great-circle distance x this factor = road distance, for gazetteer places without a provider. */
  ROAD_FACTOR: num(1.3, 1, 3),
  /** Distance-matrix provider for places outside the known-locations table: `none` or `osrm`. */
  DISTANCE_PROVIDER: z.enum(["none", "osrm"]).default("none"),
  /** Base URL of an OSRM server (its /table/v1/driving service). */
  OSRM_URL: optionalUrl(),
  /** Timeout of one distance-matrix request, ms; on failure the estimate falls back to the gazetteer. */
  DISTANCE_TIMEOUT_MS: int(2000, 100, 30_000),

  /**
   * Radius of a task's geofence, metres (POST /api/field-visit check-in; docs/staff-and-audit.md
   * "Geofence"): a check-in farther than this (plus the reported accuracy, capped) from the task's
   * geocoded place needs a reason and is flagged.
   */
  GEOFENCE_RADIUS_M: int(250, 10, 50_000),
  /** Most of the device's reported accuracy added to the geofence radius, metres. */
  GEOFENCE_ACCURACY_CAP_M: int(100, 0, 10_000),
  /**
   * Oldest `captured_at` a check-in or photo made offline may carry when it reaches the server,
   * hours (issue 44 item 5; docs/staff-and-audit.md "Offline"): older → 422 on captured_at.
   */
  OFFLINE_CAPTURE_MAX_AGE_H: int(12, 1, 168),
});

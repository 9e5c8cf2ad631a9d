/**
 * Response schemas of the discovery endpoints (for /openapi.json, the MCP `capabilities` tool and
 * tests), beside the descriptors that use them (see operations.ts here for why a folder apart).
 */
import { z } from "zod";
import { TASK_STATUSES } from "../../db/schema/enums.js";
import { recourseTermsSchema } from "../../tasks/state/recourse.js";

const dateTime = z.string().meta({ format: "date-time" });

export const platformStatusSchema = z
  .object({
    status: z.enum(["operational", "degraded", "partial_outage"]),
    timestamp: dateTime,
    latency_ms: z.number().int().meta({ description: "Database round trip, ms" }),
    services: z.object({
      api: z.string(),
      storage: z.enum(["operational", "down"]),
      payment_checker: z.object({
        status: z.enum(["healthy", "degraded", "stale", "never_run", "unavailable"]),
        last_run_at: dateTime.nullable(),
        minutes_ago: z.number().int().nullable(),
        pending_checked: z.number().int().nullable(),
      }),
      x402_relayer: z
        .object({
          status: z.enum(["healthy", "degraded", "unavailable"]),
          address: z.string(),
          networks: z.array(
            z.object({
              network: z.string(),
              balance_eth: z
                .string()
                .nullable()
                .meta({ description: "ETH for gas; null when the RPC did not answer." }),
              status: z.enum(["healthy", "degraded", "unavailable"]),
            }),
          ),
        })
        .optional()
        .meta({
          description:
            "Present when x402 settles with our relayer (X402_RELAYER_PRIVATE_KEY): its ETH per network; degraded below X402_RELAYER_MIN_BALANCE_ETH.",
        }),
    }),
    blockchain: z.object({ networks: z.array(z.string()), payment_currency: z.string() }),
    queue: z.object({
      pending_review: z.number().int(),
      pending_payment: z.number().int(),
      in_progress: z.number().int(),
      total_active: z.number().int(),
      avg_wait_minutes: z.number().int().nullable(),
    }),
    issues: z.array(z.string()).nullable(),
    suggested_action: z.string(),
  })
  .meta({ id: "PlatformStatus" });

export const capabilitiesSchema = z
  .object({
    platform: z.object({
      name: z.string(),
      version: z.string(),
      description: z.string(),
      operator: z.string(),
      base_location: z.object({ city: z.string(), province: z.string(), country: z.string() }),
      contact: z.string(),
      website: z.string(),
    }),
    services: z.array(z.record(z.string(), z.unknown())),
    service_zone: z.record(z.string(), z.unknown()).meta({ description: "GeoJSON Feature (Polygon)" }),
    known_locations: z.array(
      z.object({ name: z.string(), distance_km_one_way: z.number(), in_service_zone: z.boolean() }),
    ),
    operational_hours: z.record(z.string(), z.unknown()),
    avg_response_times: z.record(z.string(), z.number()),
    recourse: recourseTermsSchema,
    languages: z.array(z.string()),
    currencies: z.record(z.string(), z.unknown()),
    authentication: z.record(z.string(), z.unknown()),
    features: z.record(z.string(), z.unknown()),
    task_statuses: z
      .array(z.enum(TASK_STATUSES))
      .meta({ description: "Every task status, in lifecycle order (received first)." }),
    terminal_statuses: z
      .array(z.enum(TASK_STATUSES))
      .meta({ description: "The statuses after which a task never changes again." }),
    endpoints: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string() })),
    operations: z
      .object({
        roles: z.record(z.string(), z.array(z.string())).meta({
          description: "The role table (lib/permissions.ts): the permissions each staff role holds.",
        }),
        geofence_radius_m: z.number().meta({
          description: "Field check-in radius around a task's place, metres (GEOFENCE_RADIUS_M).",
        }),
        geofence_accuracy_cap_m: z.number().meta({
          description: "Most of a phone's reported accuracy added to the radius, metres.",
        }),
        offline_capture: z
          .object({
            max_age_h: z
              .number()
              .meta({ description: "OFFLINE_CAPTURE_MAX_AGE_H: the oldest captured_at accepted, hours." }),
            clock_skew_s: z
              .number()
              .meta({ description: "How far ahead of the server's clock a captured_at may be, seconds." }),
          })
          .meta({
            description:
              "Bounds of the captured_at of a check-in or photo made offline (POST /api/field-visit, /api/field-proof); also not before the assignment.",
          }),
        site_visit_rules: z
          .object({
            by_service: z.record(z.string(), z.enum(["required", "optional", "none"])),
            meanings: z.record(z.string(), z.string()),
          })
          .meta({
            description:
              "Whether each service's tasks need a site visit (a check-in) before completion, and what each rule means; each catalog entry and contract carries its own (`site_visit`).",
          }),
        at_risk_window_share: z.number().meta({
          description:
            "A paid or dispatched task with less than this share of its payment → execution-deadline window left is flagged task.at_risk.",
        }),
      })
      .meta({
        description: "How the operator's staff work: roles, the field check-in geofence, the deadline watch.",
      }),
    quick_start: z.array(z.string()),
    privacy: z
      .object({
        officer: z.object({ name: z.string(), email: z.string() }),
        policy_page: z.string(),
        collected: z.array(
          z.object({ table: z.string(), purpose: z.string(), personal_fields: z.array(z.string()) }),
        ),
        retention: z.record(z.string(), z.unknown()),
        rights: z.record(z.string(), z.string()),
      })
      .loose()
      .meta({
        description:
          "Law 25 transparency: person in charge of personal information, what is collected and why, retention, rights.",
      }),
    _links: z.record(z.string(), z.string()),
  })
  .loose()
  .meta({ id: "Capabilities" });

export const cronResultSchema = z.object({ job: z.string(), ok: z.boolean() }).loose();

/** Zod schemas of GET /api/estimate (query and response); they validate and feed /openapi.json. */

import { z } from "zod";
import { KM_RATE_TEXT } from "../catalog/facts.js";
import { PRICING, SITE_HOURS } from "../catalog/pricing.js";
import { DEFAULT_TRANSPORT_SPEED_KMH, HUB_NAME } from "../config/server.js";
import { SERVICE_TYPES } from "../db/schema/enums.js";
import { taskFields } from "../tasks/state/schemas.js";
import { queryNumber } from "../validation.js";

const HOURS_TEXT = `Hours on site, ${SITE_HOURS.min} to ${SITE_HOURS.max}.`;

/** The estimate inputs as typed values (MCP `get_estimate`); the query schema wraps them for strings. */
export const estimateFields = {
  hours: z
    .number()
    .min(SITE_HOURS.min)
    .max(SITE_HOURS.max)
    .meta({ description: HOURS_TEXT, examples: [2] }),
  location: z
    .string()
    .trim()
    .max(300)
    .optional()
    .meta({
      description: `Address or city in Quebec; omitted = the ${HUB_NAME} hub (0 km).`,
      examples: ["Laval"],
    }),
  urgency: z
    .enum(["standard", "urgent"])
    .default("standard")
    .meta({ description: `\`urgent\` multiplies the total by ${PRICING.urgency_multiplier}.` }),
  // The submission's own field schema, so an unknown id gets the answer POST /api/submit-task gives.
  service_type: taskFields.service_type.optional().meta({
    description:
      "Quote this service (GET /api/services): its base fee, and its minimum hours on site when `hours` is below them " +
      "(issue 46 item 3). Omitted: the common base fee and no minimum. An id outside the catalog " +
      `(${SERVICE_TYPES.join(", ")}) is refused as in POST /api/submit-task.`,
    examples: ["SVC-01"],
  }),
};

/** Query of GET /api/estimate (spec: hours 0.25 to 168, urgency standard|urgent, location optional). */
export const estimateQuerySchema = z.object({
  ...estimateFields,
  hours: queryNumber()
    .pipe(estimateFields.hours)
    .meta({ description: HOURS_TEXT, examples: [2] }),
});
export type EstimateQuery = z.output<typeof estimateQuerySchema>;

export const estimateBreakdownSchema = z
  .object({
    base_fee: z.number().meta({ description: "CAD" }),
    site_hours: z
      .number()
      .meta({ description: "Hours on site billed: `hours`, or the service's minimum when higher" }),
    site_cost: z.number().meta({ description: "CAD: site_hours × hourly rate" }),
    distance_km_one_way: z.number().meta({ description: `km from the ${HUB_NAME} hub` }),
    km_roundtrip: z.number().meta({ description: "km, 2 × one way" }),
    km_cost: z.number().meta({ description: `CAD: km_roundtrip × ${KM_RATE_TEXT}` }),
    transport_hours: z
      .number()
      .meta({ description: `km_roundtrip ÷ TRANSPORT_SPEED_KMH (default ${DEFAULT_TRANSPORT_SPEED_KMH})` }),
    transport_cost: z.number().meta({ description: "CAD: transport_hours × hourly rate" }),
    urgency_multiplier: z.number().meta({ description: `1 or ${PRICING.urgency_multiplier}` }),
    subtotal: z.number().meta({ description: "CAD before the urgency multiplier" }),
  })
  .meta({ id: "EstimateBreakdown" });

export const resolvedLocationSchema = z
  .object({
    query: z.string().nullable(),
    matched: z.string(),
    source: z.enum(["hub", "known_location", "gazetteer", "distance_matrix"]),
    in_service_zone: z.boolean(),
    coordinates: z.tuple([z.number(), z.number()]).nullable().meta({ description: "[longitude, latitude]" }),
  })
  .meta({ id: "ResolvedLocation" });

/** GST and QST of an amount (only when the operator is registered; docs/taxes.md). */
export const taxesSchema = z
  .object({
    gst_cad: z.number().meta({ description: "GST 5 % of the amount before taxes, CAD" }),
    qst_cad: z.number().meta({ description: "QST 9.975 % of the amount before taxes (not of GST), CAD" }),
  })
  .meta({
    id: "SalesTaxes",
    description:
      "Present only when the operator is registered for GST/QST (TAX_REGISTERED); rounded per invoice.",
  });

export const estimateResponseSchema = z
  .object({
    currency: z.literal("CAD"),
    total_cad: z.number().meta({ description: "CAD, exact to the cent, before taxes" }),
    taxes: taxesSchema.optional(),
    total_with_taxes_cad: z
      .number()
      .optional()
      .meta({ description: "Only when the operator is registered for GST/QST: total_cad plus the taxes." }),
    breakdown: estimateBreakdownSchema,
    service: z
      .object({
        id: z.enum(SERVICE_TYPES),
        name: z.string(),
        base_fee_cad: z.number().meta({ description: "The service's base fee, CAD (breakdown.base_fee)" }),
        minimum_hours: z.number().meta({ description: "Hours on site billed at least for this service" }),
        minimum_applied: z.boolean().meta({ description: "true when `hours` was below the minimum" }),
      })
      .optional()
      .meta({ id: "EstimateService", description: "Only with `service_type`: the terms quoted." }),
    location: resolvedLocationSchema,
    usd: z.object({
      rate_cad_usd: z.number().meta({ description: "USD per 1 CAD" }),
      estimated_usdc: z.number(),
      rate_source: z.string(),
      as_of: z.string(),
    }),
  })
  .meta({ id: "Estimate" });
export type EstimateResponse = z.output<typeof estimateResponseSchema>;

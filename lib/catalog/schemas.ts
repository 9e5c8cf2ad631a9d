/**
 * zod schemas of GET /api/services: the query (validated by the endpoint) and the response
 * (documentation only, for /openapi.json and tests). Rule source: docs/api-conventions.md
 * "GET /api/services" and "Service catalog entry".
 *
 * Decisions: `id` is any string of at most 20 characters here (trimmed, upper-cased, so
 * `svc-01` finds SVC-01); an id that is not in the catalog is the endpoint's 404 NOT_FOUND,
 * not a validation error. `contract` accepts exactly `true` or `false` (default `true`);
 * anything else is a validation error. Unknown query parameters are ignored (stripped).
 */

import { z } from "zod";
import { HUB_NAME } from "../config/server.js";
import { SITE_VISIT_RULES } from "../db/schema/enums.js";
import { recourseTermsSchema } from "../tasks/state/recourse.js";
import { SERVICE_TYPES } from "../tasks/state/schemas.js";
import { KM_RATE_TEXT } from "./facts.js";
import { PRICING, SITE_HOURS } from "./pricing.js";

/** Longest `id` query value accepted before the catalog lookup. */
export const SERVICE_ID_QUERY_MAX = 20;

/** Query of GET /api/services; output `{ id?: string, contract: boolean }`. */
export const servicesQuerySchema = z.object({
  id: z
    .string()
    .trim()
    .toUpperCase()
    .min(1, { error: "id must not be empty" })
    .max(SERVICE_ID_QUERY_MAX, { error: `id must be at most ${SERVICE_ID_QUERY_MAX} characters` })
    .optional()
    .meta({
      description: `Return only this service (one of ${SERVICE_TYPES.join(", ")}, case-insensitive). Unknown id: 404 NOT_FOUND.`,
      examples: ["SVC-01"],
    }),
  contract: z
    .enum(["true", "false"], { error: "contract must be true or false" })
    .default("true")
    .transform((v) => v === "true")
    .meta({
      description: "`false` omits each entry's `contract` (smaller response). Default `true`.",
      examples: ["false"],
    }),
});

/** Parsed GET /api/services query. */
export type ServicesQuery = z.infer<typeof servicesQuerySchema>;

const range = (unit: string) =>
  z.object({
    min: z.number().meta({ description: `Lower bound, ${unit}.` }),
    max: z.number().meta({ description: `Upper bound, ${unit}.` }),
  });

const jsonSchemaObject = z.record(z.string(), z.unknown());

/** `contract` of a catalog entry (response documentation). */
export const serviceContractSchema = z
  .object({
    inputs_schema: jsonSchemaObject.meta({
      description:
        "JSON Schema (draft 2020-12) of the task inputs of this service; send them to POST /api/submit-task with service_type.",
    }),
    outputs_schema: jsonSchemaObject.meta({
      description:
        "JSON Schema (draft 2020-12) of the deliverables of a completed task: proof_files_data, operator_notes, completed_at.",
    }),
    sla: z
      .object({
        review_hours: z
          .number()
          .meta({ description: "Review of a standard task, hours after submission (24)." }),
        review_hours_urgent: z.number().meta({ description: "Review of an urgent task, hours (12)." }),
        execution_hours: z
          .number()
          .meta({ description: "Execution of a standard task, hours after payment is confirmed (72)." }),
        execution_hours_urgent: z.number().meta({ description: "Execution of an urgent task, hours (24)." }),
        payment_window_hours: z
          .number()
          .meta({ description: "Time to pay an accepted or counter-offered task, hours (48)." }),
      })
      .meta({ description: "Service-level deadlines, hours; identical for all services." }),
    pricing: z
      .object({
        currency: z.literal("CAD").meta({ description: "Currency of every amount: Canadian dollars." }),
        base_fee: z.number().meta({
          description: `Fixed fee per task of this service, CAD (${PRICING.base_fee_cad} unless the service sets its own).`,
        }),
        minimum_hours: z.number().meta({
          description: `Hours on site billed at least for this service (${SITE_HOURS.min} unless the service sets its own); GET /api/estimate with service_type applies it.`,
        }),
        hourly_rate: z.number().meta({ description: "Per hour on site and in transport, CAD/h (100)." }),
        km_rate: z.number().meta({
          description: `Per round-trip kilometre from the ${HUB_NAME} hub, CAD/km (${KM_RATE_TEXT}).`,
        }),
        urgency_multiplier: z.number().meta({ description: "Multiplier of the total when urgent (1.25)." }),
        typical_estimate_range: range("CAD").meta({ description: "Typical total for this service, CAD." }),
        formula: z.string().meta({ description: "How an estimate is computed, in words." }),
      })
      .meta({ description: "Prices in CAD; payment is in USDC at the current CAD-USD rate." }),
    cancellation_policy: z
      .object({
        before_payment: z.string().meta({ description: "Terms before payment." }),
        after_payment_before_dispatch: z
          .string()
          .meta({ description: "Terms after payment, before dispatch." }),
        after_dispatch: z.string().meta({ description: "Terms once an operator is dispatched." }),
        contact: z.email().meta({ description: "E-mail to contact about a cancellation or refund." }),
      })
      .meta({ description: "Refund terms by stage of the task." }),
    site_visit: z
      .object({
        rule: z.enum(SITE_VISIT_RULES).meta({ description: "required, optional or none." }),
        why: z.string().meta({ description: "Why this rule fits the service." }),
        meaning: z.string().meta({ description: "What the rule means for completion and the evidence." }),
      })
      .meta({
        description:
          "Whether a task of this service needs a site visit (the assignee's check-in) before completion; the receipt's visit_rule says which rule applied.",
      }),
    recourse: recourseTermsSchema,
  })
  .meta({ description: "Machine-readable contract of the service." });

/** One catalog entry (response documentation). */
export const serviceEntrySchema = z
  .object({
    id: z.enum(SERVICE_TYPES).meta({ description: "Service id, the `service_type` of a task." }),
    name: z.string().meta({ description: "Service name." }),
    description: z
      .string()
      .meta({ description: "What the operator does and what the requester must provide." }),
    deliverables: z.array(z.string()).meta({ description: "What the requester receives." }),
    typical_duration_hours: range("hours").meta({ description: "Typical time on site, hours." }),
    required_inputs: z.array(z.string()).meta({ description: "Information the task needs, in words." }),
    output_formats: z.array(z.string()).meta({ description: "Forms the deliverables can take." }),
    site_visit: z.enum(SITE_VISIT_RULES).meta({
      description:
        "Site-visit rule: `required` (completion needs the assignee's check-in, or a flagged reason), `optional` or `none` (remote work). Details in contract.site_visit.",
    }),
    contract: serviceContractSchema.optional().meta({ description: "Absent when `contract=false`." }),
  })
  .meta({ description: "A service of the catalog." });

/** `_links` of the catalog response: absolute URLs. */
export const catalogLinksSchema = z
  .object({
    submit_task: z.url().meta({ description: "POST here to submit a task (POST /api/submit-task)." }),
    estimate: z.url().meta({ description: "GET a cost estimate in CAD (GET /api/estimate)." }),
    documentation: z.url().meta({ description: "OpenAPI 3.1 description of the whole API (/openapi.json)." }),
  })
  .meta({ description: "Related operations, as absolute URLs." });

/** Body of a 200 from GET /api/services (also with `id`: a one-element list). */
export const servicesListResponseSchema = z
  .object({
    services: z.array(serviceEntrySchema).meta({ description: "Catalog entries, in id order." }),
    count: z.number().int().meta({ description: "Number of entries in `services`." }),
    _links: catalogLinksSchema,
  })
  .meta({ description: "The service catalog." });

/** Parsed catalog response. */
export type ServicesListResponse = z.infer<typeof servicesListResponseSchema>;

/** `_links` of the catalog response for a public origin without trailing slash (see publicBaseUrl). */
export function catalogLinks(baseUrl: string): z.infer<typeof catalogLinksSchema> {
  return {
    submit_task: `${baseUrl}/api/submit-task`,
    estimate: `${baseUrl}/api/estimate`,
    documentation: `${baseUrl}/openapi.json`,
  };
}

/**
 * The service catalog (GET /api/services, MCP `list_services`, capabilities manifest).
 *
 * Rule source: docs/api-conventions.md "Service catalog entry" (five services, their hours,
 * estimate ranges and after-dispatch cancellation terms), "Limits" (SLA hours) and
 * "GET /api/estimate" (pricing constants). The SLA hours live with the deadlines
 * (lib/tasks/state/sla.ts). Each service's `contract.inputs_schema` is
 * generated from the zod field schemas of lib/tasks/state/schemas.ts, so the catalog and the
 * submission validator cannot drift apart. Each service's site-visit rule (`site_visit`, issue 44
 * item 1) is data of the state layer (lib/tasks/state/visit-rules.ts, which completion enforces),
 * published here in the entry and its contract.
 */

import { z } from "zod";
import { HUB_NAME } from "../config/server.js";
import { getConfig } from "../config.js";
import type { SiteVisitRule } from "../db/schema/enums.js";
import { type RecourseTerms, recourseTerms } from "../tasks/state/recourse.js";
import {
  BUDGET_LIMIT_SERVICES,
  type ServiceType,
  SVC01_DEFAULT_PREFERRED_OUTPUT,
  SVC01_PREFERRED_OUTPUTS,
  taskFields,
} from "../tasks/state/schemas.js";
import { SLA } from "../tasks/state/sla.js";
import { VISIT_RULE_MEANINGS, VISIT_RULES } from "../tasks/state/visit-rules.js";
import { pricingFormula } from "./facts.js";
import { PRICING, SITE_HOURS } from "./pricing.js";

export { PRICING } from "./pricing.js";

/** A `{ min, max }` range (hours or CAD, as the field name says). */
export interface Range {
  min: number;
  max: number;
}

/** The `contract` of a catalog entry (spec "Service catalog entry"). */
export interface ServiceContract {
  /** JSON Schema (draft 2020-12) of the task inputs of this service. */
  inputs_schema: Readonly<Record<string, unknown>>;
  /** JSON Schema (draft 2020-12) of the deliverables of a completed task. */
  outputs_schema: Readonly<Record<string, unknown>>;
  /** Deadlines, hours. */
  sla: typeof SLA;
  /** Disputes and SLA credits (issue 27). */
  recourse: RecourseTerms;
  /** Prices in CAD. */
  pricing: {
    currency: "CAD";
    base_fee: number;
    /** Hours on site billed at least (issue 46 item 3). */
    minimum_hours: number;
    hourly_rate: number;
    km_rate: number;
    urgency_multiplier: number;
    typical_estimate_range: Range;
    formula: string;
  };
  /** Whether a task needs a site visit before completion, why, and what that means (issue 44 item 1). */
  site_visit: { rule: SiteVisitRule; why: string; meaning: string };
  /** Refund terms by stage, and who to contact. */
  cancellation_policy: {
    before_payment: string;
    after_payment_before_dispatch: string;
    after_dispatch: string;
    contact: string;
  };
}

/** One service as GET /api/services returns it; `contract` is absent when `contract=false`. */
export interface CatalogEntry {
  id: ServiceType;
  name: string;
  description: string;
  deliverables: string[];
  /** Typical time on site, hours. */
  typical_duration_hours: Range;
  required_inputs: string[];
  output_formats: string[];
  /** Site-visit rule: `required`, `optional` or `none` (lib/tasks/state/visit-rules.ts). */
  site_visit: SiteVisitRule;
  contract?: ServiceContract;
}

interface ServiceDefinition {
  id: ServiceType;
  name: string;
  description: string;
  deliverables: readonly string[];
  typical_duration_hours: Range;
  required_inputs: readonly string[];
  output_formats: readonly string[];
  /** Typical estimate, CAD (spec table). */
  typical_estimate_range: Range;
  /** Meaning of `budget_limit` for this service, or undefined when the service does not accept it. */
  budget_limit_meaning?: string;
  /** Cancellation terms after dispatch (spec table). */
  after_dispatch: string;
  /** What the proof files of a completed task contain. */
  proof_files_description: string;
  /** Own base fee, CAD; omitted: `PRICING.base_fee_cad` (issue 46 item 3). */
  base_fee_cad?: number;
  /** Own minimum billed hours on site; omitted: `SITE_HOURS.min` (issue 46 item 3). */
  minimum_hours?: number;
}

const COMMON_INPUTS = [
  "location_address: full street address in Quebec, inside the service zone",
  "task_description: what to do and what counts as done (max 2000 characters)",
  "requester_contact: e-mail that receives confirmation, payment instructions and deliverables",
] as const;

const DEFINITIONS: readonly ServiceDefinition[] = [
  {
    id: "SVC-01",
    name: "Visual Audits & Site Reporting",
    description:
      "An operator travels to an address and documents what is there: building exteriors and interiors open to the public, storefronts, signage, construction progress, parking availability, a delivered item or the condition of a rental. They follow your checklist, take dated and geotagged photos and write a factual report of what they observed. Give the exact address, the list of things to check or photograph and any access constraints; state whether you want photos only, a PDF report or a structured JSON report.",
    deliverables: [
      "Dated photos of every checklist item",
      "Written observation report (PDF or JSON, on request)",
      "Operator notes on anything unexpected on site",
    ],
    typical_duration_hours: { min: 1, max: 2 },
    required_inputs: [...COMMON_INPUTS, "optional preferred_output: photos (default), PDF or JSON"],
    output_formats: ["photos", "PDF", "JSON"],
    typical_estimate_range: { min: 100, max: 250 },
    budget_limit_meaning:
      "Maximum acceptable cost of the audit in CAD (number >= 0). If the estimate exceeds it, the task is counter-offered.",
    after_dispatch: "Partial refund, negotiable with the operator according to the work already done.",
    proof_files_description:
      "Photos and the report of the audit. Each item has filename, type (MIME type, e.g. image/jpeg, application/pdf, application/json) and content (base64).",
  },
  {
    id: "SVC-02",
    name: "Marketplace Logistics (inspect, verify, purchase, pack, ship items from online listings)",
    description:
      "An operator handles an item listed on an online marketplace (Marketplace, Kijiji, LesPAC, etc.) on your behalf: meets the seller, inspects and tests the item against the listing, records serial numbers and defects, and, if it matches your criteria, pays the seller, packs the item and ships it or brings it to the hub. Give the listing URL and seller contact in the description, the pickup address, your acceptance criteria and the maximum total you are willing to spend (item plus service) as budget_limit; give the destination address in special_instructions.",
    deliverables: [
      "Inspection photos (and video on request) of the item against the listing",
      "Go / no-go verdict with defects found",
      "Purchase receipt and shipping tracking number when bought and shipped",
    ],
    typical_duration_hours: { min: 2, max: 4 },
    required_inputs: [
      ...COMMON_INPUTS,
      "listing URL, seller contact and acceptance criteria (in task_description)",
      "optional budget_limit: max total in CAD including the item and the service",
    ],
    output_formats: ["photos", "video", "PDF"],
    typical_estimate_range: { min: 200, max: 500 },
    budget_limit_meaning:
      "Maximum total in CAD (number >= 0), including the price of the item and the service. If the estimate exceeds it, the task is counter-offered.",
    after_dispatch: "Refund minus the costs already incurred (travel, item purchase, shipping).",
    proof_files_description:
      "Inspection photos or video of the item, the purchase receipt and the shipping label. Each item has filename, type (MIME type) and content (base64).",
  },
  {
    id: "SVC-03",
    name: "Auction Proxy",
    description:
      "An operator attends an in-person auction (estate sale, liquidation, public auction) for you: inspects the lots you name during the preview, registers as a bidder, bids up to your per-lot ceilings and collects the lots won. Give the auction address and date, the lot numbers or descriptions, the maximum bid per lot and what to do with won items. budget_limit caps the service fee only; the items' hammer prices and buyer's premium are paid separately.",
    deliverables: [
      "Preview photos of each targeted lot",
      "Bid log: lot, your ceiling, final price, won or lost",
      "Invoice of the auction house for the lots won",
    ],
    typical_duration_hours: { min: 4, max: 8 },
    required_inputs: [
      ...COMMON_INPUTS,
      "auction date, lot numbers and maximum bid per lot (in task_description)",
      "optional budget_limit: max for the service in CAD, item cost excluded",
    ],
    output_formats: ["photos", "PDF", "CSV"],
    typical_estimate_range: { min: 550, max: 1000 },
    budget_limit_meaning:
      "Maximum for the service in CAD (number >= 0), cost of the items excluded. If the estimate exceeds it, the task is counter-offered.",
    after_dispatch:
      "Non-refundable if the auction has already been attended; partial refund for the items not bid on.",
    proof_files_description:
      "Preview photos of the lots, the bid log and the auction invoice. Each item has filename, type (MIME type) and content (base64).",
  },
  {
    id: "SVC-04",
    name: "Technical Field Support (IT Level 1)",
    description:
      "An operator performs level-1 IT work on site: power-cycling and re-cabling equipment, checking indicator lights, swapping a router, printer toner or a pre-configured device, reading serial numbers and screens, running a speed test or a script you provide, and staying on the phone with your remote technician. Give the address, the equipment involved, the exact steps or the symptom to diagnose, who lets the operator in and how to reach your remote support. No administrative credentials are kept after the visit.",
    deliverables: [
      "Photos of the equipment before and after the intervention",
      "Step-by-step report of what was done and observed",
      "Readings requested (serial numbers, speed test, error codes)",
    ],
    typical_duration_hours: { min: 1, max: 2 },
    required_inputs: [
      ...COMMON_INPUTS,
      "equipment, steps or symptom and on-site contact (in task_description / special_instructions)",
    ],
    output_formats: ["photos", "PDF", "JSON"],
    typical_estimate_range: { min: 150, max: 300 },
    after_dispatch: "Partial refund, negotiable with the operator according to the work already done.",
    proof_files_description:
      "Before/after photos and the intervention report. Each item has filename, type (MIME type) and content (base64).",
  },
  {
    id: "SVC-05",
    name: "Field Tasks & Document Courier",
    description:
      "An operator runs a short errand: picks up and delivers documents or small parcels within the service zone, obtains a signature, drops off or collects keys, posts a notice, or checks that a place is open. Give the pickup address as location_address, the delivery address and recipient in task_description, any time window and how the recipient confirms receipt. Proof of delivery is a photo and, when requested, the recipient's name and signature.",
    deliverables: [
      "Proof of pickup and delivery (photo, time, recipient name)",
      "Signature of the recipient when requested",
    ],
    typical_duration_hours: { min: 0.5, max: 2 },
    required_inputs: [...COMMON_INPUTS, "delivery address, recipient and time window (in task_description)"],
    output_formats: ["photos", "PDF"],
    typical_estimate_range: { min: 75, max: 200 },
    after_dispatch: "Non-refundable if the delivery has already been completed.",
    proof_files_description:
      "Proof-of-delivery photos and signature. Each item has filename, type (MIME type) and content (base64).",
  },
];

const BY_ID = new Map<string, ServiceDefinition>(DEFINITIONS.map((d) => [d.id, d]));

/**
 * The zod schema of the task inputs of one service (its `contract.inputs_schema`): the
 * submission fields the spec lists for that service. Not strict about other fields here:
 * the common envelope (service_type, callback_url, lang, max_cost_cad, and preferred_output
 * outside SVC-01) is described by the TaskSubmission schema.
 */
export function serviceInputsZodSchema(id: ServiceType) {
  const def = BY_ID.get(id);
  if (!def) throw new Error(`unknown service ${id}`);
  const shape: Record<string, z.ZodType> = {
    location_address: taskFields.location_address,
    task_description: taskFields.task_description,
    requester_contact: taskFields.requester_contact,
    urgency: taskFields.urgency,
    special_instructions: taskFields.special_instructions.optional(),
  };
  if ((BUDGET_LIMIT_SERVICES as readonly string[]).includes(id) && def.budget_limit_meaning) {
    shape.budget_limit = taskFields.budget_limit.optional().meta({ description: def.budget_limit_meaning });
  }
  if (id === "SVC-01") {
    shape.preferred_output = z
      .enum(SVC01_PREFERRED_OUTPUTS)
      .default(SVC01_DEFAULT_PREFERRED_OUTPUT)
      .meta({
        description: "Form of the audit deliverables: photos (default), PDF report or JSON report.",
        examples: ["PDF"],
      });
  }
  return z.object(shape).meta({
    title: `${id} task inputs`,
    description: `Task inputs of ${id} (${def.name}). Send them in the body of POST /api/submit-task with service_type "${id}"; fields common to every service (service_type, callback_url, lang, max_cost_cad${id === "SVC-01" ? "" : ", preferred_output"}) are described by the TaskSubmission schema of /openapi.json. Strings are trimmed; lengths count Unicode code points.`,
  });
}

/** The zod schema of a completed task's deliverables (its `contract.outputs_schema`). */
export function serviceOutputsZodSchema(id: ServiceType) {
  const def = BY_ID.get(id);
  if (!def) throw new Error(`unknown service ${id}`);
  const proofFile = z
    .object({
      filename: z.string().meta({ description: "File name, with extension.", examples: ["front.jpg"] }),
      type: z.string().meta({ description: "MIME type of the file.", examples: ["image/jpeg"] }),
      content: z.base64().meta({ description: "File content, base64-encoded." }),
    })
    .meta({ description: "One proof file." });
  return z
    .object({
      proof_files_data: z.array(proofFile).meta({ description: def.proof_files_description }),
      operator_notes: z.string().meta({ description: "Free-text notes of the operator (may be empty)." }),
      completed_at: z.iso.datetime({ offset: true }).meta({
        description: "When the operator completed the task (ISO 8601 date-time).",
        examples: ["2025-06-01T15:30:00Z"],
      }),
    })
    .meta({
      title: `${id} task outputs`,
      description: `Deliverables of a completed ${id} task, in the status response (GET /api/submit-task) and e-mailed to requester_contact.`,
    });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const schemaCache = new Map<
  ServiceType,
  { inputs: Readonly<Record<string, unknown>>; outputs: Readonly<Record<string, unknown>> }
>();

/** JSON Schemas of a service, generated on first use and memoized (frozen; do not mutate). */
function jsonSchemas(id: ServiceType) {
  let cached = schemaCache.get(id);
  if (!cached) {
    const opts = { target: "draft-2020-12", io: "input" } as const;
    cached = {
      inputs: deepFreeze(z.toJSONSchema(serviceInputsZodSchema(id), opts) as Record<string, unknown>),
      outputs: deepFreeze(z.toJSONSchema(serviceOutputsZodSchema(id), opts) as Record<string, unknown>),
    };
    schemaCache.set(id, cached);
  }
  return cached;
}

/** The price terms of a service: `{ base_fee, minimum_hours }` (CAD, hours). */
function pricingTerms(def: ServiceDefinition): { base_fee: number; minimum_hours: number } {
  return {
    base_fee: def.base_fee_cad ?? PRICING.base_fee_cad,
    minimum_hours: def.minimum_hours ?? SITE_HOURS.min,
  };
}

function contractOf(def: ServiceDefinition): ServiceContract {
  const schemas = jsonSchemas(def.id);
  return {
    inputs_schema: schemas.inputs,
    outputs_schema: schemas.outputs,
    sla: SLA,
    pricing: {
      currency: "CAD",
      ...pricingTerms(def),
      hourly_rate: PRICING.hourly_rate_cad,
      km_rate: PRICING.km_rate_cad,
      urgency_multiplier: PRICING.urgency_multiplier,
      typical_estimate_range: { ...def.typical_estimate_range },
      formula: `${pricingFormula(true)}; km from the ${HUB_NAME} hub; exact cents. Get a quote with GET /api/estimate.`,
    },
    cancellation_policy: {
      before_payment: `Free: simply do not pay within the ${SLA.payment_window_hours} h payment window (the task then expires), or cancel it with DELETE /api/submit-task?task_id=...`,
      after_payment_before_dispatch: "Full USDC refund, to the originating wallet, within 24 business hours.",
      after_dispatch: def.after_dispatch,
      contact: getConfig().CONTACT_EMAIL,
    },
    site_visit: { ...VISIT_RULES[def.id], meaning: VISIT_RULE_MEANINGS[VISIT_RULES[def.id].rule] },
    recourse: recourseTerms(),
  };
}

function entryOf(def: ServiceDefinition, includeContract: boolean): CatalogEntry {
  const entry: CatalogEntry = {
    id: def.id,
    name: def.name,
    description: def.description,
    deliverables: [...def.deliverables],
    typical_duration_hours: { ...def.typical_duration_hours },
    required_inputs: [...def.required_inputs],
    output_formats: [...def.output_formats],
    site_visit: VISIT_RULES[def.id].rule,
  };
  if (includeContract) entry.contract = contractOf(def);
  return entry;
}

/** Options of {@link listServices} and {@link getService}. */
export interface CatalogOptions {
  /** Include `contract` (GET /api/services `contract=true`, the default). */
  includeContract: boolean;
}

/**
 * The five catalog entries in id order (spec "Service catalog entry"). Fresh objects on each
 * call except the memoized, frozen JSON Schemas inside `contract`.
 */
export function listServices(options: CatalogOptions = { includeContract: true }): CatalogEntry[] {
  return DEFINITIONS.map((d) => entryOf(d, options.includeContract));
}

/** One catalog entry by id (exact, e.g. `SVC-01`), or undefined for an unknown id (endpoint: 404). */
export function getService(
  id: string,
  options: CatalogOptions = { includeContract: true },
): CatalogEntry | undefined {
  const def = BY_ID.get(id);
  return def ? entryOf(def, options.includeContract) : undefined;
}

/** Typical estimate range of a service in CAD (spec table), for the pricing engine and manifest. */
export function typicalEstimateRange(id: ServiceType): Range {
  const def = BY_ID.get(id);
  if (!def) throw new Error(`unknown service ${id}`);
  return { ...def.typical_estimate_range };
}

/** The price terms an estimate of one service uses (GET /api/estimate `service_type`, submission). */
export interface ServicePricing {
  id: ServiceType;
  name: string;
  /** Fixed fee per task, CAD. */
  base_fee_cad: number;
  /** Hours on site billed at least. */
  minimum_hours: number;
}

/**
 * The base fee and minimum billed hours of a service (issue 46 item 3): its catalog entry's own, or
 * `PRICING.base_fee_cad` and `SITE_HOURS.min`. The same values as its `contract.pricing`.
 * @throws Error for an id outside the catalog (callers validate `service_type` first).
 */
export function servicePricing(id: ServiceType): ServicePricing {
  const def = BY_ID.get(id);
  if (!def) throw new Error(`unknown service ${id}`);
  const terms = pricingTerms(def);
  return { id: def.id, name: def.name, base_fee_cad: terms.base_fee, minimum_hours: terms.minimum_hours };
}

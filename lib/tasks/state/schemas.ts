/**
 * The task submission body (POST /api/submit-task, MCP `submit_task`): one zod schema,
 * the single source of the rules, the OpenAPI `TaskSubmission` component and the
 * per-service `contract.inputs_schema` of the catalog (lib/catalog/services.ts).
 *
 * Rule sources: docs/api-conventions.md "Task submission", "Service catalog entry" and "Limits".
 *
 * Decisions (documented here and in /openapi.json through the field descriptions):
 * - Unknown fields are REJECTED (`z.strictObject`, i.e. `.strict()`): an `unrecognized_keys`
 *   issue whose `keys` name the fields and whose message suggests the closest known field,
 *   so a typo such as `budjet_limit` fails loudly instead of being silently dropped.
 * - Strings are trimmed before every check; required strings must be non-empty after trimming.
 * - String lengths are counted in Unicode code points (what JSON Schema's `maxLength` means),
 *   not in UTF-16 code units (what `String.length` and zod's `.max()` count): an emoji counts 1,
 *   a letter followed by a combining accent counts 2 (no grapheme segmentation).
 * - Every over-length string yields a zod issue `code: "too_big"`, `origin: "string"`,
 *   `params: { code: "FIELD_TOO_LONG", max_length, length }`. The HTTP layer maps an issue with
 *   `params.code === "FIELD_TOO_LONG"` (see {@link isFieldTooLongIssue}) to the spec's
 *   `FIELD_TOO_LONG` error (422); every other issue is `VALIDATION_ERROR` (422).
 * - Per-service rules of the catalog are enforced here too: `budget_limit` is accepted only for
 *   SVC-01, SVC-02, SVC-03 (the SVC-04/SVC-05 contracts do not list it); for SVC-01
 *   `preferred_output` is one of photos, PDF, JSON and defaults to `photos`.
 */
import { z } from "zod";
import { SERVICE_TYPES, type ServiceType } from "../../db/schema/enums.js";
import { plainText } from "../../validation.js";

/** Allowed `service_type` values: the one list of lib/db/schema/enums.ts (spec "Service catalog entry"). */
export { SERVICE_TYPES, type ServiceType } from "../../db/schema/enums.js";

/** `urgency` values: `standard` (72 h execution) or `urgent` (24 h, x1.25). Spec "Task submission". */
export const URGENCIES = ["standard", "urgent"] as const;
/** One of {@link URGENCIES}. */
export type Urgency = (typeof URGENCIES)[number];

/** `preferred_output` values accepted by the submission body (spec "Task submission"). */
export const PREFERRED_OUTPUTS = ["photos", "PDF", "JSON", "CSV", "video"] as const;
/** One of {@link PREFERRED_OUTPUTS}. */
export type PreferredOutput = (typeof PREFERRED_OUTPUTS)[number];

/** `preferred_output` values SVC-01 accepts, default `photos` (spec "Service catalog entry"). */
export const SVC01_PREFERRED_OUTPUTS = ["photos", "PDF", "JSON"] as const;
/** Default `preferred_output` of SVC-01 when the body omits it. */
export const SVC01_DEFAULT_PREFERRED_OUTPUT = "photos" as const;

/** Languages of client-facing e-mails, default `fr` (spec "Task submission"). */
export const LANGS = ["fr", "en"] as const;
/** One of {@link LANGS}. */
export type Lang = (typeof LANGS)[number];

/** Services whose contract accepts `budget_limit` (spec "Service catalog entry"). */
export const BUDGET_LIMIT_SERVICES = ["SVC-01", "SVC-02", "SVC-03"] as const satisfies readonly ServiceType[];

/**
 * Maximum lengths of the submission's strings, in Unicode code points (spec "Limits").
 */
export const LIMITS = {
  location_address: 300,
  task_description: 2000,
  requester_contact: 254,
  special_instructions: 500,
  preferred_output: 100,
  callback_url: 2048,
} as const;

/** Lower bounds of the submission's CAD amounts (spec "Task submission" and "Limits"). */
export const AMOUNT_MINIMUMS = {
  /** `budget_limit` >= 0 CAD. */
  budget_limit: 0,
  /** `max_cost_cad` >= 0.01 CAD. */
  max_cost_cad: 0.01,
} as const;

/**
 * Upper bound of the submission's CAD amounts, as of every other CAD amount of the API
 * (prices, refunds, pre-authorization): well inside the `numeric(12,2)` columns, so a larger
 * value is a 422 VALIDATION_ERROR rather than a failed insert.
 */
export const AMOUNT_MAXIMUM_CAD = 1_000_000;

/** Largest page of a key's own task list (MCP `tasks/list` and `list_my_tasks`, lib/tasks/caller-tasks.ts). */
export const MAX_TASK_PAGE = 100;

/** Value of `params.code` on every over-length issue; the HTTP error code it maps to. */
export const FIELD_TOO_LONG = "FIELD_TOO_LONG" as const;

/** Number of Unicode code points of `s` (lone surrogates count 1 each). */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * True when a zod issue is an over-length string of this module (maps to HTTP 422
 * `FIELD_TOO_LONG`, spec "Errors").
 */
export function isFieldTooLongIssue(issue: z.core.$ZodIssue): boolean {
  return (
    issue.code === "too_big" &&
    issue.origin === "string" &&
    // zod keeps `params` of issues pushed by a check, but types it only on `custom` issues.
    (issue as { params?: { code?: unknown } }).params?.code === FIELD_TOO_LONG
  );
}

/**
 * A trimmed string of at most `max` code points, without hidden control characters
 * (lib/validation.ts `plainText`); `required` also forbids empty.
 */
function text(field: string, max: number, required: boolean) {
  let s = z.string().trim();
  if (required) s = s.min(1, { error: `${field} must not be empty` });
  return plainText(s)
    .check((ctx) => {
      // Fast path: code points <= UTF-16 code units.
      if (ctx.value.length <= max) return;
      const length = codePointLength(ctx.value);
      if (length <= max) return;
      ctx.issues.push({
        code: "too_big",
        origin: "string",
        maximum: max,
        inclusive: true,
        input: ctx.value,
        message: `${field} exceeds ${max} characters (got ${length})`,
        params: { code: FIELD_TOO_LONG, max_length: max, length },
      });
    })
    .meta({ maxLength: max });
}

/**
 * The field schemas of the submission body, one per field, with their API documentation.
 * The catalog reuses them to build each service's `contract.inputs_schema`.
 */
export const taskFields = {
  service_type: z
    .enum(SERVICE_TYPES, { error: `service_type must be one of ${SERVICE_TYPES.join(", ")}` })
    .meta({
      description:
        "Catalog id of the service to perform (GET /api/services): SVC-01 visual audit, SVC-02 marketplace logistics, SVC-03 auction proxy, SVC-04 IT level-1 field support, SVC-05 field task / document courier.",
      examples: ["SVC-01"],
    }),
  location_address: text("location_address", LIMITS.location_address, true).meta({
    description:
      "Full street address where the operator must go: civic number, street, city, province, postal code. Must be in Quebec, inside the service zone (Greater Montreal, Laurentians, Lanaudiere, up to Mont-Tremblant). At most 300 characters.",
    examples: ["1234 Rue Saint-Denis, Montreal, QC H2X 3J6"],
  }),
  task_description: text("task_description", LIMITS.task_description, true).meta({
    description:
      "What the operator must do, in plain language (French or English): the goal, what to check or capture, who to meet, what counts as done. At most 2000 characters (over: 422 FIELD_TOO_LONG).",
    examples: [
      "Photograph the exterior of the building from all four sides and the roof line, check the front door lock and report any visible water damage.",
    ],
  }),
  requester_contact: text("requester_contact", LIMITS.requester_contact, true)
    .check(z.email({ error: "requester_contact must be a valid e-mail address" }))
    .meta({
      description:
        "E-mail address of the requester (at most 254 characters). It receives the confirmation, the payment instructions and the deliverables.",
      examples: ["ops-agent@example.com"],
    }),
  urgency: z
    .enum(URGENCIES)
    .default("standard")
    .meta({
      description:
        "`standard`: review within 24 h, execution within 72 h after payment. `urgent`: review within 12 h, execution within 24 h after payment, price multiplied by 1.25 (+25 %). Default `standard`.",
      examples: ["standard"],
    }),
  budget_limit: z
    .number({ error: "budget_limit must be a number (CAD)" })
    .min(AMOUNT_MINIMUMS.budget_limit, { error: "budget_limit must be >= 0 (CAD)" })
    .max(AMOUNT_MAXIMUM_CAD, { error: `budget_limit must be <= ${AMOUNT_MAXIMUM_CAD} (CAD)` })
    .meta({
      description:
        "Maximum budget in CAD (number >= 0). If the operator's estimate exceeds it, the task is counter-offered instead of accepted. Accepted for SVC-01 (max acceptable cost), SVC-02 (max total including the item and the service) and SVC-03 (max for the service, item cost excluded); rejected for SVC-04 and SVC-05 (use max_cost_cad there).",
      examples: [250],
    }),
  max_cost_cad: z
    .number({ error: "max_cost_cad must be a number (CAD)" })
    .min(AMOUNT_MINIMUMS.max_cost_cad, { error: "max_cost_cad must be >= 0.01 (CAD)" })
    .max(AMOUNT_MAXIMUM_CAD, { error: `max_cost_cad must be <= ${AMOUNT_MAXIMUM_CAD} (CAD)` })
    .meta({
      description:
        "Hard budget in CAD (number >= 0.01): a task whose cost exceeds it is rejected automatically instead of being counter-offered. Unlike budget_limit it applies to every service.",
      examples: [300],
    }),
  special_instructions: text("special_instructions", LIMITS.special_instructions, false).meta({
    description:
      "Practical details for the operator: access codes, parking, contact on site, time window. At most 500 characters (over: 422 FIELD_TOO_LONG).",
    examples: ["Ring apartment 4B; the superintendent (Marc) has the key. Available after 14:00."],
  }),
  preferred_output: z
    .enum(PREFERRED_OUTPUTS, {
      error: `preferred_output must be one of ${PREFERRED_OUTPUTS.join(", ")}`,
    })
    .meta({
      description:
        "Preferred form of the deliverables: photos, PDF (report), JSON (structured report), CSV or video. Case-sensitive. SVC-01 accepts only photos, PDF or JSON and defaults to photos.",
      examples: ["photos"],
    }),
  callback_url: text("callback_url", LIMITS.callback_url, false)
    .check(z.url({ protocol: /^https?$/, error: "callback_url must be an absolute http(s) URL" }))
    .meta({
      description:
        "URL that receives a POST (event task.completed) when the task completes; any 2xx counts as received. Must be HTTPS and must not resolve to a private address. At most 2048 characters.",
      examples: ["https://agent.example.com/hooks/task-completed"],
      format: "uri",
    }),
  lang: z
    .enum(LANGS)
    .default("fr")
    .meta({
      description: "Language of the client-facing e-mails: `fr` (default) or `en`.",
      examples: ["en"],
    }),
} as const;

/** Levenshtein distance, for "did you mean" hints on unknown fields. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * Message of an `unrecognized_keys` issue: names each unknown field and, when one is close,
 * the known field it was probably meant to be. `known` is the list of accepted fields.
 */
export function unknownFieldsMessage(keys: readonly string[], known: readonly string[]): string {
  const parts = keys.map((key) => {
    let best: string | undefined;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (const k of known) {
      const d = editDistance(key.toLowerCase(), k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    const hint = best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 4));
    return hint ? `"${key}" (did you mean "${best}"?)` : `"${key}"`;
  });
  return `Unknown field${keys.length > 1 ? "s" : ""} ${parts.join(", ")}; accepted fields: ${known.join(", ")}`;
}

/**
 * Builds a strict object whose `unrecognized_keys` message names the unknown fields
 * (with a "did you mean" hint). Used by the submission schema and the per-service schemas.
 */
export function strictBody<T extends z.core.$ZodLooseShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? unknownFieldsMessage(issue.keys, known) : undefined,
  });
}

const submissionShape = {
  service_type: taskFields.service_type,
  location_address: taskFields.location_address,
  task_description: taskFields.task_description,
  requester_contact: taskFields.requester_contact,
  urgency: taskFields.urgency,
  budget_limit: taskFields.budget_limit.optional(),
  max_cost_cad: taskFields.max_cost_cad.optional(),
  special_instructions: taskFields.special_instructions.optional(),
  preferred_output: taskFields.preferred_output.optional(),
  callback_url: taskFields.callback_url.optional(),
  lang: taskFields.lang,
};

const isServiceTypeValue = (v: unknown): v is ServiceType =>
  typeof v === "string" && (SERVICE_TYPES as readonly string[]).includes(v);

/**
 * THE schema of the task submission body (POST /api/submit-task, MCP `submit_task`).
 * Spec "Task submission" plus the per-service rules of "Service catalog entry"; parse with
 * `safeParse` and map issues as described in this module's header. Output has the defaults
 * applied (`urgency` standard, `lang` fr, SVC-01 `preferred_output` photos).
 */
export const taskSubmissionSchema = strictBody(submissionShape)
  .superRefine((body, ctx) => {
    // Refinements may run on a partly invalid body: only act on a valid service_type.
    if (!isServiceTypeValue(body.service_type)) return;
    if (
      body.budget_limit !== undefined &&
      !(BUDGET_LIMIT_SERVICES as readonly string[]).includes(body.service_type)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["budget_limit"],
        message: `budget_limit is not accepted for ${body.service_type} (only SVC-01, SVC-02, SVC-03); use max_cost_cad to cap the cost`,
        params: { code: "FIELD_NOT_ACCEPTED" },
      });
    }
    if (
      body.service_type === "SVC-01" &&
      body.preferred_output !== undefined &&
      !(SVC01_PREFERRED_OUTPUTS as readonly string[]).includes(body.preferred_output)
    ) {
      ctx.addIssue({
        code: "invalid_value",
        values: [...SVC01_PREFERRED_OUTPUTS],
        path: ["preferred_output"],
        message: `preferred_output for SVC-01 must be one of ${SVC01_PREFERRED_OUTPUTS.join(", ")}`,
      });
    }
  })
  .overwrite((body) =>
    body.service_type === "SVC-01" && body.preferred_output === undefined
      ? { ...body, preferred_output: SVC01_DEFAULT_PREFERRED_OUTPUT }
      : body,
  )
  .meta({
    description:
      "Body of POST /api/submit-task. Unknown fields are rejected (422 naming the field). Strings are trimmed; lengths are counted in Unicode code points.",
  });

/** A parsed task submission (defaults applied). */
export type TaskSubmission = z.infer<typeof taskSubmissionSchema>;
/** A task submission as sent by the client (before defaults). */
export type TaskSubmissionInput = z.input<typeof taskSubmissionSchema>;

/** True when `v` is one of {@link SERVICE_TYPES}. */
export function isServiceType(v: unknown): v is ServiceType {
  return isServiceTypeValue(v);
}

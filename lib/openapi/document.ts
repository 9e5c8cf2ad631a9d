/**
 * Generates the OpenAPI 3.1 document from the operation descriptors and the zod
 * schemas that validate requests (never a hand-written copy). Schemas that carry a
 * `.meta({ id })` become `components.schemas` entries. Schema conversion and parameters:
 * json-schema.ts; responses: responses.ts.
 */
import { publicBaseUrl } from "../config.js";
import { ERROR_CODES } from "../http/errors.js";
import { type Operation, permissionsOf } from "../http/operation.js";
import { type Permission, rolesHolding } from "../permissions.js";
import { type Json, parameters, toSchema } from "./json-schema.js";
import { allOperations } from "./operations.js";
import { errorResponses, extraResponses, successResponses } from "./responses.js";
import { webhooksSection } from "./webhooks.js";

export { API_VERSION } from "../descriptors/version.js";

import { API_VERSION } from "../descriptors/version.js";

/** The OpenAPI security requirements of `op`, from its auth mode. */
function security(op: Operation): Json[] | undefined {
  switch (op.auth) {
    case "none":
      return [];
    case "optional":
    case "delegated":
      return [{}, { ApiKeyHeader: [] }, { BearerApiKey: [] }];
    case "client":
      // The client JWT; an API key may be sent besides it (x-api-key, the bearer being the JWT).
      return [{ ClientJwt: [] }, { ClientJwt: [], ApiKeyHeader: [] }];
    case "key_or_client":
      return [{ ApiKeyHeader: [] }, { BearerApiKey: [] }, { ClientJwt: [] }];
    case "cron":
      return [{ CronSecret: [] }];
    case "admin":
      return [{ ApiKeyHeader: [] }, { BearerApiKey: [] }, { StaffSession: [] }, { StaffSessionCookie: [] }];
    default:
      return [{ ApiKeyHeader: [] }, { BearerApiKey: [] }];
  }
}

/**
 * Members some errors add beside `code`, `message` and `details` (docs/api-conventions.md "Error body"):
 * each present only on the errors named in its description. A client may ignore any of them; the
 * envelope stays open to members added later.
 */
const ERROR_EXTRAS: Json = {
  reason: {
    type: "string",
    description:
      "Why, where one code covers several causes. RATE_LIMITED at staff sign-in: `account_locked` (this " +
      "account's failures) or `too_many_failures_from_ip`. UNAUTHORIZED/FORBIDDEN for staff and accounts: " +
      "`no_session`, `session_ended`, `staff_suspended`, `staff_session_not_accepted`, `csrf`, " +
      "`invitation_invalid`, `account_suspended`, `token_expired`, `token_invalid`. CONFLICT on a prepaid " +
      "account: `email_not_verified`, `erasure_pending`.",
  },
  retry_after_seconds: {
    type: "integer",
    minimum: 0,
    description:
      "RATE_LIMITED at staff sign-in (the failure limits): seconds until a try is let through, as Retry-After.",
  },
  limit: {
    type: "integer",
    description: "RATE_LIMITED: the size of the spent limit, in requests per its window.",
  },
  policy: { type: "string", description: "RATE_LIMITED: the name of the spent limit." },
  current_status: {
    type: "string",
    description: "CONFLICT on a task or a field action: the task's status when the request was refused.",
  },
  current_refund_status: {
    type: "string",
    description: "CONFLICT on a refund settlement: the refund's status.",
  },
  current_resolution: {
    type: "string",
    description: "CONFLICT on a dispute resolution: the earlier resolution.",
  },
  dispute_id: { type: "string", description: "CONFLICT on a dispute: the task's earlier or open dispute." },
  resolution: { type: "string", description: "CONFLICT on a dispute: how the earlier dispute was resolved." },
  dispute_window_ends_at: {
    type: "string",
    format: "date-time",
    description: "A dispute refused after its window: when the window ended.",
  },
  max_amount_cad: {
    type: "number",
    description:
      "VALIDATION_ERROR on `amount_cad` of a dispute resolution or refund settlement: the most that may still be given back, CAD.",
  },
  max_bytes: { type: "integer", description: "A proof or evidence file too large: the limit, bytes." },
  distance_m: {
    type: "number",
    description: "A check-in outside the geofence: the distance to the site, metres.",
  },
  geofence_m: { type: "number", description: "A check-in outside the geofence: the radius, metres." },
  matched: { type: "string", description: "OUT_OF_SERVICE_ZONE: the place the location was matched to." },
  available_balance_cad: {
    type: "number",
    description: "VALIDATION_ERROR on a prepaid account debit larger than its balance: the balance, CAD.",
  },
  turnstile_error_codes: {
    type: "array",
    items: { type: "string" },
    description: "VALIDATION_ERROR at account sign-up: the CAPTCHA (Turnstile) verifier's error codes.",
  },
  permission: {
    type: "string",
    description: "FORBIDDEN for a staff person: the permission the operation needs.",
  },
  role: { type: "string", description: "FORBIDDEN for a staff person: the person's role." },
  rate_as_of: {
    type: ["string", "null"],
    description:
      "EXCHANGE_RATE_UNAVAILABLE: when the newest CAD→USD rate known was published (null when none).",
  },
  max_age_hours: {
    type: "number",
    description: "EXCHANGE_RATE_UNAVAILABLE: the oldest rate accepted, hours.",
  },
  reason_codes: {
    type: "array",
    items: { type: "string" },
    description: "POLICY_VIOLATION: the content policy's reason codes (docs/policy.md).",
  },
  policy_version: { type: "string", description: "POLICY_VIOLATION: the content policy's version." },
  rules: {
    type: "array",
    items: { type: "string" },
    description: "POLICY_VIOLATION: the ids of the rules that refused the text.",
  },
  active: {
    type: "integer",
    description: "VALIDATION_ERROR at webhook registration: the key's active webhooks.",
  },
  suggestion: { type: "string", description: "NOT_FOUND of a prepaid account: how to create or link one." },
  invalid_reason: {
    type: "string",
    description:
      "An x402 payment refused (PAYMENT_REQUIRED or INVALID_FORMAT on `payment`): the x402 reason (docs/x402.md).",
  },
  tx_hash: {
    type: "string",
    description: "CONFLICT on an x402 settlement: the transfer's transaction hash.",
  },
  bound: {
    type: "string",
    enum: ["assigned_at", "future", "max_age"],
    description: "VALIDATION_ERROR on an offline `captured_at`: the bound it crossed.",
  },
  bound_at: {
    type: "string",
    format: "date-time",
    description: "VALIDATION_ERROR on an offline `captured_at`: the time of the bound it crossed.",
  },
  assigned_to: {
    type: ["object", "null"],
    properties: { display_name: { type: "string" } },
    description:
      "CONFLICT on a check-in or photo sent after the task was reassigned: the new assignee (null when none).",
  },
  distance_km_one_way: {
    type: "number",
    description: "OUT_OF_SERVICE_ZONE: the matched place's distance from the base, km one way.",
  },
};

/** The error envelope every error response uses (`components.schemas.ErrorEnvelope`). */
const ERROR_ENVELOPE: Json = {
  type: "object",
  required: ["error", "request_id"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: { type: "string", enum: ERROR_CODES },
        message: { type: "string" },
        field: { type: "string" },
        input: {
          type: "string",
          description: "LOCATION_NOT_FOUND: the location as received (first 200 characters).",
        },
        suggestions: {
          type: "array",
          maxItems: 3,
          items: { type: "string" },
          description:
            "LOCATION_NOT_FOUND: up to 3 known place names closest to the input (edit distance), best first; may be empty.",
        },
        details: {
          type: "array",
          items: {
            type: "object",
            properties: {
              field: { type: "string" },
              code: { type: "string" },
              message: { type: "string" },
            },
          },
        },
        ...ERROR_EXTRAS,
      },
    },
    request_id: { type: "string", examples: ["req_8f14e45fceea167a5a36"] },
  },
};

/** The credentials the operations accept (`components.securitySchemes`). */
const SECURITY_SCHEMES: Json = {
  ApiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
  BearerApiKey: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" },
  CronSecret: { type: "http", scheme: "bearer", description: "Vercel Cron's CRON_SECRET" },
  StaffSession: {
    type: "http",
    scheme: "bearer",
    description: "Authorization: Bearer sts_… of a staff session (POST /api/staff-auth?action=sign-in; 12 h)",
  },
  StaffSessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: "staff_session",
    description:
      "The staff session cookie set at sign-in (HttpOnly, SameSite=Strict); unsafe methods also need X-CSRF-Token",
  },
  ClientJwt: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "Authorization: Bearer <jwt> of a client session (POST /api/client-auth?action=login)",
  },
};

/**
 * What an admin operation's description says of its permission (lib/permissions.ts): the
 * permission (per body field value when it depends on it) and the roles holding it.
 */
function permissionSentence(op: Operation): string {
  const rule = op.permission;
  if (rule === undefined) return "";
  const holders = (p: Permission) => `\`${p}\` (roles: ${rolesHolding(p).join(", ")})`;
  if (typeof rule === "string")
    return `Permission: ${holders(rule)}; a staff session acts with its role, an admin key as owner.`;
  const parts = Object.entries(rule.by).map(([value, p]) => `${rule.field}=${value}: ${holders(p)}`);
  return `Permissions: ${parts.join("; ")}; a staff session acts with its role, an admin key as owner.`;
}

/** The OpenAPI operation object of `op`; schemas it names go into `components`. */
function operationItem(op: Operation, components: Json): Json {
  const description = [op.description, permissionSentence(op)].filter(Boolean).join(" ");
  const item: Json = {
    operationId: op.id,
    summary: op.summary,
    ...(description ? { description } : {}),
    tags: op.tags,
    security: security(op),
    "x-auth": op.auth,
    ...(op.scope ? { "x-required-scope": op.scope } : {}),
    ...(op.permission ? { "x-required-permissions": permissionsOf(op.permission) } : {}),
    parameters: parameters(op, components),
  };
  const body = op.body ?? op.documentedBody;
  if (body) {
    item.requestBody = {
      required: true,
      content: { "application/json": { schema: toSchema(body, "input", components) } },
    };
  }
  const responses: Json = {
    ...successResponses(op, components),
    ...errorResponses(op, components),
    ...extraResponses(op, components),
  };
  item.responses = Object.fromEntries(Object.entries(responses).sort((a, b) => Number(a[0]) - Number(b[0])));
  return item;
}

/** The OpenAPI 3.1 document of every public operation. */
export function buildOpenApiDocument(operations: Operation[] = allOperations()): Json {
  const components: Json = {};
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    if (op.internal) continue;
    const item = operationItem(op, components);
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: item };
  }
  components.ErrorEnvelope = structuredClone(ERROR_ENVELOPE);
  const webhooks = webhooksSection(components);
  return {
    openapi: "3.1.0",
    info: {
      title: "Physical Task Execution Service",
      version: API_VERSION,
      description:
        "Hire human operators for real-world tasks in Quebec (site inspections, marketplace pickups, auction " +
        "proxy, IT level-1 field support, courier runs). Prices in CAD, payment in USDC on Ethereum or Base, or " +
        "from a prepaid CAD account. Every error uses the envelope `ErrorEnvelope`; every response carries " +
        "`X-Request-Id`. Unknown body fields are rejected with 422 VALIDATION_ERROR naming the field.",
    },
    servers: [{ url: publicBaseUrl() }],
    paths,
    webhooks,
    components: {
      schemas: components,
      securitySchemes: structuredClone(SECURITY_SCHEMES),
    },
  };
}

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
    components: {
      schemas: components,
      securitySchemes: structuredClone(SECURITY_SCHEMES),
    },
  };
}

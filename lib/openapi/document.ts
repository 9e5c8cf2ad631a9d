/**
 * Generates the OpenAPI 3.1 document from the operation descriptors and the zod
 * schemas that validate requests (never a hand-written copy). Schemas that carry a
 * `.meta({ id })` become `components.schemas` entries.
 */
import { z } from "zod";
import { publicBaseUrl } from "../config.js";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../http/errors.js";
import type { Operation } from "../http/operation.js";
import { allOperations } from "./operations.js";

type Json = Record<string, unknown>;

/** OpenAPI `info.version` and the platform version (contract.md "Versioning"). */
export const API_VERSION = "4.0.0";

const GENERIC_ERRORS: ErrorCode[] = ["INTERNAL", "STORAGE_ERROR", "RATE_LIMITED"];

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request (MISSING_FIELD, INVALID_FORMAT)",
  401: "Missing or invalid API key (UNAUTHORIZED)",
  402: "Insufficient funds (PAYMENT_REQUIRED)",
  403: "Credential lacks the required scope or ownership (FORBIDDEN)",
  404: "Not found (NOT_FOUND)",
  405: "Method not allowed (METHOD_NOT_ALLOWED)",
  409: "Conflict (CONFLICT)",
  413: "Body too large (PAYLOAD_TOO_LARGE)",
  422: "Validation failed",
  429: "Rate limited (RATE_LIMITED); see Retry-After",
  500: "Internal error (INTERNAL)",
  503: "Storage unavailable (STORAGE_ERROR); see Retry-After",
};

/** Moves `$defs` into `components` and rewrites their `$ref`s. */
function hoist(schema: Json, components: Json): Json {
  const defs = (schema.$defs ?? {}) as Record<string, Json>;
  delete schema.$defs;
  delete schema.$schema;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node && typeof node === "object") {
      const out: Json = {};
      for (const [k, v] of Object.entries(node as Json)) {
        out[k] =
          k === "$ref" && typeof v === "string" ? v.replace("#/$defs/", "#/components/schemas/") : rewrite(v);
      }
      return out;
    }
    return node;
  };
  for (const [name, def] of Object.entries(defs)) components[name] = rewrite(def);
  return rewrite(schema) as Json;
}

function toSchema(schema: z.ZodType, io: "input" | "output", components: Json): Json {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  return hoist(json, components);
}

function parameters(op: Operation, components: Json): Json[] {
  const out: Json[] = [];
  for (const match of op.path.matchAll(/\{(\w+)\}/g)) {
    out.push({ name: match[1], in: "path", required: true, schema: { type: "string" } });
  }
  if (op.idempotent) {
    out.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "1-128 printable ASCII characters, scoped to the caller, kept 24 h. A replay returns the first response " +
        "with `Idempotency-Replayed: true`; another body with the same key → 422 IDEMPOTENCY_KEY_REUSED; while " +
        "the first request runs → 409 CONFLICT.",
      schema: { type: "string", maxLength: 128 },
    });
  }
  if (op.auth !== "cron") {
    out.push({
      name: "X-Agent-Identity",
      in: "header",
      required: false,
      description:
        "`{model}/{agent_name}/{org_id}` for activity logging; a malformed value is ignored (see the `Warning` header).",
      schema: { type: "string" },
    });
  }
  if (!op.query) return out;
  const output = toSchema(op.query, "output", components);
  // A parameter is required when its schema refuses an absent value (preprocessed
  // query numbers hide that from the JSON Schema of either side).
  const shape = op.query instanceof z.ZodObject ? (op.query.shape as Record<string, z.ZodType>) : {};
  const required = new Set(Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success));
  const props = (output.properties ?? {}) as Record<string, Json>;
  for (const [name, schema] of Object.entries(props)) {
    const { description, ...rest } = schema;
    out.push({
      name,
      in: "query",
      required: required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    });
  }
  return out;
}

function security(op: Operation): Json[] | undefined {
  switch (op.auth) {
    case "none":
      return [];
    case "optional":
    case "delegated":
      return [{}, { ApiKeyHeader: [] }, { BearerApiKey: [] }];
    case "cron":
      return [{ CronSecret: [] }];
    default:
      return [{ ApiKeyHeader: [] }, { BearerApiKey: [] }];
  }
}

function errorResponses(op: Operation): Json {
  const codes = new Set<ErrorCode>([...(op.errors ?? []), ...GENERIC_ERRORS]);
  if (op.body) codes.add("INVALID_FORMAT").add("PAYLOAD_TOO_LARGE");
  if (op.idempotent) codes.add("INVALID_FORMAT").add("CONFLICT").add("IDEMPOTENCY_KEY_REUSED");
  if (op.auth === "key" || op.auth === "admin" || op.auth === "cron") codes.add("UNAUTHORIZED");
  if (op.auth === "admin" || (op.auth === "key" && op.scope && op.scope !== "billing_read"))
    codes.add("FORBIDDEN");
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? "Error"}. Codes: ${list.join(", ")}`,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
    };
  }
  return out;
}

/** The OpenAPI 3.1 document of every public operation. */
export function buildOpenApiDocument(operations: Operation[] = allOperations()): Json {
  const components: Json = {};
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    if (op.internal) continue;
    const item: Json = {
      operationId: op.id,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      security: security(op),
      "x-auth": op.auth,
      ...(op.scope ? { "x-required-scope": op.scope } : {}),
      parameters: parameters(op, components),
    };
    if (op.body) {
      item.requestBody = {
        required: true,
        content: { "application/json": { schema: toSchema(op.body, "input", components) } },
      };
    }
    const success = String(op.successStatus ?? 200);
    const contentType = op.contentType ?? "application/json";
    item.responses = {
      [success]: {
        description: "Success",
        content: {
          [contentType]: { schema: op.response ? toSchema(op.response, "output", components) : {} },
        },
      },
      ...errorResponses(op),
    };
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: item };
  }
  components.ErrorEnvelope = {
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
      securitySchemes: {
        ApiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
        BearerApiKey: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" },
        CronSecret: { type: "http", scheme: "bearer", description: "Vercel Cron's CRON_SECRET" },
      },
    },
  };
}

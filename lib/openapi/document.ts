/**
 * Generates the OpenAPI 3.1 document from the operation descriptors and the zod
 * schemas that validate requests (never a hand-written copy). Schemas that carry a
 * `.meta({ id })` become `components.schemas` entries.
 */
import { z } from "zod";
import { publicBaseUrl } from "../config.js";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../http/errors.js";
import { isPublicRead, type Operation } from "../http/operation.js";
import { allOperations } from "./operations.js";

type Json = Record<string, unknown>;

/** OpenAPI `info.version` and the platform version (docs/api-conventions.md "Versioning"). */
export const API_VERSION = "4.0.0";

/** Errors any operation may answer: NUL characters (400), limits, storage, configuration. */
const GENERIC_ERRORS: ErrorCode[] = [
  "INVALID_FORMAT",
  "INTERNAL",
  "STORAGE_ERROR",
  "CONFIGURATION_ERROR",
  "RATE_LIMITED",
];

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request: a required value is absent, or a value is unparsable or of the wrong type",
  401: "Missing or invalid credential",
  402: "Insufficient funds",
  403: "The credential lacks the required scope or ownership",
  404: "Not found",
  405: "Method not allowed on this path; `Allow` lists the methods it serves",
  409: "Conflict",
  413: "Body too large",
  422: "Validation failed",
  429: "Rate limited (RATE_LIMITED); see Retry-After",
  500: "Internal error (INTERNAL)",
  503: "Storage or a dependency unavailable, or the deployment not configured (CONFIGURATION_ERROR); see Retry-After",
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
  closedTuples(json, 0);
  return hoist(json, components);
}

/**
 * Rewrites a closed tuple's `items: false` (zod's output for z.tuple) as `items: { not: {} }`:
 * the same rule (no element past `prefixItems`) written as a schema object, which OpenAPI
 * linters (Spectral's `array-items`) and client generators expect `items` to be.
 */
function closedTuples(node: unknown, depth: number): void {
  if (depth > 64 || node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) closedTuples(item, depth + 1);
    return;
  }
  const object = node as Json;
  if (Array.isArray(object.prefixItems) && object.items === false) object.items = { not: {} };
  for (const value of Object.values(object)) closedTuples(value, depth + 1);
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
        "the first request runs → 409 CONFLICT. The effect happens once per key: after a network error, a 5xx " +
        "(whose writes are rolled back) or a 409, retry with the same key and body.",
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
  for (const h of op.documentedHeaders ?? []) {
    out.push({
      name: h.name,
      in: "header",
      required: h.required,
      description: h.description,
      schema: {
        type: "string",
        ...(h.enum ? { enum: h.enum } : {}),
        ...(h.example ? { examples: [h.example] } : {}),
      },
    });
  }
  if (!op.query) return out;
  const { output, input, required } = querySchemas(op.query, components);
  for (const [name, outSchema] of Object.entries(output)) {
    // The output side types numbers and lists; where it is unrepresentable (a transform),
    // the input side (the string the client sends) is documented instead.
    const chosen = isEmptySchema(outSchema) ? (input[name] ?? outSchema) : outSchema;
    const { description, ...rest } = chosen;
    out.push({
      name,
      in: "query",
      required: required.has(name),
      ...(description ? { description } : {}),
      // Lists are sent comma-separated (`status=a,b`), i.e. form style without explode.
      ...(rest.type === "array" ? { style: "form", explode: false } : {}),
      schema: rest,
    });
  }
  return out;
}

/** True for a schema that says nothing about the value (`{}` plus annotations). */
function isEmptySchema(schema: Json): boolean {
  return Object.keys(schema).every((k) => k === "description" || k === "default" || k === "examples");
}

/**
 * The query's properties as JSON Schemas (output and input side) and the names of the
 * required ones. A parameter is required when its schema refuses an absent value
 * (preprocessed query numbers hide that from the JSON Schema of either side).
 */
function querySchemas(
  query: z.ZodType,
  components: Json,
): { output: Record<string, Json>; input: Record<string, Json>; required: Set<string> } {
  const output = (toSchema(query, "output", components).properties ?? {}) as Record<string, Json>;
  const input = (toSchema(query, "input", components).properties ?? {}) as Record<string, Json>;
  const shape = query instanceof z.ZodObject ? (query.shape as Record<string, z.ZodType>) : {};
  const required = new Set(Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success));
  return { output, input, required };
}

/** Keywords whose breach lib/http/validation.ts reports as 422 VALIDATION_ERROR. */
const RULE_KEYWORDS = [
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "pattern",
  "format",
  "minItems",
] as const;

/**
 * Adds to `codes` the validation error codes a value of `schema` can draw, by the mapping of
 * lib/http/validation.ts (README "Conventions of the API"): a required member or a non-empty
 * string → MISSING_FIELD (absent, empty or blank); a non-string type → INVALID_FORMAT
 * (unparsable or of the wrong type); maxLength/maxItems → FIELD_TOO_LONG; any other rule
 * (enum, range, pattern, format, unknown member) → VALIDATION_ERROR. Rules that JSON Schema
 * cannot show (refinements) are declared by the operation's `errors`.
 */
function addValidationCodes(schema: unknown, components: Json, codes: Set<ErrorCode>, depth = 0): void {
  if (!schema || typeof schema !== "object" || depth > 32) return;
  if (Array.isArray(schema)) {
    for (const s of schema) addValidationCodes(s, components, codes, depth + 1);
    return;
  }
  const node = schema as Json;
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace("#/components/schemas/", "");
    addValidationCodes(components[name], components, codes, depth + 1);
  }
  if (Array.isArray(node.required) && node.required.length > 0) codes.add("MISSING_FIELD");
  if (typeof node.minLength === "number" && node.minLength >= 1) codes.add("MISSING_FIELD");
  if (typeof node.minLength === "number" && node.minLength > 1) codes.add("VALIDATION_ERROR");
  if (node.maxLength !== undefined || node.maxItems !== undefined) codes.add("FIELD_TOO_LONG");
  if (RULE_KEYWORDS.some((k) => node[k] !== undefined) || node.additionalProperties === false) {
    codes.add("VALIDATION_ERROR");
  }
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  if (types.some((t: string) => t !== "string")) codes.add("INVALID_FORMAT");
  for (const key of ["items", "prefixItems", "anyOf", "oneOf", "allOf", "not"]) {
    addValidationCodes(node[key], components, codes, depth + 1);
  }
  for (const key of ["properties", "patternProperties"]) {
    if (node[key] && typeof node[key] === "object") {
      for (const s of Object.values(node[key] as Json)) addValidationCodes(s, components, codes, depth + 1);
    }
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    addValidationCodes(node.additionalProperties, components, codes, depth + 1);
  }
}

/** The validation error codes the query and body schemas of `op` can draw. */
function validationCodes(op: Operation, components: Json): Set<ErrorCode> {
  const codes = new Set<ErrorCode>();
  if (op.query) {
    const { output, input, required } = querySchemas(op.query, components);
    if (required.size > 0) codes.add("MISSING_FIELD");
    for (const name of Object.keys(output)) {
      addValidationCodes(output[name], components, codes);
      addValidationCodes(input[name], components, codes);
    }
  }
  if (op.body) {
    // Anything can be sent in a body: a wrong type or a non-object body is INVALID_FORMAT,
    // a member sent as null counts as absent (MISSING_FIELD), an unknown member is
    // VALIDATION_ERROR (strict objects).
    codes.add("INVALID_FORMAT").add("MISSING_FIELD");
    addValidationCodes(toSchema(op.body, "input", components), components, codes);
  }
  return codes;
}

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
    default:
      return [{ ApiKeyHeader: [] }, { BearerApiKey: [] }];
  }
}

/** Headers documented on responses of a status. */
const STATUS_HEADERS: Record<number, Json> = {
  405: { Allow: { description: "The methods this path serves.", schema: { type: "string" } } },
  429: { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } },
  503: { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } },
};

/**
 * The error responses of `op`, one per status, each listing (in its description and as an
 * `enum` on `error.code`) exactly the codes the operation can answer with at that status.
 * Besides the operation's own `errors`: the generic ones (429, 500, 503); 405 on every
 * operation (any other method on its path, with `Allow`); 401 wherever a key is read (a key
 * that is sent must be valid, even where none is required); 403 where a scope is checked;
 * the validation codes its query and body schemas can draw; 413 and idempotency codes.
 */
function errorResponses(op: Operation, components: Json): Json {
  const codes = new Set<ErrorCode>([...(op.errors ?? []), ...GENERIC_ERRORS, "METHOD_NOT_ALLOWED"]);
  for (const code of validationCodes(op, components)) codes.add(code);
  if (op.body) codes.add("PAYLOAD_TOO_LARGE");
  if (op.idempotent) codes.add("INVALID_FORMAT").add("CONFLICT").add("IDEMPOTENCY_KEY_REUSED");
  // `delegated` (MCP) ignores an invalid key; every other mode refuses it (cron: its secret).
  if (op.auth !== "delegated") codes.add("UNAUTHORIZED");
  // A missing scope is 403, except billing_read (401, README "Authentication, scopes and limits").
  if (op.auth === "admin" || (op.scope && op.scope !== "billing_read")) codes.add("FORBIDDEN");
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? "Error"}. Codes: ${list.join(", ")}`,
      ...(STATUS_HEADERS[status] ? { headers: STATUS_HEADERS[status] } : {}),
      content: {
        "application/json": {
          schema: {
            allOf: [
              { $ref: "#/components/schemas/ErrorEnvelope" },
              {
                type: "object",
                properties: {
                  error: { type: "object", properties: { code: { type: "string", enum: list } } },
                },
              },
            ],
          },
        },
      },
    };
  }
  return out;
}

/** The success response(s) of `op`, by status. */
function successResponses(op: Operation, components: Json): Json {
  if (op.successStatus === null) return {};
  const types =
    typeof op.contentType === "string" ? [op.contentType] : (op.contentType ?? ["application/json"]);
  const content: Json = {};
  for (const type of types) {
    const useResponse = types.length === 1 || type === "application/json";
    content[type] = {
      schema:
        op.response && useResponse
          ? toSchema(op.response, "output", components)
          : types.length > 1
            ? { type: "string" }
            : {},
    };
  }
  // Public reads sent with a key are served as anonymous when storage cannot check the key.
  const headers = isPublicRead(op)
    ? {
        headers: {
          Warning: {
            description:
              'A key was sent but storage could not check it (down, or slower than KEY_CHECK_TIMEOUT_MS): the request was served as anonymous. Value: 199 - "API key not checked: storage unavailable"',
            schema: { type: "string" },
          },
        },
      }
    : {};
  return { [String(op.successStatus ?? 200)]: { description: "Success", ...headers, content } };
}

/** The operation's own documented responses (they replace generated ones of the same status). */
function extraResponses(op: Operation, components: Json): Json {
  const out: Json = {};
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    out[status] = {
      description: r.description,
      ...(r.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(r.headers).map(([name, description]) => [
                name,
                { description, schema: { type: "string" } },
              ]),
            ),
          }
        : {}),
      ...(r.schema
        ? {
            content: {
              [r.contentType ?? "application/json"]: { schema: toSchema(r.schema, "output", components) },
            },
          }
        : {}),
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
    item.responses = Object.fromEntries(
      Object.entries(responses).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
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
        ClientJwt: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "Authorization: Bearer <jwt> of a client session (POST /api/client-auth?action=login)",
        },
      },
    },
  };
}

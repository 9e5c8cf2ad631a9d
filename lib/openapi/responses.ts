/**
 * The responses of an operation in the OpenAPI document: success (with its content types),
 * errors (one response per status, listing exactly the codes the operation can answer at that
 * status, including those its query and body schemas can draw) and the operation's own.
 */
import { ERROR_STATUS, type ErrorCode } from "../http/errors.js";
import { isPublicRead, type Operation } from "../http/operation.js";
import { type Json, querySchemas, toSchema } from "./json-schema.js";

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
 * lib/http/validation.ts (docs/tasks.md "Conventions of the API"): a required member or a non-empty
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
 * that is sent must be valid, even where none is required); 403 wherever a key is checked (a key
 * of an account on hold for erasure: `reason` erasure_pending; the admin or a missing scope);
 * the validation codes its query and body schemas can draw; 413 and idempotency codes.
 */
export function errorResponses(op: Operation, components: Json): Json {
  const codes = new Set<ErrorCode>([...(op.errors ?? []), ...GENERIC_ERRORS, "METHOD_NOT_ALLOWED"]);
  for (const code of validationCodes(op, components)) codes.add(code);
  if (op.body) codes.add("PAYLOAD_TOO_LARGE");
  if (op.idempotent) codes.add("INVALID_FORMAT").add("CONFLICT").add("IDEMPOTENCY_KEY_REUSED");
  // `delegated` (MCP) ignores an invalid key; every other mode refuses it (cron: its secret).
  if (op.auth !== "delegated") codes.add("UNAUTHORIZED");
  // 403 wherever a sent key is checked (every mode but `delegated` and `cron`, public reads
  // included): a key of an account on hold for erasure (docs/privacy.md), and on the operations
  // that need them, the admin scope or a missing scope (billing_read is 401 instead, docs/security.md
  // "Authentication, scopes and limits").
  if (op.auth !== "delegated" && op.auth !== "cron") codes.add("FORBIDDEN");
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
export function successResponses(op: Operation, components: Json): Json {
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
export function extraResponses(op: Operation, components: Json): Json {
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

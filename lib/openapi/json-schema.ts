/**
 * zod schemas as OpenAPI JSON Schemas: conversion with `$defs` hoisted into
 * `components.schemas`, and an operation's path and query parameters.
 */
import { z } from "zod";
import type { Operation } from "../http/operation.js";

/** A JSON object of the document. */
export type Json = Record<string, unknown>;

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

/** The JSON Schema (draft 2020-12) of a zod schema, its `$defs` moved into `components`. */
export function toSchema(schema: z.ZodType, io: "input" | "output", components: Json): Json {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  closedTuples(json, 0);
  return hoist(json, components);
}

/**
 * Rewrites a closed tuple (zod's `prefixItems` + `items: false` for z.tuple) in a form every
 * validator and client generator reads alike:
 * - every element of one schema (a `[longitude, latitude]` pair): `items: <that schema>` with
 *   `minItems` = `maxItems` = the length, no `prefixItems` (Stoplight Prism misread the tuple
 *   form and reported the estimate's `location.coordinates` as violations);
 * - elements of different schemas: `prefixItems` kept, `items: { not: {} }` (the same rule as
 *   `items: false`, written as a schema object, which Spectral's `array-items` expects).
 * Mutates `node` in place; recursion stops at depth 64.
 */
function closedTuples(node: unknown, depth: number): void {
  if (depth > 64 || node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) closedTuples(item, depth + 1);
    return;
  }
  const object = node as Json;
  if (Array.isArray(object.prefixItems) && object.items === false) {
    const elements = object.prefixItems as unknown[];
    const first = JSON.stringify(elements[0]);
    if (elements.length > 0 && elements.every((e) => JSON.stringify(e) === first)) {
      delete object.prefixItems;
      object.items = elements[0];
      object.minItems = elements.length;
      object.maxItems = elements.length;
    } else {
      object.items = { not: {} };
    }
  }
  for (const value of Object.values(object)) closedTuples(value, depth + 1);
}

/** The OpenAPI parameters of `op`: its path parameters, then its query's properties. */
export function parameters(op: Operation, components: Json): Json[] {
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
        "1-128 printable ASCII characters, scoped to the caller (API key, else client account, else IP), kept " +
        "24 h. A replay returns the first response with `Idempotency-Replayed: true`; another body, query or " +
        "X-Service-Mode with the same key → 422 IDEMPOTENCY_KEY_REUSED; while the first request runs → 409 " +
        "CONFLICT with Retry-After. The effect happens once per key: after a network error, a 5xx or a failed DNS " +
        "lookup (neither stored; writes rolled back) or a 409 with Retry-After, retry with the same key and body. " +
        "A caller without credentials never gets a secret replayed: the repeat of such a success is 409 CONFLICT " +
        "without Retry-After.",
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
export function querySchemas(
  query: z.ZodType,
  components: Json,
): { output: Record<string, Json>; input: Record<string, Json>; required: Set<string> } {
  const output = (toSchema(query, "output", components).properties ?? {}) as Record<string, Json>;
  const input = (toSchema(query, "input", components).properties ?? {}) as Record<string, Json>;
  const shape = query instanceof z.ZodObject ? (query.shape as Record<string, z.ZodType>) : {};
  const required = new Set(Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success));
  return { output, input, required };
}

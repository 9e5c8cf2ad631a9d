/**
 * Maps zod issues onto the error codes of the spec ("Errors"):
 * absent (or empty) required value → 400 MISSING_FIELD; a value of the wrong type or that cannot
 * be parsed (e.g. `hours=abc`) → 400 INVALID_FORMAT; a string over its limit → 422
 * FIELD_TOO_LONG; any other rule (range, enum, e-mail, unknown field) → 422
 * VALIDATION_ERROR. The response takes the first issue's code by that priority and
 * lists every issue in `details`.
 */
import type { z } from "zod";
import { ApiError, type ErrorCode, type ErrorDetail } from "./errors.js";

const PRIORITY: ErrorCode[] = ["MISSING_FIELD", "INVALID_FORMAT", "FIELD_TOO_LONG", "VALIDATION_ERROR"];

function fieldOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path.push(issue.keys[0]!);
  return path.join(".");
}

/** Marks a path that does not map onto the raw input (the value was transformed, e.g. "a,b" → ["a","b"]). */
const UNMAPPED = Symbol("unmapped");

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (node === undefined || node === null) return node;
    if (typeof node !== "object") return UNMAPPED;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function codeOf(issue: z.core.$ZodIssue, input: unknown): ErrorCode {
  if (issue.code === "invalid_type") {
    const value = valueAt(input, issue.path);
    return value === undefined || value === null ? "MISSING_FIELD" : "INVALID_FORMAT";
  }
  if (
    (issue.code === "invalid_value" || issue.code === "invalid_union") &&
    valueAt(input, issue.path) === undefined
  ) {
    return "MISSING_FIELD";
  }
  if (issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) <= 1) {
    const value = valueAt(input, issue.path);
    if (typeof value === "string" && value.trim() === "") return "MISSING_FIELD";
  }
  if (issue.code === "too_big" && (issue.origin === "string" || issue.origin === "array")) {
    return "FIELD_TOO_LONG";
  }
  const params = (issue as { params?: { code?: string } }).params;
  if (params?.code && PRIORITY.includes(params.code as ErrorCode)) return params.code as ErrorCode;
  return "VALIDATION_ERROR";
}

function messageOf(issue: z.core.$ZodIssue, field: string, code: ErrorCode): string {
  const name = field || "value";
  switch (code) {
    case "MISSING_FIELD":
      return `${name} is required`;
    case "FIELD_TOO_LONG":
      return issue.code === "too_big"
        ? `${name} exceeds ${String(issue.maximum)} ${issue.origin === "array" ? "items" : "characters"}`
        : `${name}: ${issue.message}`;
    default:
      if (issue.code === "unrecognized_keys") return `${name} is not a known field`;
      return `${name}: ${issue.message}`;
  }
}

/** Converts a zod error on `input` into an `ApiError` per the rules above. */
export function validationError(error: z.ZodError, input: unknown, prefix = ""): ApiError {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = [prefix, ...issue.path.map(String), key].filter(Boolean).join(".");
        details.push({ field, code: "VALIDATION_ERROR", message: `${field} is not a known field` });
      }
      continue;
    }
    const field = [prefix, fieldOf(issue)].filter(Boolean).join(".");
    const code = codeOf(issue, input);
    details.push({ field, code, message: messageOf(issue, field, code) });
  }
  details.sort((a, b) => PRIORITY.indexOf(a.code) - PRIORITY.indexOf(b.code));
  const first = details[0] ?? { field: "", code: "VALIDATION_ERROR" as const, message: "invalid input" };
  return new ApiError(first.code, first.message, { field: first.field || undefined, details });
}

/** Parses `input` with `schema` or throws the mapped `ApiError`. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, input, prefix);
  return result.data;
}

/**
 * The validation of lib/validation.ts for the adapters (the handler wrapper, MCP tools) with the
 * HTTP error: the same rules and codes (MISSING_FIELD, INVALID_FORMAT 400; FIELD_TOO_LONG,
 * VALIDATION_ERROR 422; every issue in `details`), thrown as an `ApiError`.
 */
import type { z } from "zod";
import { DomainError } from "../errors.js";
import * as domain from "../validation.js";
import { type ApiError, fromDomainError } from "./errors.js";

export { findNulByte } from "../validation.js";

/** Runs `fn`, turning a `DomainError` it throws into its `ApiError`. */
function asApiError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof DomainError) throw fromDomainError(error);
    throw error;
  }
}

/** Converts a zod error on `input` into an `ApiError` (rules: lib/validation.ts `validationError`). */
export function validationError(error: z.ZodError, input: unknown, prefix = ""): ApiError {
  return fromDomainError(domain.validationError(error, input, prefix));
}

/**
 * Parses `input` with `schema` or throws the mapped `ApiError`; a string holding U+0000 anywhere
 * in `input` is 400 INVALID_FORMAT first (`rejectNulBytes`).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): z.output<S> {
  return asApiError(() => domain.parseOrThrow(schema, input, prefix));
}

/**
 * Refuses any string holding U+0000 (NUL) anywhere in `input` (query, path parameters, JSON body,
 * header values, tool arguments): PostgreSQL cannot store it in text, and no field has a use for it.
 * @param prefix field name to report when `input` is itself the string (e.g. a header name)
 * @throws ApiError 400 INVALID_FORMAT whose `field` names the offending value (never its content)
 */
export function rejectNulBytes(input: unknown, prefix = ""): void {
  asApiError(() => domain.rejectNulBytes(input, prefix));
}

/**
 * The one error class of the HTTP layer, its closed set of codes (the table is in
 * lib/descriptors/error-codes.ts, re-exported here) and the envelope.
 *
 * Envelope (docs/api-conventions.md "Error body"):
 * `{ "error": { "code", "message", "field"?, "details": [] }, "request_id": "req_…" }`.
 */
import { ERROR_STATUS, type ErrorCode } from "../descriptors/error-codes.js";
import { DomainError, type DomainErrorCode, type RateLimitFacts } from "../errors.js";

export { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../descriptors/error-codes.js";

/** One item of `error.details`: a problem with one field. */
export interface ErrorDetail {
  field: string;
  code: ErrorCode;
  message: string;
}

/** Options of an `ApiError`. */
export interface ApiErrorOptions {
  field?: string;
  details?: ErrorDetail[];
  /** Extra headers of the error response (e.g. `Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  /** Extra members of the `error` object (e.g. `current_status`, `available_balance_cad`). */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * An expected failure with a code from `ERROR_STATUS`; the handler wrapper turns it
 * into the envelope with the mapped status. Anything else thrown becomes 500 INTERNAL.
 */
export class ApiError extends Error {
  override name = "ApiError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = options.field;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

/** The JSON body of an error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string; details: ErrorDetail[] } & Record<
    string,
    unknown
  >;
  request_id: string;
}

/** Builds the envelope body for `error` under `requestId`. */
export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
      details: error.details,
      ...error.extra,
    },
    request_id: requestId,
  };
}

/** Every domain code is an HTTP error code (checked by the compiler). */
const DOMAIN_CODES_ARE_HTTP_CODES: Record<DomainErrorCode, ErrorCode> = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  FORBIDDEN: "FORBIDDEN",
  UNAUTHORIZED: "UNAUTHORIZED",
  PAYMENT_REQUIRED: "PAYMENT_REQUIRED",
  VALIDATION_ERROR: "VALIDATION_ERROR",
  LOCATION_NOT_FOUND: "LOCATION_NOT_FOUND",
  OUT_OF_SERVICE_ZONE: "OUT_OF_SERVICE_ZONE",
  MISSING_FIELD: "MISSING_FIELD",
  INVALID_FORMAT: "INVALID_FORMAT",
  FIELD_TOO_LONG: "FIELD_TOO_LONG",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  RATE_LIMITED: "RATE_LIMITED",
  EXCHANGE_RATE_UNAVAILABLE: "EXCHANGE_RATE_UNAVAILABLE",
  UPSTREAM_UNAVAILABLE: "UPSTREAM_UNAVAILABLE",
  POLICY_VIOLATION: "POLICY_VIOLATION",
};

/**
 * The `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) headers of a limit
 * (IETF draft "RateLimit header fields for HTTP"; docs/api-conventions.md "Rate-limit headers"):
 * the one place their names and values are written, for errors and successful responses alike.
 */
export function rateLimitFields(facts: RateLimitFacts): Record<string, string> {
  return {
    "ratelimit-limit": String(facts.limit),
    "ratelimit-remaining": String(facts.remaining),
    "ratelimit-reset": String(facts.resetSeconds),
  };
}

/**
 * The headers stating a domain error's retry facts: `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` (seconds) of an exhausted limit (IETF draft "RateLimit header fields for
 * HTTP"), and `Retry-After` in seconds (RFC 9110 section 10.2.3).
 */
function retryHeaders(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = error.rateLimit ? rateLimitFields(error.rateLimit) : {};
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  return headers;
}

/**
 * The HTTP form of a domain error (lib/errors.ts): the same code, its status from `ERROR_STATUS`,
 * its field, details and extra members, and the Retry-After / RateLimit-* headers of its retry
 * facts; used by the handler wrapper and the MCP tools.
 */
export function fromDomainError(error: DomainError): ApiError {
  return new ApiError(DOMAIN_CODES_ARE_HTTP_CODES[error.code], error.message, {
    ...(error.field === undefined ? {} : { field: error.field }),
    details: error.details.map((d) => ({
      field: d.field,
      code: DOMAIN_CODES_ARE_HTTP_CODES[d.code],
      message: d.message,
    })),
    headers: retryHeaders(error),
    extra: error.extra,
    cause: error,
  });
}

/** The public error code of `error` when it is an `ApiError` or a `DomainError`, else undefined. */
export function errorCodeOf(error: unknown): ErrorCode | undefined {
  if (error instanceof ApiError) return error.code;
  if (error instanceof DomainError) return DOMAIN_CODES_ARE_HTTP_CODES[error.code];
  return undefined;
}

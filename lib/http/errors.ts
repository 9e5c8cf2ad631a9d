/**
 * The one error class of the HTTP layer, its closed set of codes and the envelope.
 *
 * Envelope (contract.md "Error body"):
 * `{ "error": { "code", "message", "field"?, "details": [] }, "request_id": "req_…" }`.
 */
import type { DomainError, DomainErrorCode } from "../errors.js";

/** Error code → HTTP status. Spec "Errors" table plus contract.md's additions. */
export const ERROR_STATUS = {
  MISSING_FIELD: 400,
  INVALID_FORMAT: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  FIELD_TOO_LONG: 422,
  VALIDATION_ERROR: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  LOCATION_NOT_FOUND: 422,
  OUT_OF_SERVICE_ZONE: 422,
  /** The policy screen refused the submission (lib/policy); `reason_codes` and `policy_version` in the error. */
  POLICY_VIOLATION: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  STORAGE_ERROR: 503,
  EXCHANGE_RATE_UNAVAILABLE: 503,
  /** A third-party service we depend on (e.g. Cloudflare Turnstile) did not answer; retry later. */
  UPSTREAM_UNAVAILABLE: 503,
  /**
   * The deployment is not configured to serve: the production profile lacks a required variable
   * (JWT_SECRET, WEBHOOK_SECRET_KEY, …) or a variable has a bad value; the message names them.
   */
  CONFIGURATION_ERROR: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

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
  POLICY_VIOLATION: "POLICY_VIOLATION",
};

/**
 * The HTTP form of a domain error (lib/errors.ts): the same code, its status from `ERROR_STATUS`,
 * its field and extra members; used by the handler wrapper and the MCP tools.
 */
export function fromDomainError(error: DomainError): ApiError {
  return new ApiError(DOMAIN_CODES_ARE_HTTP_CODES[error.code], error.message, {
    ...(error.field === undefined ? {} : { field: error.field }),
    extra: error.extra,
    cause: error,
  });
}

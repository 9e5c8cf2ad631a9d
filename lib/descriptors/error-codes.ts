/**
 * The public error codes of the API and the HTTP status of each: what an operation descriptor
 * lists in `errors`, what /openapi.json documents and what lib/http answers. Kept here, beside the
 * descriptors and importing nothing of ours, so that the descriptors in the domain folders
 * (`lib/<domain>/operations.ts`) do not import lib/http.
 */

/** Error code → HTTP status: the error table of the interface specification plus the codes this service adds. */
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

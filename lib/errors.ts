/**
 * Domain errors: what domain code (lib/ outside lib/http) raises for an expected failure, with no
 * HTTP in it (no status, no headers). Only lib/http maps a `DomainError` to a status and the error
 * envelope (`fromDomainError` in lib/http/errors.ts; the MCP tools use the same mapping), so the
 * domain never depends on the HTTP layer.
 *
 * The rule for domain code: raise `DomainError` with one of `DOMAIN_ERROR_CODES`, or return a
 * result. Headers (Retry-After, Allow) and transport codes (405, 413, 429, 503) belong to lib/http.
 * Folders still raising `ApiError` directly are converted one at a time (lib/scores is the first).
 */

/**
 * The closed set of domain failure codes; each is also an HTTP error code of the same name (the
 * status is lib/http's business: NOT_FOUND 404, CONFLICT 409, FORBIDDEN 403, UNAUTHORIZED 401,
 * PAYMENT_REQUIRED 402, VALIDATION_ERROR and the other rule violations 422, POLICY_VIOLATION 422:
 * a submission the policy screen refuses, lib/policy).
 */
export const DOMAIN_ERROR_CODES = [
  "NOT_FOUND",
  "CONFLICT",
  "FORBIDDEN",
  "UNAUTHORIZED",
  "PAYMENT_REQUIRED",
  "VALIDATION_ERROR",
  "LOCATION_NOT_FOUND",
  "OUT_OF_SERVICE_ZONE",
  "POLICY_VIOLATION",
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** Options of a `DomainError`. */
export interface DomainErrorOptions {
  /** The input field at fault, by its public (spec) name, e.g. `task_id`. */
  field?: string;
  /** Facts for the caller, by their public names (e.g. `current_status`); become `error.*` members. */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

/** An expected failure of a domain rule; `message` is for the API caller (no secrets, no values typed by others). */
export class DomainError extends Error {
  override name = "DomainError";
  readonly code: DomainErrorCode;
  readonly field: string | undefined;
  readonly extra: Record<string, unknown>;

  constructor(code: DomainErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
  }
}

/**
 * Domain errors: what domain code (lib/ outside lib/http) raises for an expected failure, with no
 * HTTP in it (no status, no headers). Only lib/http maps a `DomainError` to a status and the error
 * envelope (`fromDomainError` in lib/http/errors.ts; the MCP tools use the same mapping), so the
 * domain never depends on the HTTP layer.
 *
 * The rule for domain code: raise `DomainError` with one of `DOMAIN_ERROR_CODES`, or return a
 * result. Headers (Retry-After, RateLimit-*, Allow) are lib/http's: a domain error states the
 * facts they are built from (`retryAfterSeconds`, `rateLimit`), never a header. Codes only the
 * transport produces (METHOD_NOT_ALLOWED, STORAGE_ERROR, CONFIGURATION_ERROR, INTERNAL) are not
 * domain codes.
 */

/**
 * The closed set of domain failure codes; each is also a public error code of the API with the
 * same name (the status is lib/http's business: MISSING_FIELD and INVALID_FORMAT 400,
 * UNAUTHORIZED 401, PAYMENT_REQUIRED 402, FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409,
 * PAYLOAD_TOO_LARGE 413, VALIDATION_ERROR, FIELD_TOO_LONG and the other rule violations 422,
 * POLICY_VIOLATION 422 (a submission the policy screen refuses, lib/policy),
 * RATE_LIMITED 429, EXCHANGE_RATE_UNAVAILABLE and UPSTREAM_UNAVAILABLE 503).
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
  /** A required input is absent or empty. */
  "MISSING_FIELD",
  /** An input of the wrong type or that cannot be parsed (a URL, a date, a number, base64). */
  "INVALID_FORMAT",
  /** A string or list over its length limit. */
  "FIELD_TOO_LONG",
  /** An input over its size limit in bytes (proof files). */
  "PAYLOAD_TOO_LARGE",
  /** A budget of attempts is spent (per e-mail, per IP); `rateLimit` says when it refills. */
  "RATE_LIMITED",
  /** No CAD/USD rate is known: the rate source failed and the cached rate is stale. */
  "EXCHANGE_RATE_UNAVAILABLE",
  /** A third-party service the rule needs (the CAPTCHA check) is not available. */
  "UPSTREAM_UNAVAILABLE",
  /** The policy screen refused the submission (lib/policy). */
  "POLICY_VIOLATION",
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** One problem with one input, when a failure lists several (`error.details` of the envelope). */
export interface DomainErrorDetail {
  /** The input at fault by its public name; nested members joined by dots (`files.0.content`). */
  field: string;
  code: DomainErrorCode;
  message: string;
}

/** The state of an exhausted rate limit (RATE_LIMITED): lib/http states it as RateLimit-* headers. */
export interface RateLimitFacts {
  /** Attempts the window allows. */
  limit: number;
  /** Attempts left in the window (0 when exhausted). */
  remaining: number;
  /** Seconds until the window refills. */
  resetSeconds: number;
}

/** Options of a `DomainError`. */
export interface DomainErrorOptions {
  /** The input field at fault, by its public (spec) name, e.g. `task_id`. */
  field?: string;
  /** Facts for the caller, by their public names (e.g. `current_status`); become `error.*` members. */
  extra?: Record<string, unknown>;
  /** Every problem found, in the order to report them (the first is the error itself). */
  details?: DomainErrorDetail[];
  /** Seconds after which trying again may succeed (lib/http: `Retry-After`). */
  retryAfterSeconds?: number;
  /** The exhausted limit of a RATE_LIMITED error (lib/http: `RateLimit-*`). */
  rateLimit?: RateLimitFacts;
  /**
   * The failure depends on the state of something outside the request (a DNS answer, an
   * upstream service), so the same request may succeed later: an `Idempotency-Key` never keeps
   * it (lib/http/idempotency.ts), and a retry with the same key runs again.
   */
  transient?: boolean;
  cause?: unknown;
}

/** An expected failure of a domain rule; `message` is for the API caller (no secrets, no values typed by others). */
export class DomainError extends Error {
  override name = "DomainError";
  readonly code: DomainErrorCode;
  readonly field: string | undefined;
  readonly extra: Record<string, unknown>;
  readonly details: DomainErrorDetail[];
  readonly retryAfterSeconds: number | undefined;
  readonly rateLimit: RateLimitFacts | undefined;
  readonly transient: boolean;

  constructor(code: DomainErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
    this.details = options.details ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.rateLimit = options.rateLimit;
    this.transient = options.transient ?? false;
  }
}

/** True when `error` is a `DomainError` with `code` (e.g. a CONFLICT a caller tolerates). */
export function isDomainError(error: unknown, code?: DomainErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}

/**
 * Marks a failure of storage (database, cache) raised on purpose, e.g. the rate limiter's store
 * timing out; lib/http answers it like any storage failure (503 STORAGE_ERROR).
 */
export class StorageError extends Error {
  override name = "StorageError";
}

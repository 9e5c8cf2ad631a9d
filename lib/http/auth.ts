/**
 * Authentication of the wrapper, per the operation's auth mode (lib/http/operation.ts `AuthMode`):
 * the API key (`x-api-key` or `Authorization: Bearer <key>`) and its scope, the client JWT
 * (`Authorization: Bearer <jwt>` of a client session), and Vercel Cron's bearer secret. The result
 * is the request's `Principal`, typed per mode so endpoints never assert a caller's presence.
 *
 * The key and session modules (drizzle-orm and the table definitions behind them) are imported on
 * the first request that authenticates, not with this module, which every endpoint loads
 * (cold start, docs/performance.md).
 */
import { timingSafeEqual } from "node:crypto";
import { presentedJwt } from "../auth/jwt.js";
import type { ClientPrincipal } from "../auth/sessions.js";
import { type Config, productionProfile } from "../config.js";
import { type Caller, hasScope, presentedKey } from "../keys/credentials.js";
import { csrfMatches, presentedStaffToken } from "../staff/credentials.js";
import type { StaffPrincipal } from "../staff/sessions.js";
import { ApiError, errorCodeOf } from "./errors.js";
import { type AuthMode, isPublicRead, type Operation } from "./operation.js";
import { isStorageFailure } from "./storage-failure.js";

let keysModule: Promise<typeof import("../keys/authenticate.js")> | undefined;

/**
 * Checks API key `key` against the key store (lib/keys/authenticate.ts `authenticateKey`, loaded
 * with drizzle and the tables by the first key checked): the one path of the wrapper and of MCP's
 * key arguments.
 * @returns the caller.
 * @throws DomainError UNAUTHORIZED (unknown or revoked key), FORBIDDEN (`reason: erasure_pending`);
 *   storage failures
 */
export async function checkApiKey(key: string): Promise<Caller> {
  keysModule ??= import("../keys/authenticate.js");
  return (await keysModule).authenticateKey(key);
}

let sessionsModule: Promise<typeof import("../auth/sessions.js")> | undefined;
const sessions = () => (sessionsModule ??= import("../auth/sessions.js"));

let staffModule: Promise<typeof import("../staff/sessions.js")> | undefined;

/** Methods that change nothing: a cookie-borne staff session needs no CSRF token for them. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** The caller a verified staff session acts as (lib/keys/credentials.ts `Caller.staff`). */
export function staffCaller(principal: StaffPrincipal): Caller {
  const { staff } = principal;
  return {
    keyId: staff.id,
    name: staff.displayName,
    contact: staff.email,
    scopes: [],
    isAdmin: staff.role === "owner",
    role: staff.role,
    accountId: null,
    staff: { id: staff.id, displayName: staff.displayName, sessionId: principal.sessionId },
  };
}

/**
 * The staff session of a request, for admin operations and those that declare `staffAccess`, when
 * no API key is sent (an explicit key wins over a session cookie). Elsewhere a session cookie is
 * not read (it rides along on every same-origin request) and a bearer staff token is refused.
 * @returns the staff caller, or null when the operation reads none or none is presented
 * @throws DomainError UNAUTHORIZED (session ended, staff suspended); ApiError FORBIDDEN (a
 *   cookie-borne session without its X-CSRF-Token on an unsafe method, `reason: csrf`; a bearer
 *   staff token on a requester operation, `reason: staff_session_not_accepted`)
 */
export async function authenticateStaffOf(operation: Operation, request: Request): Promise<Caller | null> {
  const presented = presentedStaffToken(request);
  if (!presented || presentedKey(request) !== undefined) return null;
  if (operation.auth !== "admin" && !operation.staffAccess) {
    // Operations that take no credential (sign-in itself, public reads) ignore it.
    if (presented.via === "cookie" || operation.auth === "none") return null;
    throw new ApiError(
      "FORBIDDEN",
      "A staff session cannot call this operation: it is for requesters (use an API key or no credential)",
      { extra: { reason: "staff_session_not_accepted" } },
    );
  }
  staffModule ??= import("../staff/sessions.js");
  const principal = await (await staffModule).verifyStaffSession(presented.token);
  if (
    presented.via === "cookie" &&
    !SAFE_METHODS.has(request.method) &&
    !csrfMatches(request, presented.token)
  ) {
    throw new ApiError(
      "FORBIDDEN",
      "A staff session sent as a cookie needs its X-CSRF-Token header on this method (from sign-in or GET /api/staff-auth)",
      { extra: { reason: "csrf" } },
    );
  }
  return staffCaller(principal);
}

/**
 * Who calls, per auth mode:
 * - `key`, `admin`: `caller` is the (scope-checked) API key;
 * - `client`: `client` is the verified client session; `caller` the key also sent, if any;
 * - `key_or_client`: at least one of them (`client` when a JWT is sent, else `caller`);
 * - `cron`: neither;
 * - `none`, `optional`, `delegated`: `caller` when a (valid) key is sent, else null.
 */
export type Principal<A extends AuthMode = AuthMode> = A extends "key" | "admin"
  ? { caller: Caller; client: null }
  : A extends "client"
    ? { caller: Caller | null; client: ClientPrincipal }
    : A extends "key_or_client"
      ? { caller: Caller; client: null } | { caller: Caller | null; client: ClientPrincipal }
      : A extends "cron"
        ? { caller: null; client: null }
        : { caller: Caller | null; client: null };

/** `Warning` value of a public read served as anonymous because its key could not be checked. */
export const KEY_NOT_CHECKED_WARNING = '199 - "API key not checked: storage unavailable"';

/**
 * The key check of a public read, bounded by KEY_CHECK_TIMEOUT_MS: a storage failure or
 * timeout gives null (serve as anonymous) instead of 503, so the status and public reads keep
 * answering during an outage (docs/development.md "Platform status").
 * @throws ApiError UNAUTHORIZED for a key that was checked and refused.
 */
async function checkKeyOfPublicRead(key: string, config: Config): Promise<Caller | null> {
  let timer: NodeJS.Timeout | undefined;
  const check = checkApiKey(key);
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), config.KEY_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check, timeout]);
  } catch (error) {
    if (isStorageFailure(error)) return null;
    throw error;
  } finally {
    clearTimeout(timer);
    check.catch(() => {}); // a check that lost the race may still fail later
  }
}

function addWarning(headers: Record<string, string>, warning: string): void {
  headers.warning = headers.warning ? `${headers.warning}, ${warning}` : warning;
}

/**
 * Authenticates per `operation.auth` and checks its scope. A credential that is sent
 * must be valid even where none is required, except that a public read whose key cannot be
 * checked (storage down or slow) is served as anonymous with `Warning: 199 - "API key not
 * checked: storage unavailable"` added to `extraHeaders`. Missing `billing_read` → 401 (the
 * spec says so); other missing scopes → 403 FORBIDDEN.
 * @throws ApiError UNAUTHORIZED, FORBIDDEN; storage failures of the key check (→ 503) except on public reads
 */
export async function authenticateKeyOf(
  operation: Operation,
  request: Request,
  config: Config,
  extraHeaders: Record<string, string>,
): Promise<Caller | null> {
  const key = presentedKey(request);
  if (key === undefined || key === "") {
    if (operation.auth === "key" || operation.auth === "admin") {
      throw new ApiError(
        "UNAUTHORIZED",
        "An API key is required: x-api-key: <key> or Authorization: Bearer <key>",
      );
    }
    return null;
  }
  if (operation.auth === "delegated") {
    try {
      return await checkApiKey(key);
    } catch (error) {
      if (errorCodeOf(error) === "UNAUTHORIZED") return null;
      throw error;
    }
  }
  if (isPublicRead(operation)) {
    const checked = await checkKeyOfPublicRead(key, config);
    if (!checked) {
      addWarning(extraHeaders, KEY_NOT_CHECKED_WARNING);
      return null;
    }
    return checkScope(operation, checked);
  }
  return checkScope(operation, await checkApiKey(key));
}

/**
 * The client session of a request for the JWT modes, checked after the key (so a bad key is
 * refused first, as everywhere): `client` requires the JWT; `key_or_client` uses it when sent
 * (a JWT that is sent must be valid even with a valid key) and otherwise requires the key. Other
 * modes never read the JWT.
 * @throws ApiError UNAUTHORIZED (credential missing; for a bad JWT see verifyClientSession)
 */
export async function authenticateClientOf(
  operation: Operation,
  request: Request,
  caller: Caller | null,
): Promise<ClientPrincipal | null> {
  if (operation.auth !== "client" && operation.auth !== "key_or_client") return null;
  const jwt = presentedJwt(request);
  if (jwt) return (await sessions()).verifyClientSession(jwt);
  if (operation.auth === "client") {
    throw new ApiError(
      "UNAUTHORIZED",
      "Sign in first: send Authorization: Bearer <jwt> from POST /api/client-auth?action=login",
    );
  }
  if (!caller) {
    throw new ApiError(
      "UNAUTHORIZED",
      "Send an API key (x-api-key) or the client token (Authorization: Bearer <jwt> from POST /api/client-auth)",
    );
  }
  return null;
}

/**
 * The principal of a request (see `Principal`) for every mode but `cron` (`authorizeCron`): a staff
 * session per `authenticateStaffOf`, else the key per `authenticateKeyOf`, then the client JWT per
 * `authenticateClientOf`.
 * @throws ApiError UNAUTHORIZED, FORBIDDEN; storage failures (→ 503) except a public read's key check
 */
export async function authenticate(
  operation: Operation,
  request: Request,
  config: Config,
  extraHeaders: Record<string, string>,
): Promise<Principal> {
  const staff = await authenticateStaffOf(operation, request);
  if (staff) return { caller: staff, client: null } as Principal;
  const caller = await authenticateKeyOf(operation, request, config, extraHeaders);
  const client = await authenticateClientOf(operation, request, caller);
  return { caller, client } as Principal;
}

/**
 * `authenticate`'s answer, decided without waiting, for a request that presents no credential at
 * all (no `Authorization`, no `x-api-key`, no staff session cookie) to an operation that requires
 * none (`none`, `optional`, `delegated`): no caller, no client. Undefined otherwise (run
 * `authenticate`).
 */
export function principalWithoutCredential(operation: Operation, request: Request): Principal | undefined {
  const mode = operation.auth;
  if (mode !== "none" && mode !== "optional" && mode !== "delegated") return undefined;
  const headers = request.headers;
  if (headers.get("authorization") !== null || headers.get("x-api-key") !== null) return undefined;
  if (presentedStaffToken(request) !== undefined) return undefined;
  return { caller: null, client: null };
}

/**
 * Returns `caller` when it may call `operation`.
 * @throws ApiError FORBIDDEN (admin or scope missing), UNAUTHORIZED (billing_read missing)
 */
function checkScope(operation: Operation, caller: Caller): Caller {
  if (operation.auth === "admin" && !caller.isAdmin && !caller.staff) {
    throw new ApiError("FORBIDDEN", "This operation requires a key with the admin scope");
  }
  const scope = operation.scope;
  if (scope && !hasScope(caller, scope)) {
    if (scope === "billing_read") {
      throw new ApiError("UNAUTHORIZED", "This key lacks the billing_read scope required for billing");
    }
    throw new ApiError("FORBIDDEN", `This operation requires the ${scope} scope`);
  }
  return caller;
}

/**
 * Scheduled jobs: `Authorization: Bearer CRON_SECRET` as Vercel Cron sends it; without
 * a secret configured, allowed only in a loopback/embedded development run (lib/config.ts
 * `productionProfile`; the profile itself refuses to serve without CRON_SECRET).
 * @throws ApiError UNAUTHORIZED
 */
export function authorizeCron(request: Request, config: Config): void {
  const secret = config.CRON_SECRET;
  if (!secret) {
    if (!productionProfile(config).active) return;
    throw new ApiError("UNAUTHORIZED", "CRON_SECRET is not configured; scheduled jobs are refused");
  }
  if (!timingSafeEqualString(request.headers.get("authorization") ?? "", `Bearer ${secret}`)) {
    throw new ApiError("UNAUTHORIZED", "Missing or invalid cron secret");
  }
}

function timingSafeEqualString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

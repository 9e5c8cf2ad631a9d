/**
 * Validation of URLs the service will later call: the task's `callback_url` and webhook
 * URLs (SSRF protection at registration time).
 *
 * Rule sources: docs/api-conventions.md "Input" table (`callback_url`: max 2048 chars, must be
 * HTTPS and must not resolve to a private address), "Authentication" 10 and "Limits";
 * docs/api-conventions.md "Local development" (`ALLOW_PRIVATE_CALLBACKS=true` allows http:// and
 * loopback addresses). Delivery re-checks addresses at connect time (`safe-fetch.ts`),
 * since DNS may change between registration and delivery.
 */
import { promises as dns, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { getConfig, productionProfile } from "../config.js";
import { DomainError, type DomainErrorCode } from "../errors.js";
import { forbiddenReason } from "./ip-policy.js";

/** Resolves a host name to every address it has (the shape of `dns.promises.lookup(h, { all: true })`). */
export type LookupFn = (hostname: string) => Promise<readonly LookupAddress[]>;

/** `dns.promises.lookup(host, { all: true, verbatim: true })`: every address, in resolver order. */
export const defaultLookup: LookupFn = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** Longest accepted URL, in characters (Unicode code points), spec "Limits". */
export const MAX_OUTBOUND_URL_LENGTH = 2048;

/** Longest wait for a DNS answer before the URL is refused. */
export const LOOKUP_TIMEOUT_MS = 5000;

/** Options of `checkOutboundUrl`. */
export interface OutboundUrlOptions {
  /** Allow http:// and loopback/private addresses; default `ALLOW_PRIVATE_CALLBACKS`. */
  allowPrivate?: boolean;
  /** Host resolver (tests); default `defaultLookup`. */
  lookup?: LookupFn;
  /**
   * Code of a URL that breaks a rule (not absolute, not https, credentials, unresolvable, private
   * address); default 422 `VALIDATION_ERROR` (the general rule, e.g. `callback_url`). Webhook
   * registration passes 400 `INVALID_FORMAT`: the spec names "400 invalid URL" there.
   */
  invalidCode?: "VALIDATION_ERROR" | "INVALID_FORMAT";
}

function invalid(
  code: DomainErrorCode,
  field: string,
  message: string,
  cause?: unknown,
  transient = false,
): DomainError {
  return new DomainError(code, message, { field, details: [{ field, code, message }], cause, transient });
}

/** `hostname` of a URL without the brackets of an IPv6 literal. */
export function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

async function resolveAll(lookup: LookupFn, host: string): Promise<readonly LookupAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} timed out`)), LOOKUP_TIMEOUT_MS);
  });
  try {
    return await Promise.race([lookup(host), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * In a development run (not the production profile) where private targets are refused, the hint
 * that ALLOW_PRIVATE_CALLBACKS lifts the refusal (`npm run dev` turns it on); empty otherwise.
 */
function privateHint(allowPrivate: boolean): string {
  if (allowPrivate) return "";
  let development = false;
  try {
    development = !productionProfile().active;
  } catch {
    // an invalid environment: say nothing more
  }
  return development
    ? " (for local development, set ALLOW_PRIVATE_CALLBACKS=true to allow http:// and loopback or private addresses)"
    : "";
}

/**
 * Checks that `raw` may be called back: at most 2048 characters, an absolute `https:` URL
 * (`http:` too when `allowPrivate`), no `user:pass@`, and a host whose every address
 * passes `ip-policy.ts` (IP literals, including the decimal/octal/hex IPv4 forms the URL
 * parser normalizes, are checked directly; names are resolved).
 *
 * Store the returned URL's `href` (normalized), not `raw`.
 * @throws DomainError FIELD_TOO_LONG (422) over 2048 characters; `opts.invalidCode` (default
 *   VALIDATION_ERROR, 422) for anything else, naming `field`; a host that could not be resolved
 *   (lookup failed, timed out or gave no address) is `transient`: DNS may answer on a retry, so an
 *   `Idempotency-Key` does not keep that answer.
 */
export async function checkOutboundUrl(
  raw: string,
  field: string,
  opts: OutboundUrlOptions = {},
): Promise<URL> {
  const allowPrivate = opts.allowPrivate ?? getConfig().ALLOW_PRIVATE_CALLBACKS;
  const code = opts.invalidCode ?? "VALIDATION_ERROR";
  if (raw.length > MAX_OUTBOUND_URL_LENGTH && Array.from(raw).length > MAX_OUTBOUND_URL_LENGTH) {
    throw invalid("FIELD_TOO_LONG", field, `${field} exceeds ${MAX_OUTBOUND_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw invalid(code, field, `${field} must be an absolute URL`, cause);
  }
  if (!(url.protocol === "https:" || (allowPrivate && url.protocol === "http:"))) {
    throw invalid(code, field, `${field} must be an https:// URL${privateHint(allowPrivate)}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw invalid(code, field, `${field} must not contain a user name or password`);
  }
  const host = bareHostname(url);
  let addresses: readonly string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = (await resolveAll(opts.lookup ?? defaultLookup, host)).map((a) => a.address);
    } catch (cause) {
      throw invalid(code, field, `${field} host ${host} could not be resolved`, cause, true);
    }
    if (addresses.length === 0) {
      throw invalid(code, field, `${field} host ${host} could not be resolved`, undefined, true);
    }
  }
  if (addresses.some((a) => forbiddenReason(a, { allowPrivate }) !== undefined)) {
    throw invalid(
      code,
      field,
      `${field} resolves to a private or reserved address${privateHint(allowPrivate)}`,
    );
  }
  return url;
}

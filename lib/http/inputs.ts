/**
 * Request inputs besides the body: query parameters as an object, path parameters of `{name}`
 * segments, and the refusal of U+0000 in any of them and in the header values the service reads.
 */
import { ApiError } from "./errors.js";
import { rejectNulBytes } from "./validation.js";

/** Query parameters as an object (the last value wins for a repeated name). */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = v;
  return out;
}

const pathPatterns = new Map<string, RegExp>();

/** Extracts `{name}` segments of `template` from `pathname`. */
export function pathParams(template: string, pathname: string): Record<string, string> {
  if (!template.includes("{")) return {};
  let re = pathPatterns.get(template);
  if (!re) {
    const source = template
      .split("/")
      .map((seg) =>
        /^\{\w+\}$/.test(seg) ? `(?<${seg.slice(1, -1)}>[^/]+)` : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    re = new RegExp(`^${source}/?$`);
    pathPatterns.set(template, re);
  }
  const groups = re.exec(pathname)?.groups ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(groups)) {
    if (v !== undefined) out[k] = decodeURIComponent(v);
  }
  return out;
}

/** Request headers whose values the service reads (credentials, idempotency, identity, stream). */
export const VALUE_HEADERS = [
  "x-api-key",
  "authorization",
  "idempotency-key",
  "x-agent-identity",
  "x-service-mode",
  "last-event-id",
  "x-stream-timeout",
] as const;

/**
 * Refuses U+0000 in every query parameter (even those the operation does not declare: some are
 * read from the URL directly), in path parameters and in the header values the service reads.
 * Runs before authentication, so no layer (database, log) ever sees such a value.
 * @param query `queryObject(url)`, when the caller has it already
 * @throws ApiError 400 INVALID_FORMAT naming the parameter or header
 */
export function rejectNulInputs(
  request: Request,
  url: URL,
  template: string,
  query: Record<string, string> = queryObject(url),
): void {
  rejectNulBytes(query);
  let params: Record<string, string>;
  try {
    params = pathParams(template, url.pathname);
  } catch {
    throw new ApiError("INVALID_FORMAT", "The request path is not validly percent-encoded");
  }
  rejectNulBytes(params);
  for (const name of VALUE_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) rejectNulBytes(value, name);
  }
}

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/ §3.2 "traceparent Header"): the
 * `traceparent` a caller sends is kept with our request id on its activity row
 * (lib/activity/record-activity.ts), so a trace in the caller's system leads to our request and back.
 * Sources: the HTTP `traceparent` header, or what an endpoint found in the body
 * ({@link noteTraceparent}: an MCP request's `params._meta.traceparent`, revision 2026-07-28), which
 * wins. A malformed value is ignored, never an error: tracing is the caller's convenience.
 */

/** version "-" trace-id "-" parent-id "-" trace-flags, lowercase hex (§3.2.2); later versions may add fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * `value` when it is a valid `traceparent`, else null: version `ff` is invalid, an all-zero trace
 * or parent id is invalid, version `00` has exactly four fields (§3.2.2.1–§3.2.2.5).
 */
export function parseTraceparent(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 512) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || /^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return null;
  if (version === "00" && rest !== undefined) return null;
  return value.trim();
}

/** Traceparents endpoints found in request bodies, by request (dropped with the request). */
const noted = new WeakMap<Request, string>();

/** Records the `traceparent` `value` found in `request`'s body, when valid (it wins over the header). */
export function noteTraceparent(request: Request, value: unknown): void {
  const parsed = parseTraceparent(value);
  if (parsed) noted.set(request, parsed);
}

/** The `traceparent` of `request`: one noted from its body, else its valid header, else null. */
export function traceparentOf(request: Request): string | null {
  return noted.get(request) ?? parseTraceparent(request.headers.get("traceparent"));
}

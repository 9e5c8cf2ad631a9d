/** Response builders shared by every endpoint. */
import { ApiError, errorBody } from "./errors.js";

/** The Content-Type of every JSON response. */
export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A response whose whole body is `text`. The local host (@hono/node-server's listener) writes a
 * body built from a string in one write with its Content-Length, without a body stream.
 */
function textResponse(text: string, init: ResponseInit): Response {
  return new Response(text, init);
}

/** A JSON response with `status` (default 200) and extra `headers`. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return textResponse(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
  });
}

/**
 * A JSON response with `status` whose headers are exactly `headers`, used as given (the caller
 * includes Content-Type, `JSON_TYPE`): `json` without copying a header record built for it.
 */
export function jsonWithHeaders(body: unknown, status: number, headers: Record<string, string>): Response {
  return textResponse(JSON.stringify(body), { status, headers });
}

/**
 * A 200 download: `body` (a string, or a byte stream sent as it is produced) as `contentType`,
 * saved under `filename` (Content-Disposition attachment; the caller keeps the name to safe
 * characters, no quotes).
 */
export function attachment(
  body: string | ReadableStream<Uint8Array>,
  contentType: string,
  filename: string,
): Response {
  return new Response(body, {
    status: 200,
    headers: { "content-type": contentType, "content-disposition": `attachment; filename="${filename}"` },
  });
}

/**
 * A server-sent events response (WHATWG HTML "Server-sent events"): `body` as
 * `text/event-stream`, never cached or buffered by a proxy, with extra `headers`; a null `body`
 * answers 204 No Content, which tells EventSource not to reconnect.
 */
export function eventStream(
  body: ReadableStream<Uint8Array> | null,
  headers: Record<string, string> = {},
): Response {
  if (!body) return new Response(null, { status: 204, headers });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      ...headers,
    },
  });
}

/** The error envelope response for `error` under `requestId` (docs/api-conventions.md "Error body"). */
export function errorResponse(error: ApiError, requestId: string): Response {
  return textResponse(JSON.stringify(errorBody(error, requestId)), {
    status: error.status,
    headers: { "content-type": JSON_TYPE, "x-request-id": requestId, ...error.headers },
  });
}

/** 404 NOT_FOUND for a path no endpoint serves. */
export function routeNotFound(pathname: string, requestId: string): Response {
  return errorResponse(new ApiError("NOT_FOUND", `No endpoint at ${pathname}`), requestId);
}

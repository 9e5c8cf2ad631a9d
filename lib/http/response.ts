/** Response builders shared by every endpoint. */
import { ApiError, errorBody } from "./errors.js";

const JSON_TYPE = "application/json; charset=utf-8";

/** Bodies of responses built here, as the text they were built from. */
const bodyTexts = new WeakMap<Response, string>();

/** A response whose whole body is `text`; a host may send it with {@link completeBodyText}. */
function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(text, init);
  bodyTexts.set(response, text);
  return response;
}

/**
 * The whole body of `response` as text when it was built here from a string and has not
 * been read, so a host can write it without reading the body stream; else undefined (read
 * the body as usual).
 */
export function completeBodyText(response: Response): string | undefined {
  return response.bodyUsed ? undefined : bodyTexts.get(response);
}

/** A JSON response with `status` (default 200) and extra `headers`. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return textResponse(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
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

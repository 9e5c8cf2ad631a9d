/**
 * The exports of an `api/` file: its methods, `HEAD`, the CORS preflight `OPTIONS`, and 405
 * METHOD_NOT_ALLOWED for every other method.
 */
import { getConfig } from "../config.js";
import { ALLOWED_HEADERS, corsHeaders, withHeaders } from "./cors.js";
import { configurationRefusal } from "./error-response.js";
import { ApiError } from "./errors.js";
import type { HttpMethod } from "./operation.js";
import { newRequestId } from "./request-id.js";
import { errorResponse } from "./response.js";

/**
 * A Web-standard request handler: a `Response`, or a promise of one (Vercel's Node runtime and the
 * local host accept both; the wrapper answers at once when nothing had to wait, lib/http/handler.ts).
 */
export type Handler = (request: Request) => Response | Promise<Response>;

const ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type AnyMethod = (typeof ALL_METHODS)[number];

function methodNotAllowed(request: Request, allow: string): Response {
  const refused = configurationRefusal();
  if (refused) return refused;
  const requestId = newRequestId();
  const response = errorResponse(
    new ApiError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; allowed: ${allow}`, {
      headers: { allow },
    }),
    requestId,
  );
  return withHeaders(response, corsHeaders(request, getConfig()));
}

/**
 * The exports of an `api/` file: the given methods, `HEAD` (as GET without a body)
 * and `OPTIONS` (CORS preflight), and 405 METHOD_NOT_ALLOWED with `Allow` for the rest.
 * Use as `export const { GET, POST, HEAD, OPTIONS, PUT, PATCH, DELETE } = route({ GET: endpoint(...) })`.
 */
export function route(methods: Partial<Record<HttpMethod, Handler>>): Record<AnyMethod, Handler> {
  const own = Object.keys(methods) as HttpMethod[];
  const allowList = [...own, ...(own.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
  const allow = allowList.join(", ");
  const out = {} as Record<AnyMethod, Handler>;
  for (const m of ALL_METHODS) {
    out[m] = async (request) => methodNotAllowed(request, allow);
  }
  for (const m of own) out[m] = methods[m]!;
  const get = methods.GET;
  if (get) {
    out.HEAD = async (request) => {
      const res = await get(new Request(request.url, { method: "GET", headers: request.headers }));
      return new Response(null, { status: res.status, headers: res.headers });
    };
  }
  out.OPTIONS = async (request) => {
    const refused = configurationRefusal();
    if (refused) return refused;
    const config = getConfig();
    return new Response(null, {
      status: 204,
      headers: {
        allow,
        "access-control-allow-methods": allow,
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": "600",
        ...corsHeaders(request, config),
        "x-request-id": newRequestId(),
      },
    });
  };
  return out;
}

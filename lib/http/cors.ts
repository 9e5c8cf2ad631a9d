/**
 * CORS: the headers a response carries for its `Origin` under `CORS_ALLOWED_ORIGINS` (default
 * `*`), the preflight's allowed request headers, and the merge of header sets into a response.
 */
import type { Config } from "../config.js";

/** Request headers a preflight allows (`Access-Control-Allow-Headers`). */
export const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "x-api-key",
  "idempotency-key",
  "x-service-mode",
  "x-agent-identity",
  "last-event-id",
  "x-stream-timeout",
  // x402 (POST /api/task-pay): the signed payment, v2 and v1.
  "payment-signature",
  "x-payment",
  "x-task-access-token",
  // MCP (POST /api/mcp): the session (lib/mcp/session.ts) and the negotiated revision.
  "mcp-session-id",
  "mcp-protocol-version",
].join(", ");
const EXPOSED_HEADERS = [
  "x-request-id",
  "retry-after",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "idempotency-replayed",
  "warning",
  // A browser-based MCP client reads the resource metadata URL of a 401 from it (/mcp, OAuth).
  "www-authenticate",
  // x402 (POST /api/task-pay): what to sign, and the settlement.
  "payment-required",
  "payment-response",
  "x-payment-response",
  // MCP: the session id an initialize answer carries.
  "mcp-session-id",
].join(", ");

/** The CORS headers of any origin (`CORS_ALLOWED_ORIGINS=*`); shared, never modified. */
const ANY_ORIGIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS,
});

/** CORS_ALLOWED_ORIGINS as parsed for the last configuration seen. */
let parsedOrigins: { source: string; any: boolean; origins: Set<string> } | undefined;

function allowedOrigins(config: Config): { any: boolean; origins: Set<string> } {
  const source = config.CORS_ALLOWED_ORIGINS;
  if (parsedOrigins?.source !== source) {
    const trimmed = source.trim();
    parsedOrigins = {
      source,
      any: trimmed === "*",
      origins: new Set(trimmed.split(",").map((o) => o.trim())),
    };
  }
  return parsedOrigins;
}

/** CORS headers for `request` under the configured origins. */
export function corsHeaders(request: Request, config: Config): Readonly<Record<string, string>> {
  const allowed = allowedOrigins(config);
  if (allowed.any) return ANY_ORIGIN_HEADERS;
  const origin = request.headers.get("origin");
  if (!origin || !allowed.origins.has(origin)) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "Origin",
  };
}

/**
 * Sets each header of `sources` that `response` does not have yet; where sources share a
 * name, the first source that has it wins.
 */
export function withHeaders(response: Response, ...sources: Readonly<Record<string, string>>[]): Response {
  const headers = response.headers;
  for (const source of sources) {
    for (const k in source) {
      if (!headers.has(k)) headers.set(k, source[k]!);
    }
  }
  return response;
}

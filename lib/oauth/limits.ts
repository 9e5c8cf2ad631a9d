/**
 * The rate limits of the authorization server's endpoints (/oauth/*), keyed per client as well as
 * per IP: a hosted assistant reaches /oauth/authorize, /oauth/token and /oauth/revoke for all of its
 * users from a few shared addresses, and must not be throttled there as if it were one user.
 *
 * - A request naming a client (`client_id` in the query or the form body, or HTTP Basic) counts on
 *   the `oauth` budget of that client at that IP (OAUTH_REQUESTS_PER_IP_PER_MIN), and on the
 *   `oauth_clients_ip` ceiling of the IP, all clients together (OAUTH_CLIENT_REQUESTS_PER_IP_PER_MIN):
 *   made-up client ids cannot multiply one address's budget past the ceiling.
 * - A request naming none (the interaction pages, a registration) counts on the IP's `oauth` budget.
 * - Client registrations also count per IP per hour (`oauth_registration`, api/oauth.ts).
 *
 * IPv6 addresses count per /64 (lib/ratelimit/limiter.ts `rateLimitSubject`); a client id counts
 * by its SHA-256 (bounded keys, no URL in the limiter's storage).
 */
import { sha256Hex } from "../ids.js";
import { enforceLimits } from "../ratelimit/enforce.js";
import { type RateLimitResult, rateLimitSubject } from "../ratelimit/limiter.js";

/** Longest `client_id` read for the limit (a metadata document URL; longer ones count as given). */
const MAX_CLIENT_ID = 2048;

/**
 * The client a request to the authorization server names, if any: `client_id` in the query (the
 * authorization endpoint), in an `application/x-www-form-urlencoded` body (token, revocation), or
 * the user of HTTP Basic authentication (RFC 6749 §2.3.1).
 * @param body the request's body, already read (undefined for GET)
 * @returns the client id, or undefined when the request names none
 */
export function namedClientId(request: Request, url: URL, body?: Buffer): string | undefined {
  const fromQuery = url.searchParams.get("client_id");
  if (fromQuery) return fromQuery.slice(0, MAX_CLIENT_ID);
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "");
  if (basic) {
    const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
    const user = decoded.slice(0, Math.max(0, decoded.indexOf(":")));
    if (user) {
      try {
        return decodeURIComponent(user.replace(/\+/g, " ")).slice(0, MAX_CLIENT_ID);
      } catch {
        return user.slice(0, MAX_CLIENT_ID);
      }
    }
  }
  const type = request.headers.get("content-type") ?? "";
  if (body && body.length > 0 && /^application\/x-www-form-urlencoded/i.test(type)) {
    const fromForm = new URLSearchParams(body.toString("utf8")).get("client_id");
    if (fromForm) return fromForm.slice(0, MAX_CLIENT_ID);
  }
  return undefined;
}

/**
 * Counts one request of `ip` to the authorization server, per client when `clientId` is given (see
 * the module's description).
 * @returns the count of the tightest budget (for the RateLimit-* headers, lib/http/limits.ts
 *   `rateLimitHeaders`)
 * @throws DomainError RATE_LIMITED naming the exhausted budget (HTTP: 429 with Retry-After);
 *   StorageError when the limiter's storage fails (HTTP: 503)
 */
export function enforceOAuthLimits(ip: string, clientId: string | undefined): Promise<RateLimitResult> {
  const subject = rateLimitSubject(ip);
  return enforceLimits(
    clientId
      ? [
          {
            policy: "oauth",
            identifier: `client:${sha256Hex(clientId)}|${subject}`,
            what: "authorization server requests per client per IP per minute",
          },
          {
            policy: "oauth_clients_ip",
            identifier: subject,
            what: "authorization server requests naming a client per IP per minute, all clients together",
          },
        ]
      : [{ policy: "oauth", identifier: subject, what: "authorization server requests per IP per minute" }],
  );
}

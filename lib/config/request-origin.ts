/**
 * The origin a request reached the service at, for absolute links when no PUBLIC_BASE_URL is
 * configured (issue 44 item 7; docs/decisions.md 47): invitation and e-mail links then say
 * `http://127.0.0.1:PORT` when the service was reached there, not `http://localhost:PORT`.
 *
 * Only a host the service already trusts is used, as the OAuth issuer of a development run does
 * (lib/oauth/scopes.ts `oauthIssuer`) and the MCP endpoint's DNS-rebinding check accepts
 * (lib/mcp/handle-request.ts): a loopback host (lib/ip-address.ts `isLoopbackHost`, any port) or a
 * host listed in MCP_ALLOWED_HOSTS, read from the request's URL. Any other host is ignored, so a
 * forged Host cannot put an attacker's address into a link we e-mail. With PUBLIC_BASE_URL set,
 * or under the production profile, nothing here is used.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isLoopbackHost } from "../ip-address.js";

const storage = new AsyncLocalStorage<string>();

/**
 * The origin (`scheme://host[:port]`, lower case) `request` reached us at when it may be used for
 * links under `config`, else undefined (PUBLIC_BASE_URL set, the production profile, or a host we
 * do not trust).
 */
export function trustedRequestOrigin(
  request: Request,
  config: { PUBLIC_BASE_URL?: string | undefined; MCP_ALLOWED_HOSTS?: string | undefined },
  production: boolean,
): string | undefined {
  if (config.PUBLIC_BASE_URL || production) return undefined;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return undefined;
  }
  const host = url.host.toLowerCase();
  const allowed = (config.MCP_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const trusted = isLoopbackHost(url.hostname) || allowed.includes(host);
  if (!trusted || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  return `${url.protocol}//${host}`;
}

/** Runs `fn` with `origin` (or none) as the current request's origin. */
export function runWithRequestOrigin<T>(origin: string | undefined, fn: () => T): T {
  return origin ? storage.run(origin, fn) : fn();
}

/** The current request's trusted origin, or undefined outside a request or when untrusted. */
export function currentRequestOrigin(): string | undefined {
  return storage.getStore();
}

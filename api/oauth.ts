/**
 * /oauth/* (rewritten to /api/oauth) — the authorization server (oidc-provider, lib/oauth/provider.ts)
 * and the consent interaction (lib/oauth/consent.ts):
 * - GET /oauth/interaction/{uid}: to the consent page (public/oauth/consent.html);
 * - GET /oauth/interaction/{uid}/details: what the client asks (JSON; the interaction cookie);
 * - POST /oauth/interaction/{uid}/decision {"decision":"approve"|"deny"}: the owner's answer (approve
 *   needs the client JWT of POST /api/client-auth); answers {"redirect_to"};
 * - anything else (authorize, token, register, revoke, jwks): oidc-provider itself.
 * Every request counts on the authorization server's budgets, per client when it names one
 * (lib/oauth/limits.ts); a registration also per IP per hour, and one bringing a client secret is
 * refused (lib/oauth/registration.ts).
 */
import { ApiError } from "../lib/http/errors.js";
import { endpoint, enforceNamedLimit, readBodyText, route } from "../lib/http/handler.js";
import { rateLimitHeaders } from "../lib/http/limits.js";
import { decide, interactionView } from "../lib/oauth/consent.js";
import { enforceOAuthLimits, namedClientId } from "../lib/oauth/limits.js";
import { callNodeHandler } from "../lib/oauth/node-bridge.js";
import { oauthGetOperation, oauthPostOperation } from "../lib/oauth/operations.js";
import { getProvider } from "../lib/oauth/provider.js";
import { publicClientRegistration } from "../lib/oauth/registration.js";

/** Largest body read at /oauth/* (forms of the token and revocation endpoints, registration JSON). */
const OAUTH_BODY_LIMIT = 64 * 1024;

/**
 * The provider's answer, but its bare 404 (a path it does not serve) as the service's 404 envelope.
 * @throws ApiError NOT_FOUND
 */
function provided(response: Response, url: URL): Response {
  if (response.status === 404 && !response.headers.get("content-type")?.includes("application/json")) {
    throw new ApiError("NOT_FOUND", `No authorization server endpoint at ${url.pathname}`);
  }
  return response;
}

const INTERACTION = /^\/oauth\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(details|decision))?\/?$/;

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(oauthGetOperation, async ({ request, url, config, ip }) => {
    const interaction = INTERACTION.exec(url.pathname);
    if (interaction) {
      await enforceOAuthLimits(ip, undefined);
      const uid = interaction[1]!;
      if (interaction[2] === "details") return interactionView(request, config, uid);
      if (!interaction[2]) {
        return new Response(null, { status: 303, headers: { location: `/oauth/consent?uid=${uid}` } });
      }
      throw new ApiError("METHOD_NOT_ALLOWED", "Use POST for a decision", { headers: { allow: "POST" } });
    }
    const headers = rateLimitHeaders(await enforceOAuthLimits(ip, namedClientId(request, url)));
    const response = provided(
      await callNodeHandler((await getProvider(config, request)).callback(), request),
      url,
    );
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  }),
  POST: endpoint(oauthPostOperation, async ({ request, url, config, ip }) => {
    const interaction = INTERACTION.exec(url.pathname);
    if (interaction?.[2] === "decision") {
      await enforceOAuthLimits(ip, undefined);
      const text = await readBodyText(request, 4096);
      let decision: unknown;
      try {
        decision = (JSON.parse(text) as { decision?: unknown }).decision;
      } catch {
        decision = undefined;
      }
      if (decision !== "approve" && decision !== "deny") {
        throw new ApiError("VALIDATION_ERROR", 'decision must be "approve" or "deny"', { field: "decision" });
      }
      const { presentedJwt } = await import("../lib/auth/jwt.js");
      const jwt = presentedJwt(request);
      const owner = jwt ? await (await import("../lib/auth/sessions.js")).verifyClientSession(jwt) : null;
      return decide(request, config, interaction[1]!, decision, owner, ip);
    }
    const text = await readBodyText(request, OAUTH_BODY_LIMIT);
    let body = Buffer.from(text, "utf8");
    const headers = rateLimitHeaders(await enforceOAuthLimits(ip, namedClientId(request, url, body)));
    if (url.pathname === "/oauth/register") {
      Object.assign(headers, await enforceNamedLimit("oauth_registration", ip));
      const checked = publicClientRegistration(text);
      if ("refused" in checked) return checked.refused;
      body = Buffer.from(checked.body, "utf8");
    }
    const response = provided(
      await callNodeHandler((await getProvider(config, request)).callback(), request, undefined, body),
      url,
    );
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  }),
});

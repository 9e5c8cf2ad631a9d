/**
 * The authorization server: oidc-provider (9.x, maintained, OpenID certified) configured for MCP
 * clients (docs/decisions.md 18, 32). Its state is in Postgres (lib/oauth/adapter.ts); signing and
 * cookie keys derive from JWT_SECRET, so every function instance builds the same provider and none
 * keeps a flow in memory (the client metadata document cache is only a cache).
 *
 * - Authorization code with PKCE S256 only, for every client; `response_type=code` only.
 * - Clients: Client ID Metadata Documents (an HTTPS `client_id` whose JSON document is fetched by
 *   `fetchClientMetadata`: the SSRF-safe fetcher of webhooks, size- and time-bounded, cached per
 *   its Cache-Control between 5 minutes and an hour) and Dynamic Client Registration (RFC 7591).
 *   Public clients only (`token_endpoint_auth_method: none`; lib/oauth/registration.ts).
 * - The issuer is the public origin, or in a development run without PUBLIC_BASE_URL the loopback
 *   origin of the request (lib/oauth/scopes.ts `oauthIssuer`): one provider per issuer.
 * - Tokens are audience-bound (RFC 8707): the only resource is the MCP endpoint (`/mcp`), whose
 *   scopes are the key scopes but `admin`. Access tokens are opaque (their row is the check, so
 *   revocation is immediate); refresh tokens rotate on every use; RFC 7009 revocation.
 * - The interaction (sign-in and consent) is the page /oauth/interaction/{uid} (lib/oauth/consent.ts).
 */
import { createPrivateKey, hkdfSync } from "node:crypto";
import type { Configuration, KoaContextWithOIDC, default as ProviderClass } from "oidc-provider";
import { DEV_JWT_SECRET } from "../auth/jwt.js";
import { type Config, productionProfile } from "../config.js";
import { isLoopbackHost } from "../ip-address.js";
import { safeFetch } from "../net/safe-fetch.js";
import { DrizzleAdapter } from "./adapter.js";
import { OAUTH_RESOURCE_PATH, OAUTH_SCOPES, oauthIssuer } from "./scopes.js";

/** Path prefix of the authorization server's endpoints. */
export const OAUTH_PREFIX = "/oauth";

/** A refresh token's (and a grant's) lifetime, seconds: 30 days. */
const REFRESH_TTL = 30 * 24 * 3600;

/**
 * Whether client metadata documents may live on loopback or private addresses: only in a
 * development or test run with ALLOW_PRIVATE_CALLBACKS (the setting that already lets callbacks
 * reach local servers; refused in production).
 */
export function clientMetadataMayBeLocal(config: Config): boolean {
  return config.ALLOW_PRIVATE_CALLBACKS && !productionProfile(config).active;
}

/**
 * The provider's `fetch` for client metadata documents: lib/net/safe-fetch.ts (private addresses
 * refused at connect time, no redirects), bounded by OAUTH_CLIENT_METADATA_TIMEOUT_MS. In a
 * development or test run that allows local addresses, an `https://` client id on a loopback host is
 * fetched over plain http (a test serves its document on 127.0.0.1 without a certificate).
 */
export function clientMetadataFetcher(config: Config) {
  return async (url: string | URL, options: RequestInit & { dispatcher?: unknown }): Promise<Response> => {
    const local = clientMetadataMayBeLocal(config);
    const target = new URL(url);
    if (local && target.protocol === "https:" && isLoopbackHost(target.hostname)) target.protocol = "http:";
    const { dispatcher: _ignored, ...init } = options;
    return safeFetch(target, {
      ...init,
      timeoutMs: config.OAUTH_CLIENT_METADATA_TIMEOUT_MS,
      allowPrivate: local,
      requireHttps: !local,
    });
  };
}

/** The Ed25519 signing key and the cookie key, derived from JWT_SECRET (the same on every instance). */
function derivedKeys(config: Config) {
  const secret = config.JWT_SECRET ?? DEV_JWT_SECRET;
  const cookieKey = Buffer.from(hkdfSync("sha256", secret, "oauth", "oauth-cookie-key", 32)).toString(
    "base64url",
  );
  const seed = Buffer.from(hkdfSync("sha256", secret, "oauth", "oauth-signing-ed25519", 32));
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const jwk = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({ format: "jwk" });
  return { cookieKey, jwk: { ...jwk, alg: "EdDSA", use: "sig", kid: "oauth-ed25519-1" } };
}

/** The provider's configuration under `config` for `issuer` (the resource is `/mcp` on its origin). */
async function configuration(config: Config, issuer: string): Promise<Configuration> {
  const { errors } = await import("oidc-provider");
  const resource = `${issuer}${OAUTH_RESOURCE_PATH}`;
  const { cookieKey, jwk } = derivedKeys(config);
  return {
    adapter: DrizzleAdapter as unknown as Configuration["adapter"],
    clients: [],
    jwks: { keys: [jwk as never] },
    cookies: {
      keys: [cookieKey],
      long: { signed: true, sameSite: "lax" },
      short: { signed: true, sameSite: "lax" },
    },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`,
      token: `${OAUTH_PREFIX}/token`,
      registration: `${OAUTH_PREFIX}/register`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      jwks: `${OAUTH_PREFIX}/jwks`,
      userinfo: `${OAUTH_PREFIX}/userinfo`,
      end_session: `${OAUTH_PREFIX}/logout`,
      introspection: `${OAUTH_PREFIX}/introspect`,
      pushed_authorization_request: `${OAUTH_PREFIX}/par`,
      code_verification: `${OAUTH_PREFIX}/device`,
      device_authorization: `${OAUTH_PREFIX}/device/auth`,
      backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
      challenge: `${OAUTH_PREFIX}/challenge`,
    },
    responseTypes: ["code"],
    // Public clients only (OAuth 2.1 §2.1, decision 18): no client secret is issued or accepted.
    // A registration (RFC 7591) or a metadata document asking for another method is refused with
    // `invalid_client_metadata`; the metadata's token_endpoint_auth_methods_supported says ["none"].
    clientAuthMethods: ["none"],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "EdDSA",
    },
    enabledJWA: { idTokenSigningAlgValues: ["EdDSA"] },
    scopes: ["openid", "offline_access"],
    claims: { openid: ["sub"] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) {
            throw new errors.InvalidTarget(`unknown resource ${indicator}; the only resource is ${resource}`);
          }
          return {
            scope: OAUTH_SCOPES.join(" "),
            audience: resource,
            accessTokenFormat: "opaque",
            accessTokenTTL: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
          };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: "draft-02",
        cacheDuration: { min: 300, max: 3600 },
      },
    } as Configuration["features"],
    fetch: clientMetadataFetcher(config) as unknown as Configuration["fetch"],
    fetchResponseBodyLimits: { "client_id metadata document": config.OAUTH_CLIENT_METADATA_MAX_BYTES },
    interactions: { url: (_ctx, interaction) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
    // The OAuth subject is the client account; the grant's API key is found from the grant.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TTL,
      Grant: REFRESH_TTL,
      Interaction: 600,
      Session: 600,
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = "application/json";
      ctx.body = out;
    },
  } as Configuration;
}

/** Providers by issuer, for one configuration (one issuer, or a few loopback origins in development). */
let cached: { config: Config; providers: Map<string, Promise<ProviderClass>> } | undefined;

/**
 * The provider for `config` and the issuer `request` came to (lib/oauth/scopes.ts `oauthIssuer`:
 * PUBLIC_BASE_URL, or in a development run without it the loopback origin of the request), built
 * once per configuration and issuer.
 * @param request the request being served; without it, the configured issuer
 */
export function getProvider(config: Config, request?: Request): Promise<ProviderClass> {
  const issuer = oauthIssuer(config, request);
  if (cached?.config !== config) cached = { config, providers: new Map() };
  const providers = cached.providers;
  const known = providers.get(issuer);
  if (known) return known;
  // Loopback Host values with any port each get a provider in development: keep a handful.
  if (providers.size >= 8) providers.clear();
  const provider = (async () => {
    const { default: Provider } = await import("oidc-provider");
    const built = new Provider(issuer, await configuration(config, issuer));
    built.proxy = true;
    return built;
  })();
  providers.set(issuer, provider);
  provider.catch(() => {
    if (providers.get(issuer) === provider) providers.delete(issuer);
  });
  return provider;
}

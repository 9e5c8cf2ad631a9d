/**
 * The pieces of an OAuth test: a loopback server for client ID metadata documents and redirects, a
 * cookie jar, an in-memory OAuthClientProvider for the MCP SDK's `auth()`, and the consent step
 * driven over HTTP as the consent page (public/oauth/consent.js) drives it.
 */
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** A loopback HTTP server: `routes` by path, each a handler. */
export async function startLoopback(
  routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse, base: string) => void>,
): Promise<{ base: string; port: number; close: () => Promise<void> }> {
  let base = "";
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const route = routes[path];
    if (route) route(req, res, base);
    else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  base = `127.0.0.1:${port}`;
  return {
    base,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by name, sent with every request (the flow stays on one origin). */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  /** fetch with the jar's cookies, no redirect followed. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.header());
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    this.store(response);
    return response;
  }
}

/** An in-memory OAuth client of the MCP SDK: it records the authorization URL instead of opening a browser. */
export class TestOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUri: string,
    readonly clientMetadataUrl: string | undefined,
    readonly name = "Test Assistant",
  ) {}

  get redirectUrl(): string {
    return this.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The client metadata document of a client whose id is `https://{base}{path}`. */
export function metadataDocument(base: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: `https://${base}${path}`,
    client_name: "Test Assistant",
    redirect_uris: [`http://${base}/callback`],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  };
}

/** The outcome of the browser part of the flow: the redirect back to the client. */
export interface BrowserOutcome {
  /** The final redirect to the client's redirect_uri, parsed. */
  callback: URL;
  code: string | null;
  error: string | null;
}

/**
 * Opens `authorizationUrl` as a browser would, signs the owner in with `jwt` (null: nobody signs in)
 * and answers `decision` on the consent step; returns where the server sends the browser back.
 */
export async function consentOverHttp(
  hostUrl: string,
  authorizationUrl: URL | string,
  jwt: string | null,
  decision: "approve" | "deny",
  jar = new CookieJar(),
): Promise<BrowserOutcome & { details: Record<string, any>; jar: CookieJar }> {
  const start = await jar.fetch(String(authorizationUrl));
  if (start.status !== 303) throw new Error(`authorize: ${start.status} ${await start.text()}`);
  const interaction = new URL(start.headers.get("location")!, hostUrl);
  const uid = interaction.pathname.split("/").pop()!;
  const page = await jar.fetch(interaction.href);
  if (page.status !== 303) throw new Error(`interaction page: ${page.status}`);
  const details = await jar.fetch(`${hostUrl}/oauth/interaction/${uid}/details`);
  const view = (await details.json()) as Record<string, any>;
  if (details.status !== 200) throw new Error(`details: ${details.status} ${JSON.stringify(view)}`);
  const answer = await jar.fetch(`${hostUrl}/oauth/interaction/${uid}/decision`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
    body: JSON.stringify({ decision }),
  });
  const body = (await answer.json()) as { redirect_to?: string };
  if (answer.status !== 200) throw new Error(`decision: ${answer.status} ${JSON.stringify(body)}`);
  const resumed = await jar.fetch(new URL(body.redirect_to!, hostUrl).href);
  if (resumed.status !== 303) throw new Error(`resume: ${resumed.status} ${await resumed.text()}`);
  const callback = new URL(resumed.headers.get("location")!, hostUrl);
  return {
    callback,
    code: callback.searchParams.get("code"),
    error: callback.searchParams.get("error"),
    details: view,
    jar,
  };
}

/** A PKCE pair (S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** An authorization request URL of `clientId` on `hostUrl` (PKCE S256, the /mcp resource by default). */
export function authorizeUrl(
  hostUrl: string,
  clientId: string,
  redirectUri: string,
  challenge: string,
  extra: Record<string, string> = {},
): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "task_create audit_only",
    resource: `${hostUrl}/mcp`,
    state: "st-1",
    ...extra,
  });
  return `${hostUrl}/oauth/authorize?${params}`;
}

/** POST /oauth/token (or another form endpoint) with `form`; the status and JSON answer. */
export async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}

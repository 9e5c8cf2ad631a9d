/**
 * The interaction of the authorization server: the consent page (public/oauth/consent.html) reads
 * what is asked (`interactionDetails`) and sends the account owner's answer (`decide`). The owner
 * signs in with the client login (POST /api/client-auth) and sends its JWT with the decision.
 *
 * Approving creates an API key linked to the account, named after the client, with the granted
 * scopes (or reuses the client's active key there, see `grantKey`), and an oidc-provider Grant for the MCP resource backed by that key (`oauth_grant_keys`):
 * the client then acts like a key of the account (it bills and reads only that account), appears in
 * the dashboard's key list, and its "revoke" ends the grant. Denying finishes the flow with
 * `access_denied`; nothing is granted.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { ClientPrincipal } from "../auth/sessions.js";
import type { Config } from "../config.js";
import { getDb } from "../db/client.js";
import type { Scope } from "../db/schema/enums.js";
import { apiKeys, oauthGrantKeys } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { createApiKey } from "../keys/create-api-key.js";
import { collectingResponse, nodeRequestOf } from "./node-bridge.js";
import { getProvider } from "./provider.js";
import { OAUTH_SCOPES, oauthResource } from "./scopes.js";

/** What the consent page shows. */
export interface InteractionView {
  uid: string;
  prompt: string;
  client: {
    client_id: string;
    client_name: string | null;
    client_uri: string | null;
    logo_uri: string | null;
  };
  scopes: Scope[];
  resource: string;
}

/** The interaction of `request` (its cookie), or 400 `INVALID_FORMAT`-like refusal when it is gone. */
async function interactionOf(request: Request, config: Config) {
  const provider = await getProvider(config);
  const req = nodeRequestOf(request);
  const { res } = collectingResponse(req);
  try {
    return { provider, interaction: await provider.interactionDetails(req, res), req, res };
  } catch {
    throw new DomainError(
      "NOT_FOUND",
      "This authorization request has expired or was opened in another browser; start again from the client",
    );
  }
}

/** The scopes of the interaction that this service grants (the requested ones among OAUTH_SCOPES). */
function requestedScopes(scope: unknown): Scope[] {
  const asked = typeof scope === "string" ? scope.split(" ").filter(Boolean) : [];
  const granted = OAUTH_SCOPES.filter((s) => asked.includes(s));
  return granted.length > 0 ? granted : ["audit_only", "task_create"];
}

/**
 * The API key that backs a new grant of `clientId` on the owner's account: the client's active key
 * there, its scopes set to this consent's (the latest consent defines what the client may do), or a
 * new key named after the client. One client is one key in the dashboard, however often it
 * reconnects; revoking it ends all of the client's grants.
 */
async function grantKey(
  owner: ClientPrincipal,
  clientId: string,
  name: string,
  scopes: Scope[],
  ip: string,
): Promise<string> {
  const db = await getDb();
  const [existing] = await db
    .select({ id: apiKeys.id })
    .from(oauthGrantKeys)
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrantKeys.keyId))
    .where(
      and(
        eq(oauthGrantKeys.accountId, owner.account.id),
        eq(oauthGrantKeys.clientId, clientId),
        eq(apiKeys.accountId, owner.account.id),
        isNull(apiKeys.revokedAt),
      ),
    )
    .limit(1);
  if (existing) {
    const [updated] = await db
      .update(apiKeys)
      .set({ scopes })
      .where(and(eq(apiKeys.id, existing.id), isNull(apiKeys.revokedAt)))
      .returning({ keyHash: apiKeys.keyHash });
    if (updated) {
      const { forgetCachedKey } = await import("../keys/authenticate.js");
      await forgetCachedKey(updated.keyHash);
      return existing.id;
    }
  }
  const key = await createApiKey({
    name: `${name} (OAuth)`.slice(0, 100),
    contact: owner.account.email,
    scopes,
    accountId: owner.account.id,
    ip,
  });
  return key.key_id;
}

/** The consent page's view of the pending request whose cookie `request` carries. */
export async function interactionView(
  request: Request,
  config: Config,
  uid: string,
): Promise<InteractionView> {
  const { provider, interaction } = await interactionOf(request, config);
  if (interaction.uid !== uid) throw new DomainError("NOT_FOUND", "Unknown authorization request");
  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client) throw new DomainError("NOT_FOUND", "The client of this request is no longer known");
  const meta = client.metadata() as Record<string, unknown>;
  return {
    uid: interaction.uid,
    prompt: interaction.prompt.name,
    client: {
      client_id: clientId,
      client_name: typeof meta.client_name === "string" ? meta.client_name : null,
      client_uri: typeof meta.client_uri === "string" ? meta.client_uri : null,
      logo_uri: typeof meta.logo_uri === "string" ? meta.logo_uri : null,
    },
    scopes: requestedScopes(interaction.params.scope),
    resource: oauthResource(config),
  };
}

/**
 * Records the owner's answer and returns where the browser goes next (the authorization endpoint,
 * which redirects to the client with a code or `error=access_denied`).
 */
export async function decide(
  request: Request,
  config: Config,
  uid: string,
  decision: "approve" | "deny",
  owner: ClientPrincipal | null,
  ip: string,
): Promise<{ redirect_to: string }> {
  const { provider, interaction, req, res } = await interactionOf(request, config);
  if (interaction.uid !== uid) throw new DomainError("NOT_FOUND", "Unknown authorization request");
  if (decision === "deny") {
    const redirect = await provider.interactionResult(
      req,
      res,
      { error: "access_denied", error_description: "The account owner denied the request" },
      { mergeWithLastSubmission: false },
    );
    return { redirect_to: redirect };
  }
  if (!owner) throw new DomainError("UNAUTHORIZED", "Sign in as the account owner to approve");
  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client) throw new DomainError("NOT_FOUND", "The client of this request is no longer known");
  const name = (client.metadata() as { client_name?: string }).client_name ?? clientId;
  const scopes = requestedScopes(interaction.params.scope);
  const keyId = await grantKey(owner, clientId, name, scopes, ip);
  const grant = new provider.Grant({ accountId: owner.account.id, clientId });
  grant.addResourceScope(oauthResource(config), scopes.join(" "));
  const asked = String(interaction.params.scope ?? "").split(" ");
  const oidcScopes = ["openid", "offline_access"].filter((s) => asked.includes(s));
  if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(" "));
  const grantId = await grant.save();
  const db = await getDb();
  await db.insert(oauthGrantKeys).values({ grantId, keyId, accountId: owner.account.id, clientId });
  const redirect = await provider.interactionResult(req, res, {
    login: { accountId: owner.account.id, remember: false },
    consent: { grantId },
  });
  return { redirect_to: redirect };
}

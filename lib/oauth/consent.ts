/**
 * The interaction of the authorization server: the consent page (public/oauth/consent.html) reads
 * what is asked (`interactionDetails`) and sends the account owner's answer (`decide`). The owner
 * signs in with the client login (POST /api/client-auth) and sends its JWT with the decision.
 *
 * Approving creates an API key linked to the account, named after the client, with the granted
 * scopes, and an oidc-provider Grant for the MCP resource backed by that key (`oauth_grant_keys`);
 * a client that consents again reuses both and gains the new scopes (`grantFor`):
 * the client then acts like a key of the account (it bills and reads only that account), appears in
 * the dashboard's key list, and its "revoke" ends the grant. Denying finishes the flow with
 * `access_denied`; nothing is granted.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
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
  const provider = await getProvider(config, request);
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
 * The API key and the oidc-provider Grant of `clientId` on the owner's account after this consent.
 * One client is one key in the dashboard and one grant, however often it consents: the client's
 * active key (and its grant, when the grant still exists) is reused, and a consent ADDS its scopes to
 * both (a step-up consent for a missing scope keeps what was granted before). A new key named after
 * the client, and a new grant, only for a client without an active key (first consent, or after the
 * owner revoked it: revoking is how scopes are taken back).
 * @returns the key's id and the id of the grant to finish the interaction with (saved)
 */
async function grantFor(
  provider: Awaited<ReturnType<typeof getProvider>>,
  owner: ClientPrincipal,
  clientId: string,
  name: string,
  scopes: Scope[],
  oidcScopes: string[],
  resource: string,
  ip: string,
): Promise<{ keyId: string; grantId: string }> {
  const db = await getDb();
  const rows = await db
    .select({ id: apiKeys.id, scopes: apiKeys.scopes, grantId: oauthGrantKeys.grantId })
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
    .orderBy(desc(oauthGrantKeys.createdAt));
  let keyId: string | undefined;
  const existing = rows[0];
  if (existing) {
    const union = OAUTH_SCOPES.filter((s) => scopes.includes(s) || existing.scopes.includes(s));
    const [updated] = await db
      .update(apiKeys)
      .set({ scopes: union })
      .where(and(eq(apiKeys.id, existing.id), isNull(apiKeys.revokedAt)))
      .returning({ keyHash: apiKeys.keyHash });
    if (updated) {
      const { forgetCachedKey } = await import("../keys/authenticate.js");
      await forgetCachedKey(updated.keyHash);
      keyId = existing.id;
    }
  }
  // The client's live grant, if any (a grant past its lifetime, or revoked, is not found).
  let grant: InstanceType<typeof provider.Grant> | undefined;
  if (keyId) {
    for (const row of rows) {
      const found = await provider.Grant.find(row.grantId);
      if (found && found.accountId === owner.account.id && found.clientId === clientId) {
        grant = found;
        break;
      }
    }
  }
  keyId ??= (
    await createApiKey({
      name: `${name} (OAuth)`.slice(0, 100),
      contact: owner.account.email,
      scopes,
      accountId: owner.account.id,
      ip,
    })
  ).key_id;
  const isNew = !grant;
  grant ??= new provider.Grant({ accountId: owner.account.id, clientId });
  grant.addResourceScope(resource, scopes.join(" "));
  if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(" "));
  const grantId = await grant.save();
  if (isNew) {
    await db.insert(oauthGrantKeys).values({ grantId, keyId, accountId: owner.account.id, clientId });
  }
  return { keyId, grantId };
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
    resource: oauthResource(config, request),
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
  const asked = String(interaction.params.scope ?? "").split(" ");
  const oidcScopes = ["openid", "offline_access"].filter((s) => asked.includes(s));
  const { grantId } = await grantFor(
    provider,
    owner,
    clientId,
    name,
    scopes,
    oidcScopes,
    oauthResource(config, request),
    ip,
  );
  const redirect = await provider.interactionResult(req, res, {
    login: { accountId: owner.account.id, remember: false },
    consent: { grantId },
  });
  return { redirect_to: redirect };
}

/**
 * The storage adapter of oidc-provider (its `Adapter` contract) on the `oauth_artifacts` table through
 * drizzle: every code, token, grant, session and interaction is a row, so any function instance
 * serves any step of a flow. A grant whose backing API key was revoked (the dashboard's "revoke") is
 * not found, so its refresh tokens stop working at once; revoking a grant (RFC 7009 revocation of a
 * refresh token) deletes its artifacts and revokes the backing key.
 */
import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { apiKeys, oauthArtifacts, oauthGrantKeys } from "../db/schema/index.js";
import { sha256Hex } from "../ids.js";

type Payload = Record<string, unknown>;

/** Artifacts that belong to a grant (revoked with it). */
const GRANTABLE = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
]);

/**
 * Models whose id is a bearer secret (an opaque token, a code, a session cookie): stored as its
 * SHA-256, so the table alone never yields a usable token (as API keys and session tokens are
 * stored). Grants and clients keep their ids (not credentials; grants are joined by id).
 */
const HASHED_IDS = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "ClientCredentials",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  "Session",
  "Interaction",
  "PushedAuthorizationRequest",
  "ReplayDetection",
]);

/** The oidc-provider adapter for one model (`name`). */
export class DrizzleAdapter {
  constructor(readonly name: string) {}

  /** The stored id of artifact `id` (its SHA-256 for bearer secrets, see HASHED_IDS). */
  private key(id: string): string {
    return HASHED_IDS.has(this.name) ? sha256Hex(id) : id;
  }

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const db = await getDb();
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    const values = {
      kind: this.name,
      id: this.key(id),
      payload,
      grantId:
        GRANTABLE.has(this.name) || this.name === "Grant" ? ((payload.grantId as string) ?? null) : null,
      uid: (payload.uid as string | undefined) ?? null,
      userCode: (payload.userCode as string | undefined) ?? null,
      expiresAt,
    };
    await db
      .insert(oauthArtifacts)
      .values(values)
      .onConflictDoUpdate({
        target: [oauthArtifacts.kind, oauthArtifacts.id],
        set: { payload, grantId: values.grantId, uid: values.uid, userCode: values.userCode, expiresAt },
      });
  }

  private async findWhere(where: ReturnType<typeof eq>): Promise<Payload | undefined> {
    const db = await getDb();
    const now = new Date();
    const [row] = await db
      .select()
      .from(oauthArtifacts)
      .where(
        and(
          eq(oauthArtifacts.kind, this.name),
          where,
          or(isNull(oauthArtifacts.expiresAt), gt(oauthArtifacts.expiresAt, now)),
        ),
      );
    if (!row) return undefined;
    if (this.name === "Grant" && !(await grantKeyActive(row.id))) return undefined;
    return {
      ...row.payload,
      ...(row.consumedAt ? { consumed: Math.floor(row.consumedAt.getTime() / 1000) } : {}),
    };
  }

  find(id: string): Promise<Payload | undefined> {
    return this.findWhere(eq(oauthArtifacts.id, this.key(id)));
  }

  findByUid(uid: string): Promise<Payload | undefined> {
    return this.findWhere(eq(oauthArtifacts.uid, uid));
  }

  findByUserCode(userCode: string): Promise<Payload | undefined> {
    return this.findWhere(eq(oauthArtifacts.userCode, userCode));
  }

  async consume(id: string): Promise<void> {
    const db = await getDb();
    await db
      .update(oauthArtifacts)
      .set({ consumedAt: new Date() })
      .where(and(eq(oauthArtifacts.kind, this.name), eq(oauthArtifacts.id, this.key(id))));
  }

  async destroy(id: string): Promise<void> {
    const db = await getDb();
    await db
      .delete(oauthArtifacts)
      .where(and(eq(oauthArtifacts.kind, this.name), eq(oauthArtifacts.id, this.key(id))));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const db = await getDb();
    await db
      .delete(oauthArtifacts)
      .where(and(eq(oauthArtifacts.kind, this.name), eq(oauthArtifacts.grantId, grantId)));
    await revokeGrantKey(grantId);
  }
}

/** Whether the API key backing grant `grantId` is still active (a grant without one is not). */
async function grantKeyActive(grantId: string): Promise<boolean> {
  const db = await getDb();
  const [row] = await db
    .select({ revokedAt: apiKeys.revokedAt })
    .from(oauthGrantKeys)
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrantKeys.keyId))
    .where(eq(oauthGrantKeys.grantId, grantId));
  return Boolean(row && !row.revokedAt);
}

/** Revokes the API key backing grant `grantId` (idempotent) and forgets it on this instance. */
export async function revokeGrantKey(grantId: string): Promise<void> {
  const db = await getDb();
  const [link] = await db
    .select({ keyId: oauthGrantKeys.keyId })
    .from(oauthGrantKeys)
    .where(eq(oauthGrantKeys.grantId, grantId));
  if (!link) return;
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, link.keyId), isNull(apiKeys.revokedAt)))
    .returning({ keyHash: apiKeys.keyHash });
  if (revoked) {
    const { forgetCachedKey } = await import("../keys/authenticate.js");
    await forgetCachedKey(revoked.keyHash);
  }
}

/**
 * Deletes the authorization server's artifacts past their expiry (codes, tokens, sessions,
 * interactions, grants); registered clients, which have none, stay. Run by the expire-payments job.
 * @returns how many rows were deleted
 */
export async function purgeExpiredOauthArtifacts(now = new Date()): Promise<number> {
  const db = await getDb();
  const deleted = await db
    .delete(oauthArtifacts)
    .where(lt(oauthArtifacts.expiresAt, now))
    .returning({ id: oauthArtifacts.id });
  return deleted.length;
}

import { index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";

/**
 * The authorization server's artifacts (lib/oauth/adapter.ts, the storage adapter of oidc-provider):
 * authorization codes, access and refresh tokens, grants, sessions, interactions, registered clients,
 * replay records. One row per artifact, keyed by the library's model name and id; `payload` is what
 * the library stores. Nothing of the flow lives in a function's memory between requests.
 */
export const oauthArtifacts = pgTable(
  "oauth_artifacts",
  {
    /** The oidc-provider model: `AuthorizationCode`, `AccessToken`, `RefreshToken`, `Grant`, `Session`, `Interaction`, `Client`, … */
    kind: text("kind").notNull(),
    /** The artifact's id; for bearer secrets (tokens, codes, sessions) its SHA-256 (lib/oauth/adapter.ts). */
    id: text("id").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** The grant the artifact belongs to (codes and tokens): revoking a grant deletes them all. */
    grantId: text("grant_id"),
    /** Sessions are also found by their `uid`. */
    uid: text("uid"),
    /** Device flow user codes (unused here; part of the adapter contract). */
    userCode: text("user_code"),
    /** Past it the artifact is gone for the library. */
    expiresAt: timestamptz("expires_at"),
    /** Set when a code or a rotated refresh token is used; the library refuses a consumed one. */
    consumedAt: timestamptz("consumed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: "oauth_artifacts_pk", columns: [t.kind, t.id] }),
    index("oauth_artifacts_grant_id_idx").on(t.grantId),
    index("oauth_artifacts_uid_idx").on(t.uid),
    index("oauth_artifacts_expires_at_idx").on(t.expiresAt),
  ],
);

/**
 * A consented OAuth grant is backed by an API key linked to the consenting account (named after the
 * client), so tokens bill and read only that account and task ownership, billing and revocation reuse
 * the key machinery. Revoking the key (dashboard) ends the grant; revoking the grant (RFC 7009)
 * revokes the key.
 */
export const oauthGrantKeys = pgTable(
  "oauth_grant_keys",
  {
    grantId: text("grant_id").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "cascade" }),
    /** The OAuth client_id (a metadata document URL or a registered id). */
    clientId: text("client_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("oauth_grant_keys_key_id_idx").on(t.keyId)],
);

export type OauthArtifactRow = typeof oauthArtifacts.$inferSelect;

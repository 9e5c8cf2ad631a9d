/** Zod schemas of /api/api-keys (docs/api-conventions.md "API keys"). */
import { z } from "zod";
import { SCOPES } from "../db/schema/enums.js";

const dateTime = z.string().meta({ format: "date-time" });

export const createApiKeyBodySchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({
        description: "Label of the key (an agent or application name).",
        examples: ["inspection-agent"],
      }),
    contact: z
      .email()
      .max(254)
      .transform((v) => v.toLowerCase())
      .meta({
        description:
          "Contact e-mail of the key's owner (for its notifications). Not verified: it grants no access to a " +
          "prepaid account; the account's owner links keys (client dashboard or POST /api/account-keys).",
        examples: ["ops@example.com"],
      }),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length).optional().meta({
      description:
        "Scopes to grant; default `audit_only`, `task_create`. `admin` only when the request is made with an admin key.",
    }),
  })
  .meta({ id: "CreateApiKeyRequest" });
export type CreateApiKeyBody = z.output<typeof createApiKeyBodySchema>;

export const apiKeyCreatedSchema = z
  .object({
    api_key: z
      .string()
      .meta({ description: "The full key. Shown once; store it now.", examples: ["svc_3kTq…"] }),
    key_id: z.string(),
    name: z.string(),
    contact: z.string(),
    account_id: z.string().nullable().meta({
      description:
        "The prepaid account the key bills and reads; null for keys made here (link them from the account).",
    }),
    scopes: z.array(z.enum(SCOPES)),
    key_hint: z.string().meta({ description: "Last 4 characters of the key." }),
    created_at: dateTime,
  })
  .meta({ id: "ApiKeyCreated" });

export const apiKeyItemSchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    contact: z.string(),
    account_id: z
      .string()
      .nullable()
      .meta({ description: "The prepaid account the key is linked to (bills and reads), or null." }),
    scopes: z.array(z.enum(SCOPES)),
    key_hint: z.string().meta({ description: "Last 4 characters of the key." }),
    created_at: dateTime,
    last_used_at: dateTime.nullable(),
  })
  .meta({ id: "ApiKeyItem" });

export const apiKeyListSchema = z.object({ keys: z.array(apiKeyItemSchema), count: z.number().int() });

export const revokeApiKeyBodySchema = z.strictObject({
  key_to_revoke: z.string().min(1).max(200).meta({ description: "The full key to revoke (permanent)." }),
});

export const apiKeyRevokedSchema = z.object({
  revoked: z.literal(true),
  key_id: z.string(),
  revoked_at: dateTime,
});

/** Scopes a client may give a key of its account (never `admin`). */
const CLIENT_SCOPES = ["audit_only", "task_create", "task_cancel", "billing_read"] as const;

export const accountKeysBodySchema = z
  .strictObject({
    action: z.enum(["create", "link", "unlink", "revoke"]).meta({
      description:
        "create {name, scopes?}: a new key linked to the account (shown once). link {api_key}: link an existing key " +
        "by pasting it in full (or send it as x-api-key with this request and omit api_key). unlink {key_id}. " +
        "revoke {key_id}: ends a linked key for good (an OAuth client's authorization ends with it).",
    }),
    name: z.string().trim().min(1).max(100).optional().meta({ description: "create: label of the new key." }),
    scopes: z.array(z.enum(CLIENT_SCOPES)).min(1).max(CLIENT_SCOPES.length).optional().meta({
      description: "create: scopes (default `audit_only`, `task_create`, `billing_read`; never `admin`).",
    }),
    api_key: z.string().trim().min(1).max(200).optional().meta({
      description: "link: the full key (`svc_…`), proof that you hold it. A key id or name is not enough.",
    }),
    key_id: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: "unlink, revoke: the key_id of a linked key." }),
  })
  .meta({ id: "AccountKeysRequest" });
export type AccountKeysBody = z.output<typeof accountKeysBodySchema>;

export const accountKeysListSchema = z
  .object({
    account_id: z.string(),
    keys: z.array(
      apiKeyItemSchema.extend({
        oauth_client_id: z.string().nullable().meta({
          description:
            "Set when the key backs an OAuth client's authorization (its client_id); revoke ends the authorization.",
        }),
      }),
    ),
    count: z.number().int(),
  })
  .meta({ id: "AccountKeysList" });

export const accountKeysResultSchema = z
  .union([
    apiKeyCreatedSchema.extend({ action: z.literal("create") }),
    z.object({ action: z.literal("link"), linked: z.literal(true), key: apiKeyItemSchema }),
    z.object({ action: z.literal("unlink"), unlinked: z.literal(true), key_id: z.string() }),
    z.object({ action: z.literal("revoke"), revoked: z.literal(true), key_id: z.string() }),
  ])
  .meta({ id: "AccountKeysResult" });

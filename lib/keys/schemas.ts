/** Zod schemas of /api/api-keys (contract.md "API keys"). */
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
        description: "Contact e-mail of the key's owner; keys sharing it see each other.",
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
    scopes: z.array(z.enum(SCOPES)),
    created_at: dateTime,
  })
  .meta({ id: "ApiKeyCreated" });

export const apiKeyItemSchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    contact: z.string(),
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

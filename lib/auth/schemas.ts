/** Zod schemas of POST /api/client-auth (spec "Client accounts"). */
import { z } from "zod";

/** The actions, `login` by default. */
export const CLIENT_AUTH_ACTIONS = [
  "login",
  "logout",
  "verify-email",
  "reset-request",
  "reset-confirm",
] as const;
export type ClientAuthAction = (typeof CLIENT_AUTH_ACTIONS)[number];

export const clientAuthQuerySchema = z.object({
  action: z.enum(CLIENT_AUTH_ACTIONS).default("login").meta({
    description:
      "login (default) · logout (Authorization: Bearer <jwt>; revokes that session) · verify-email · reset-request · reset-confirm.",
  }),
});

/**
 * One body for every action; which members are required depends on the action and is
 * checked by the handler (a missing one → 422 VALIDATION_ERROR, as the spec says for login).
 */
export const clientAuthBodySchema = z
  .strictObject({
    email: z.string().trim().max(254).optional().meta({ description: "login, reset-request." }),
    password: z
      .string()
      .max(1000)
      .optional()
      .meta({ description: "login; reset-confirm (the new password, 8+ characters)." }),
    token: z
      .string()
      .trim()
      .max(200)
      .optional()
      .meta({ description: "verify-email, reset-confirm: the e-mailed code." }),
  })
  .meta({ id: "ClientAuthRequest" });
export type ClientAuthBody = z.output<typeof clientAuthBodySchema>;

export const clientAuthResponseSchema = z
  .object({
    ok: z.boolean(),
    message: z.string(),
    token: z
      .string()
      .optional()
      .meta({ description: "login: the JWT; send it as Authorization: Bearer <jwt>." }),
    token_type: z.literal("Bearer").optional(),
    expires_in: z.number().int().optional().meta({ description: "login: seconds (86 400)." }),
    expires_at: z.string().meta({ format: "date-time" }).optional(),
    org_id: z.string().optional(),
    account_id: z.string().optional(),
  })
  .meta({ id: "ClientAuthResponse" });

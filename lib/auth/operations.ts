/**
 * Operation descriptor of POST /api/client-auth. `login` attempts are limited per IP
 * (LOGIN_ATTEMPTS_PER_IP_PER_HOUR, default 5 per hour): api/client-auth.ts routes
 * `action=login` through `clientLoginOperation`, the same operation with that limit.
 */
import { defineOperation } from "../http/operation.js";
import { clientAuthBodySchema, clientAuthQuerySchema, clientAuthResponseSchema } from "./schemas.js";

export const clientAuthOperation = defineOperation({
  id: "clientAuth",
  method: "POST",
  path: "/api/client-auth",
  summary: "Client login (JWT, 24 h), e-mail verification and password reset",
  description:
    "`action=login` (default) {email, password} → `token` (JWT HS256, 24 h, carrying `org_id`), sent afterwards as " +
    "`Authorization: Bearer <jwt>`; 5 attempts per IP per hour (429). `verify-email` {token}; `reset-request` " +
    "{email} (same answer whether or not the account exists); `reset-confirm` {token, password}. E-mailed codes are " +
    "single-use (verification 48 h, reset 1 h). 422 for a missing member, 401 for bad credentials or codes.",
  tags: ["Accounts"],
  auth: "none",
  query: clientAuthQuerySchema,
  body: clientAuthBodySchema,
  response: clientAuthResponseSchema,
  errors: ["VALIDATION_ERROR", "UNAUTHORIZED", "RATE_LIMITED"],
});

/** `action=login`: the same operation with the per-IP login limit (not listed separately). */
export const clientLoginOperation = defineOperation({
  ...clientAuthOperation,
  id: "clientLogin",
  internal: true,
  rateLimits: ["login"],
});

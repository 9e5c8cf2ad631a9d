/**
 * Operation descriptor of POST /api/client-auth. `login` attempts are limited per IP
 * (LOGIN_ATTEMPTS_PER_IP_PER_HOUR, default 5 per hour): api/client-auth.ts routes
 * `action=login` through `clientLoginOperation`, the same operation with that limit, and
 * `action=logout` through `clientLogoutOperation`, whose client JWT the wrapper checks.
 */
import { defineOperation } from "../descriptors/operation.js";
import { clientAuthBodySchema, clientAuthQuerySchema, clientAuthResponseSchema } from "./schemas.js";

export const clientAuthOperation = defineOperation({
  id: "clientAuth",
  method: "POST",
  path: "/api/client-auth",
  summary: "Client login (JWT, 24 h), e-mail verification and password reset",
  description:
    "`action=login` (default) {email, password} → `token` (JWT HS256, 24 h, carrying `org_id`), sent afterwards as " +
    "`Authorization: Bearer <jwt>`; 5 attempts per IP and 10 per e-mail per hour (429). Login needs a verified " +
    "e-mail and an account that is not suspended (else 403 with `reason` `email_not_verified` / `account_suspended`). " +
    "`logout` (the JWT as `Authorization: Bearer`) revokes that session server-side. `verify-email` {token} (only " +
    "verifies; links no API key); `reset-request` {email} (same answer whether or not the account exists); " +
    "`reset-confirm` {token, password} (ends every session). `verify-email` and `reset-request`: 10 per IP and 5 per " +
    "e-mail per hour each. E-mailed codes are single-use (verification 48 h, reset 1 h). 422 for a missing member, " +
    "401 for bad credentials, codes or an ended session.",
  tags: ["Accounts"],
  auth: "none",
  query: clientAuthQuerySchema,
  body: clientAuthBodySchema,
  response: clientAuthResponseSchema,
  errors: ["VALIDATION_ERROR", "UNAUTHORIZED", "FORBIDDEN", "RATE_LIMITED"],
});

/** `action=login`: the same operation with the per-IP login limit (not listed separately). */
export const clientLoginOperation = defineOperation({
  ...clientAuthOperation,
  id: "clientLogin",
  internal: true,
  rateLimits: ["login"],
});

/**
 * `action=logout`: the same operation with the client JWT required by the wrapper (auth mode
 * `client`: a missing or ended session is 401 before the body is read; not listed separately).
 */
export const clientLogoutOperation = defineOperation({
  ...clientAuthOperation,
  id: "clientLogout",
  internal: true,
  auth: "client",
});

/** Operation descriptors of /api/client-account and /api/account-admin. */
import { EXPORT_ACCEPTED_RESPONSE } from "../descriptors/export-job.js";
import { defineOperation } from "../descriptors/operation.js";
import {
  accountAdminBodySchema,
  accountAdminResponseSchema,
  accountResponseSchema,
  createAccountBodySchema,
  getAccountQuerySchema,
} from "./schemas.js";

export const createClientAccountOperation = defineOperation({
  id: "createClientAccount",
  method: "POST",
  path: "/api/client-account",
  summary: "Open a prepaid CAD account (with a key, or web registration with a CAPTCHA)",
  description:
    "With an API key the account e-mail is the key's contact (another `email` → 403); the key is NOT linked to the " +
    "account and no `password` is accepted (422): the address's owner verifies it, sets a password with " +
    "reset-request, signs in and links keys (POST /api/account-keys). Without a key: `email`, `password`, `phone`, " +
    "`address_line1`, `city`, `postal_code`, `tos_accepted: true` and `cf_turnstile_token` (Cloudflare Turnstile, " +
    "verified server-side) are required. 201 with status `pending_deposit`; an e-mail verification code is " +
    "e-mailed; sign-in, deposits and key linking need the verified e-mail; the account becomes active when the " +
    "operator records a deposit. An unverified account of that e-mail is discarded and replaced. An e-mail whose " +
    "account is verified gets the same 201 answer (an account id that is never stored) and an e-mailed notice " +
    "instead of a code, so the answer never tells whether an address has an account. Verification e-mails per " +
    "address are rate limited (429).",
  tags: ["Accounts"],
  auth: "optional",
  body: createAccountBodySchema,
  response: accountResponseSchema,
  successStatus: 201,
  idempotent: true,
  errors: [
    "MISSING_FIELD",
    "VALIDATION_ERROR",
    "FIELD_TOO_LONG",
    "FORBIDDEN",
    "UPSTREAM_UNAVAILABLE",
    "RATE_LIMITED",
  ],
});

export const getClientAccountOperation = defineOperation({
  id: "getClientAccount",
  method: "GET",
  path: "/api/client-account",
  summary: "Read a prepaid account, its dashboard or one invoice",
  description:
    "Credential: an API key (the account it is linked to by the account's owner — never by its contact e-mail; " +
    "404 when unlinked; admins may pass `email`) or the client JWT as " +
    "`Authorization: Bearer <jwt>` (from POST /api/client-auth?action=login). `include=dashboard` (latest " +
    "transactions, tasks and invoices), `invoice_id` (`format=pdf`: the invoice as a PDF in the account's " +
    "language, else the task's) and `action=export` (everything held about the account, Law 25) need the JWT or " +
    "an admin key; any key may also read, by `invoice_id`, the USDC receipt and credit notes of a task it " +
    "submitted (`payment.receipt_invoice_id` of the task status; no `account` in the answer when the task has " +
    "none). 401 without a credential.",
  tags: ["Accounts"],
  auth: "key_or_client",
  query: getAccountQuerySchema,
  response: accountResponseSchema,
  contentType: ["application/json", "application/pdf"],
  responses: { 202: EXPORT_ACCEPTED_RESPONSE },
  errors: ["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "VALIDATION_ERROR"],
});

export const accountAdminOperation = defineOperation({
  id: "accountAdmin",
  method: "POST",
  path: "/api/account-admin",
  summary: "Operator: record a deposit or adjustment, suspend/activate an account, set its discount",
  description:
    "`deposit` (0.01 to 1 000 000 CAD; activates a pending account; 409 while the account's e-mail is not verified; " +
    "send an Idempotency-Key so a retry is not " +
    "credited twice), `adjust` (signed correction with `description`; never below zero available), `suspend`, " +
    "`activate` (suspended → active; 409 before any deposit), `set_discount` (0-100 %). Target by `email` or `account_id`.",
  tags: ["Operator"],
  auth: "admin",
  permission: {
    field: "action",
    by: {
      deposit: "billing.deposit",
      adjust: "billing.adjust",
      suspend: "accounts.admin",
      activate: "accounts.admin",
      set_discount: "accounts.admin",
    },
  },
  body: accountAdminBodySchema,
  response: accountAdminResponseSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
});

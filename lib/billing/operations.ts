/** Operation descriptors of /api/billing (spec "Billing"; scope billing_read, whose absence is 401). */
import { defineOperation } from "../descriptors/operation.js";
import {
  billingQuerySchema,
  billingResponseSchema,
  preAuthorizeBodySchema,
  preAuthorizeResponseSchema,
} from "./schemas.js";

export const getBillingOperation = defineOperation({
  id: "getBilling",
  method: "GET",
  path: "/api/billing",
  summary: "Prepaid balance, spending level and transactions of an account",
  description:
    "`action=balance|transactions`, `agent_id` = the account e-mail or the name of a key linked to it. A key sees " +
    "only the account its owner linked it to (POST /api/account-keys; 403 otherwise — the key's contact e-mail " +
    "grants nothing); an admin sees any. Transactions: newest first; `date_from`/`date_to` (YYYY-MM-DD, inclusive, America/Toronto), " +
    "`service_type`, `limit` (default 50, max 200), `offset`; `total` counts the matches up to `offset` + 1,000 (`total_capped` when more). `available_balance_cad` " +
    "is the ledger balance minus live pre-authorization holds. An unknown `action` or an `agent_id` over 254 " +
    "characters is 400 INVALID_FORMAT (spec: 400 missing/invalid action or agent_id).",
  tags: ["Billing"],
  auth: "key",
  scope: "billing_read",
  query: billingQuerySchema,
  response: billingResponseSchema,
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "VALIDATION_ERROR", "FORBIDDEN", "NOT_FOUND"],
});

export const preAuthorizeOperation = defineOperation({
  id: "preAuthorize",
  method: "POST",
  path: "/api/billing",
  summary: "Pre-authorize a budget: hold max_cost_cad of the balance for 5 minutes",
  description:
    "Holds `max_cost_cad` of the available balance until `valid_until` (5 minutes), on the account the key is " +
    "linked to (403 for any other). A task the same key submits " +
    "while the hold is live consumes it when it is charged at approval. 402 PAYMENT_REQUIRED (`authorized: false`, " +
    "`reason` insufficient_funds | account_pending_deposit | account_suspended, `available_balance_cad`, " +
    "`shortfall_cad`, `suggestions`) when denied; a denial emits `billing.payment_required`. An `action` other " +
    "than pre_authorize, an `agent_id` over 254 characters or a `max_cost_cad` outside 0.01-1 000 000 or with " +
    "more than 2 decimals is 400 INVALID_FORMAT (the spec lists 400 and no 422).",
  tags: ["Billing"],
  auth: "key",
  scope: "billing_read",
  body: preAuthorizeBodySchema,
  response: preAuthorizeResponseSchema,
  idempotent: true,
  errors: [
    "MISSING_FIELD",
    "INVALID_FORMAT",
    "VALIDATION_ERROR",
    "PAYMENT_REQUIRED",
    "FORBIDDEN",
    "NOT_FOUND",
  ],
});

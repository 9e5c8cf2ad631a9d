/** Operation descriptors of /api/privacy (the client's requests) and /api/privacy-admin (operator). */
import { defineOperation } from "../http/operation.js";
import {
  privacyAdminBodySchema,
  privacyAdminListResponseSchema,
  privacyAdminQuerySchema,
  privacyAdminResponseSchema,
  privacyRequestBodySchema,
  privacyRequestResponseSchema,
} from "./schemas.js";

export const privacyRequestOperation = defineOperation({
  id: "privacyRequest",
  method: "POST",
  path: "/api/privacy",
  summary: "Client: ask for the erasure (de-identification) of your personal information",
  description:
    "Client JWT only. Records an erasure request; the hourly privacy-retention job de-identifies the account, its " +
    "keys, tasks, events, e-mails and proof files once the accounting records are past their legal retention " +
    "(`due_at`). Invoices and ledger entries are kept for that period. Until then the account is on hold: its " +
    "API keys are refused (403 FORBIDDEN, `reason` erasure_pending), no task is charged to it and no deposit is " +
    "taken; sign-in still works, and `withdraw_erasure` ends the hold. A positive balance is recorded on the " +
    "request (`balance_to_refund_cad`) for the operator to refund. The export of everything held is " +
    "GET /api/client-account?action=export.",
  tags: ["Privacy"],
  auth: "client",
  body: privacyRequestBodySchema,
  response: privacyRequestResponseSchema,
  idempotent: true,
  errors: ["VALIDATION_ERROR", "MISSING_FIELD", "CONFLICT"],
});

export const listPrivacyAdminOperation = defineOperation({
  id: "listPrivacyAdmin",
  method: "GET",
  path: "/api/privacy-admin",
  summary: "Operator: the register of confidentiality incidents, or the erasure requests",
  tags: ["Operator"],
  auth: "admin",
  permission: "privacy.admin",
  query: privacyAdminQuerySchema,
  response: privacyAdminListResponseSchema,
  errors: ["VALIDATION_ERROR"],
});

export const privacyAdminOperation = defineOperation({
  id: "privacyAdmin",
  method: "POST",
  path: "/api/privacy-admin",
  summary: "Operator: record a confidentiality incident, or process an erasure early",
  description:
    "`record_incident` adds to the register (`discovered_at`, `description`, `information_concerned`, " +
    "`risk_of_serious_injury` required). `process_erasure` de-identifies `account_id` now with a `reason` (the " +
    "legal ground); 409 when already de-identified.",
  tags: ["Operator"],
  auth: "admin",
  permission: "privacy.admin",
  body: privacyAdminBodySchema,
  response: privacyAdminResponseSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
});

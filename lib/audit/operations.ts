/** Operation descriptor of GET /api/audit-log (owner: permission `audit.read`). */
import { defineOperation } from "../descriptors/operation.js";
import { auditLogPageSchema, auditLogQuerySchema } from "./schemas.js";

export const listAuditLogOperation = defineOperation({
  id: "listAuditLog",
  method: "GET",
  path: "/api/audit-log",
  summary: "The audit trail: who changed what, newest first (operator, permission audit.read)",
  description:
    "One row per task transition (`task.<action>`), ledger movement (`ledger.deposit|charge|refund|adjustment`), " +
    "refund settled, account status or discount set and API key created, revoked, linked or unlinked, written in " +
    "the transaction of the change with its actor: `staff` (id, role), `api_key` (id; role `owner` for an admin " +
    "key), `client` (a signed-in account), `anonymous` (no credential or a task's access token) or `system` (the " +
    "job's name). Append-only: no row is ever changed or deleted. Filters combine (AND); `from` inclusive, `to` " +
    "exclusive. Page with `next_cursor` (limit 1-200, default 50). Roles and permissions: GET /api/capabilities " +
    "`operations.roles`.",
  tags: ["Operator"],
  auth: "admin",
  permission: "audit.read",
  query: auditLogQuerySchema,
  response: auditLogPageSchema,
  errors: ["VALIDATION_ERROR", "INVALID_FORMAT"],
});

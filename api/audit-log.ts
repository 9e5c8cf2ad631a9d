/** GET /api/audit-log — the audit trail, filtered and paged (admin, permission audit.read). */
import { listAuditLog } from "../lib/audit/list-audit-log.js";
import { listAuditLogOperation } from "../lib/audit/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listAuditLogOperation, ({ query }) => listAuditLog(query)),
});

/**
 * GET and POST /api/staff-credentials — the signed-in staff member's passkeys and recovery codes
 * (issue 44 item 3; rules in lib/staff/staff-credentials.ts and lib/staff/passkeys.ts).
 */
import { endpoint, route } from "../lib/http/handler.js";
import { changeStaffCredentialsOperation, staffCredentialsOperation } from "../lib/staff/operations.js";
import { changeStaffCredentials, staffCredentials } from "../lib/staff/staff-credentials.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(staffCredentialsOperation, ({ caller }) => staffCredentials(caller?.staff?.id)),
  POST: endpoint(changeStaffCredentialsOperation, ({ query, body, caller }) =>
    changeStaffCredentials(query.action, body, caller?.staff?.id),
  ),
});

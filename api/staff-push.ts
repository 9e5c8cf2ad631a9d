/**
 * GET /api/staff-push — this staff session's push settings (VAPID public key); POST — subscribe
 * the session's browser to Web Push notifications or unsubscribe it (issue 44 item 6;
 * lib/push/subscriptions.ts). A staff session only.
 */
import { DomainError } from "../lib/errors.js";
import { endpoint, route } from "../lib/http/handler.js";
import type { Caller } from "../lib/keys/credentials.js";
import { changeStaffPushOperation, staffPushSettingsOperation } from "../lib/push/operations.js";
import { changePushSubscription, type PushStaff, pushSettings } from "../lib/push/subscriptions.js";

/** The staff member of the session, or 403. */
function sessionStaff(caller: Caller | null | undefined): PushStaff {
  if (!caller?.staff || !caller.role) {
    throw new DomainError("FORBIDDEN", "Push notifications belong to a staff session: sign in as staff");
  }
  return { id: caller.staff.id, sessionId: caller.staff.sessionId, role: caller.role };
}

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(staffPushSettingsOperation, ({ caller }) => pushSettings(sessionStaff(caller))),
  POST: endpoint(changeStaffPushOperation, ({ caller, body }) =>
    changePushSubscription(sessionStaff(caller), body),
  ),
});

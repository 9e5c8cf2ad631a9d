/**
 * Operation descriptors of staff push notifications (issue 44 item 6; docs/notifications.md "Push
 * notifications"): GET and POST /api/staff-push, for a signed-in staff member of any role (a staff
 * session; an API key or no credential → 403).
 */
import { defineOperation, type Operation } from "../descriptors/operation.js";
import { staffPushBodySchema, staffPushResponseSchema, staffPushSettingsSchema } from "./schemas.js";

/** Shared: tagged Staff, read with the staff session (the handler refuses anything else). */
const STAFF_PUSH = {
  tags: ["Staff"],
  auth: "optional",
  staffAccess: true,
} satisfies Partial<Operation>;

export const staffPushSettingsOperation = defineOperation({
  id: "getStaffPushSettings",
  method: "GET",
  path: "/api/staff-push",
  summary: "Web Push for this staff session: on or off, the VAPID public key, what the member is pushed",
  description:
    "A staff session only (else 403). `public_key` is the applicationServerKey for PushManager.subscribe; " +
    "`enabled` false (no VAPID keys in the production profile) means the pages offer no push.",
  ...STAFF_PUSH,
  response: staffPushSettingsSchema,
  cacheControl: "no-store",
  errors: ["FORBIDDEN"],
});

export const changeStaffPushOperation = defineOperation({
  id: "changeStaffPush",
  method: "POST",
  path: "/api/staff-push",
  summary: "Subscribe this staff session's browser to push notifications, or unsubscribe it",
  description:
    "`subscribe` {subscription: PushSubscription.toJSON(), lang} ties the subscription to the session: it is " +
    "deleted at sign-out, at the member's suspension or role change, and when the push service answers 404 or " +
    "410; the same endpoint again moves it to this session. The endpoint must be an https URL of a public " +
    "address (else 422 on subscription.endpoint). Push off (no VAPID keys) → 409. `unsubscribe` {endpoint}. " +
    "A field person is pushed their assignments and their tasks at risk, a reviewer the tasks waiting for " +
    "review longer than PUSH_REVIEW_WAIT_MINUTES.",
  ...STAFF_PUSH,
  body: staffPushBodySchema,
  response: staffPushResponseSchema,
  idempotent: true,
  errors: ["VALIDATION_ERROR", "FORBIDDEN", "CONFLICT", "FIELD_TOO_LONG"],
});

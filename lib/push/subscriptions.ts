/**
 * Staff sessions' Web Push subscriptions (issue 44 item 6; docs/notifications.md "Push
 * notifications"): the field app and the console register the browser's PushSubscription for the
 * signed-in session (POST /api/staff-push), read the VAPID public key (GET), and unsubscribe.
 * Sign-out and suspension delete them (lib/staff/sessions.ts), a push service's 404/410 too
 * (lib/push/send-pushes.ts).
 */
import { and, count, eq } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import type { Role } from "../db/schema/enums.js";
import { type PushKind, pushSubscriptions } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { checkOutboundUrl } from "../net/outbound-url.js";
import { roleHolds } from "../permissions.js";
import type { StaffPushBody, StaffPushResponse, StaffPushSettings } from "./schemas.js";
import { vapidDetails } from "./vapid.js";

/** The signed-in staff member of the request. */
export interface PushStaff {
  id: string;
  sessionId: string;
  role: Role;
}

/** What `role` is pushed: its own tasks' news (tasks.execute), review waits (tasks.review). */
export function pushKindsOf(role: Role): PushKind[] {
  const kinds: PushKind[] = [];
  if (roleHolds(role, "tasks.execute")) kinds.push("task_assigned", "task_at_risk");
  if (roleHolds(role, "tasks.review")) kinds.push("review_waiting");
  return kinds;
}

/**
 * GET /api/staff-push: whether push is on, the VAPID public key, this session's subscription count
 * and what the member is pushed.
 * @throws Error when the development key file cannot be read or written
 */
export async function pushSettings(staff: PushStaff): Promise<StaffPushSettings> {
  const vapid = await vapidDetails();
  const db = await getDb();
  const [row] = await db
    .select({ n: count() })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.sessionId, staff.sessionId));
  return {
    enabled: vapid !== null,
    public_key: vapid?.publicKey ?? null,
    subscriptions: row?.n ?? 0,
    kinds: pushKindsOf(staff.role),
    review_wait_minutes: getConfig().PUSH_REVIEW_WAIT_MINUTES,
  };
}

/**
 * POST /api/staff-push: `subscribe` registers (or moves to this session, with its new keys and
 * language) the browser's subscription; `unsubscribe` deletes it if it is this member's.
 * @throws DomainError CONFLICT (push off: no VAPID keys), VALIDATION_ERROR (an endpoint that is not
 *   an https URL of a public address, unless ALLOW_PRIVATE_CALLBACKS; `field` subscription.endpoint)
 */
export async function changePushSubscription(
  staff: PushStaff,
  body: StaffPushBody,
): Promise<StaffPushResponse> {
  const db = await getDb();
  if (body.action === "unsubscribe") {
    await db
      .delete(pushSubscriptions)
      .where(and(eq(pushSubscriptions.endpoint, body.endpoint), eq(pushSubscriptions.staffId, staff.id)));
    return {
      ok: true,
      subscribed: false,
      subscription_id: null,
      message: "Push notifications are off on this device.",
    };
  }
  if ((await vapidDetails()) === null) {
    throw new DomainError(
      "CONFLICT",
      "Push notifications are off on this service (no VAPID keys configured)",
    );
  }
  const endpoint = (await checkOutboundUrl(body.subscription.endpoint, "subscription.endpoint")).href;
  const values = {
    staffId: staff.id,
    sessionId: staff.sessionId,
    p256dh: body.subscription.keys.p256dh.replace(/=+$/, ""),
    auth: body.subscription.keys.auth.replace(/=+$/, ""),
    lang: body.lang,
  };
  const [row] = await db
    .insert(pushSubscriptions)
    .values({ id: prefixedId("psb"), endpoint, ...values })
    .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: values })
    .returning({ id: pushSubscriptions.id });
  return {
    ok: true,
    subscribed: true,
    subscription_id: row!.id,
    message: "Push notifications are on on this device until you sign out.",
  };
}

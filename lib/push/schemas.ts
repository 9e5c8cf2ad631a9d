/**
 * Zod schemas of GET and POST /api/staff-push (issue 44 item 6; docs/notifications.md "Push
 * notifications"): the push settings a page needs, and a staff session's subscription.
 */
import { z } from "zod";
import { LANGS } from "../db/schema/enums.js";
import { PUSH_KINDS } from "../db/schema/index.js";

/** Bytes of base64url `value`, or undefined when it is not base64url. */
function base64urlBytes(value: string): Buffer | undefined {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value)
    ? Buffer.from(value.replace(/=+$/, ""), "base64url")
    : undefined;
}

/** The browser's PushSubscription as `subscription.toJSON()` gives it (RFC 8030 endpoint, RFC 8291 keys). */
const pushSubscriptionSchema = z
  .object({
    endpoint: z.string().min(1).max(2048).meta({ description: "The push service URL (https)." }),
    expirationTime: z
      .number()
      .nullable()
      .optional()
      .meta({ description: "Ignored (as the browser sends it)." }),
    keys: z.strictObject({
      p256dh: z
        .string()
        .max(200)
        .refine((v) => {
          const b = base64urlBytes(v);
          return b?.length === 65 && b[0] === 4;
        }, "must be the base64url of a 65-byte uncompressed P-256 public key")
        .meta({ description: "The browser's ECDH public key (RFC 8291), base64url." }),
      auth: z
        .string()
        .max(100)
        .refine((v) => base64urlBytes(v)?.length === 16, "must be the base64url of 16 bytes")
        .meta({ description: "The authentication secret (RFC 8291), base64url." }),
    }),
  })
  .meta({ id: "PushSubscriptionInput" });

/** POST /api/staff-push: subscribe this session's browser, or unsubscribe it. */
export const staffPushBodySchema = z
  .discriminatedUnion("action", [
    z.strictObject({
      action: z.literal("subscribe"),
      subscription: pushSubscriptionSchema,
      lang: z.enum(LANGS).default("en").meta({ description: "Language of the notifications (the page's)." }),
    }),
    z.strictObject({
      action: z.literal("unsubscribe"),
      endpoint: z.string().min(1).max(2048).meta({ description: "The subscription's endpoint." }),
    }),
  ])
  .meta({ id: "StaffPushRequest" });
export type StaffPushBody = z.output<typeof staffPushBodySchema>;

export const staffPushSettingsSchema = z
  .object({
    enabled: z.boolean().meta({
      description:
        "False when the service has no VAPID keys (production profile without them): offer no push.",
    }),
    public_key: z.string().nullable().meta({
      description:
        "The VAPID public key (base64url, 65-byte uncompressed P-256 point) for PushManager.subscribe's applicationServerKey.",
    }),
    subscriptions: z.number().int().meta({ description: "Push subscriptions of this session." }),
    kinds: z.array(z.enum(PUSH_KINDS)).meta({
      description:
        "What this staff member is pushed: task_assigned and task_at_risk (role field or owner, on their tasks), review_waiting (holders of tasks.review).",
    }),
    review_wait_minutes: z.number().int().meta({
      description:
        "A received task waiting this long for review is pushed to the reviewers, once (0: never).",
    }),
  })
  .meta({ id: "StaffPushSettings" });
export type StaffPushSettings = z.output<typeof staffPushSettingsSchema>;

export const staffPushResponseSchema = z
  .object({
    ok: z.literal(true),
    subscribed: z.boolean().meta({ description: "Whether the endpoint is now subscribed for this session." }),
    subscription_id: z.string().nullable().meta({ description: "`psb_…`, null after unsubscribe." }),
    message: z.string(),
  })
  .meta({ id: "StaffPushResponse" });
export type StaffPushResponse = z.output<typeof staffPushResponseSchema>;

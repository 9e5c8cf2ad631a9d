/**
 * Notifications: webhook signing, delivery and retries, the outbox kick, e-mail (Resend) and the event stream.
 * One entry a variable, with its default; part of the configuration schema (lib/config/load.ts).
 */
import { z } from "zod";
import { bool, int, optionalString, optionalUrl } from "./values.js";

/** Notifications variables of the configuration schema, built on first use (lib/config/load.ts). */
export const notificationsSettings = () => ({
  /**
   * AES-256-GCM key that encrypts webhook signing secrets at rest: base64 of 32 bytes
   * (`openssl rand -base64 32`). Required in production; elsewhere a fixed development key
   * (documented in README) is used when unset.
   */
  WEBHOOK_SECRET_KEY: optionalString(),
  /**
   * Private Ed25519 JWK (`{"kty":"OKP","crv":"Ed25519","d":…,"x":…,"kid":…}`) that signs completion
   * receipts (lib/receipts). Required in production; elsewhere a key is generated once into
   * DATA_DIR (receipt-signing-key.json). docs/receipts.md: generation and rotation.
   */
  RECEIPT_SIGNING_KEY: optionalString(),
  /**
   * Public JWKs of retired receipt keys, still served at /.well-known/jwks.json so that old
   * receipts verify: a JSON array of JWKs or a JWK Set (`{"keys":[…]}`).
   */
  RECEIPT_PREVIOUS_KEYS: optionalString(),
  /**
   * Web Push (issue 44 item 6; docs/notifications.md "Push notifications"): the VAPID key pair
   * (RFC 8292) that signs every push request, as `npx web-push generate-vapid-keys` prints it —
   * the public key the base64url of the 65-byte uncompressed P-256 point, the private key the
   * base64url of its 32-byte scalar. Both or neither. Unset outside the production profile: a pair
   * is generated once into DATA_DIR (vapid-keys.json; in memory when DATA_DIR is memory://).
   * Unset in the production profile: push notifications are off (the pages offer none).
   */
  VAPID_PUBLIC_KEY: optionalString(),
  VAPID_PRIVATE_KEY: optionalString(),
  /**
   * The contact the push services may reach (RFC 8292 `sub` claim): a `mailto:` or `https:` URL.
   * Default `mailto:` + CONTACT_EMAIL.
   */
  VAPID_SUBJECT: optionalString(),
  /**
   * Minutes a received task may wait for its review before the reviewers (staff holding
   * tasks.review) are pushed a reminder, once per task, by the deadline-watch cron. 0: never.
   */
  PUSH_REVIEW_WAIT_MINUTES: int(30, 0, 7 * 24 * 60),
  /** How long a push service keeps an undelivered message for an offline device (the TTL header), seconds. */
  PUSH_TTL_SECONDS: int(12 * 3600, 0, 7 * 24 * 3600),
  /** Bound of one webhook / callback delivery attempt (connect, headers, body), ms; at most 10 s. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 10_000),
  /** Delays before each retry of a failed delivery, seconds, comma-separated (docs/api-conventions.md: 30 s, 5 min, 30 min). */
  WEBHOOK_RETRY_DELAYS_SECONDS: z
    .string()
    .default("30,300,1800")
    .transform((v) => v.split(",").map((x) => Number(x.trim())))
    .pipe(z.array(z.number().int().min(1).max(86_400)).min(1).max(10)),
  /**
   * Deliveries in flight at once in one worker process (a slow receiver holds a slot for at
   * most WEBHOOK_TIMEOUT_MS; a freed slot is refilled at once). Outgoing requests mostly wait
   * on the network, so this is high enough that a hundred hanging receivers leave room.
   */
  WEBHOOK_CONCURRENCY: int(128, 1, 1024),
  /**
   * Deliveries in flight at once to one registered endpoint across every worker: a webhook
   * (its id), or the per-task callbacks of one task owner (the submitting key, else the task).
   * The fairness cap, so one customer's slow or dead receiver never takes another's slots, even
   * on the same host. At most half of WEBHOOK_HOST_CONCURRENCY (checked at start-up).
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: int(4, 1, 64),
  /**
   * Deliveries in flight at once to one host (scheme://host[:port] of the URL) across every
   * worker, all its endpoints together: the politeness cap towards a shared host (automation
   * platforms, tunnels). High enough that a hundred hanging endpoints on a host leave room for
   * a healthy one; at least twice WEBHOOK_ENDPOINT_CONCURRENCY.
   */
  WEBHOOK_HOST_CONCURRENCY: int(128, 2, 1024),
  /**
   * Circuit breaker: after this many consecutive failed attempts to one endpoint (same unit as
   * WEBHOOK_ENDPOINT_CONCURRENCY), by any instance, its due deliveries are left unattempted and
   * uncounted (claimed by no worker) for WEBHOOK_BREAKER_COOLDOWN_SECONDS, then one probe
   * attempt decides. Shared through Upstash Redis when configured (lib/webhooks/breaker.ts).
   * 0 turns the breaker off.
   */
  WEBHOOK_BREAKER_FAILURES: int(5, 0, 1000),
  /** Circuit breaker: how long an endpoint's circuit stays open after its failures, seconds. */
  WEBHOOK_BREAKER_COOLDOWN_SECONDS: int(60, 1, 3600),
  /** Dead-letter retention, hours (spec Limits: 72). */
  DEAD_LETTER_RETENTION_HOURS: int(72, 1, 24 * 30),
  /**
   * Dispatch and deliver notifications right after a state change commits (`waitUntil` on
   * Vercel, in-process locally). Default on, except under NODE_ENV=test where tests drive the
   * outbox explicitly. Off: only the deliver-webhooks cron (every minute) sends them.
   */
  OUTBOX_KICK: z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v === "true" || v === "1" || v === "yes")),
  /**
   * Task e-mails per rolling 24 h to one address that no client account has verified (such
   * e-mails carry only the task id, status and a link); beyond it they are recorded as
   * `suppressed` and not sent. Bounds what an anonymous submitter can make us send to a stranger.
   */
  UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY: int(5, 0, 1000),
  /**
   * Resend API key; unset = the embedded outbox (messages stored in `emails` and logged, not sent).
   * Required in the production profile unless MAIL_DISABLED=true.
   */
  RESEND_API_KEY: optionalString(),
  /**
   * Runs the production profile without a mail provider on purpose: nothing is e-mailed (codes,
   * resets, task mail stay in the `emails` table), and /api/status reports `degraded`.
   */
  MAIL_DISABLED: bool(false),
  /** Resend API base URL (tests point it at a loopback server). */
  RESEND_BASE_URL: optionalUrl(),
  /** Sender of client-facing e-mail (a domain verified with Resend in production). */
  EMAIL_FROM: z.string().default("Physical Task Execution Service <no-reply@example.com>"),
  /** Reply-To of client-facing e-mail; default CONTACT_EMAIL. */
  EMAIL_REPLY_TO: optionalString().pipe(z.email().optional()),
  /**
   * Longest life of one event-stream connection, seconds (max 14 400 = 4 h). Default 14 400,
   * or 55 on Vercel (below the functions' maxDuration of 60 s): the stream then sends
   * `stream.timeout` and the client reconnects with Last-Event-ID.
   */
  STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(14_400).optional(),
  /** How often the event stream reads new events from the database, ms. */
  STREAM_POLL_MS: int(500, 50, 10_000),
  /** Heartbeat (comment line) interval of idle event streams, seconds. */
  STREAM_HEARTBEAT_SECONDS: int(15, 1, 300),
  /**
   * Event streams one credential (an API key, or a task's access token) may hold open at once,
   * across every instance (counted in Upstash Redis when configured, lib/stream/stream-slots.ts);
   * one more → 429 RATE_LIMITED with Retry-After.
   */
  STREAM_MAX_PER_CREDENTIAL: int(5, 1, 1000),
  /**
   * Lease of one stream's slot in the shared count, seconds: each heartbeat tick renews it, so the
   * slots of an instance that died without closing its streams come back within this time. At
   * least twice STREAM_HEARTBEAT_SECONDS (checked at start-up).
   */
  STREAM_SLOT_LEASE_SECONDS: int(60, 2, 3600),
});

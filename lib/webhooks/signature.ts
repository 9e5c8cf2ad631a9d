/**
 * Webhook signatures (docs/api-conventions.md "Authentication" 9; docs/api-conventions.md "Webhook deliveries").
 *
 * A delivery carries `X-Service-Timestamp: <unix seconds>` and
 * `X-Service-Signature: sha256=<hex>`, where hex = HMAC-SHA256(secret, `${timestamp}.${rawBody}`).
 * Receivers recompute it over the raw body bytes (before any JSON parsing), compare in
 * constant time, and refuse timestamps outside a window (default 5 minutes) so that a
 * captured delivery cannot be replayed later. `generateTestHeaders` makes real headers for
 * tests and for receivers' own test suites (like stripe-node's `generateTestHeaderString`).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Header names of a signed delivery. */
export const SIGNATURE_HEADER = "X-Service-Signature";
export const TIMESTAMP_HEADER = "X-Service-Timestamp";
export const EVENT_HEADER = "X-Service-Event";
export const DELIVERY_HEADER = "X-Service-Delivery";

/** Default accepted clock difference between sender and receiver, seconds (spec example: 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Lowercase hex HMAC-SHA256 of `${timestamp}.${rawBody}` keyed with `secret`
 * (the whole `whsec_…` string is the key).
 */
export function signPayload(
  secret: string,
  timestamp: number | string,
  rawBody: string | Uint8Array,
): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestamp}.`, "utf8");
  hmac.update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody);
  return hmac.digest("hex");
}

/** The `X-Service-Signature` value: `sha256=<hex>`. */
export function signatureHeader(
  secret: string,
  timestamp: number | string,
  rawBody: string | Uint8Array,
): string {
  return `sha256=${signPayload(secret, timestamp, rawBody)}`;
}

/** Why a signature was refused. */
export type SignatureFailure =
  | "missing_header"
  | "malformed_header"
  | "bad_timestamp"
  | "stale_timestamp"
  | "mismatch";

/** Result of `verifySignature`. */
export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

/** Input of `verifySignature`. */
export interface VerifyInput {
  /** The webhook's `whsec_…` secret. */
  secret: string;
  /** Value of `X-Service-Signature` (`sha256=<hex>`); null/undefined when absent. */
  header: string | null | undefined;
  /** Value of `X-Service-Timestamp` (unix seconds). */
  timestamp: string | number | null | undefined;
  /** The request body exactly as received. */
  rawBody: string | Uint8Array;
  /** Accepted |now - timestamp|, seconds; default 300. */
  toleranceSeconds?: number;
  /** Current time (tests); default `new Date()`. */
  now?: Date;
}

/**
 * Verifies a delivery's signature and timestamp. Never throws; compares in constant time.
 * The header may hold several comma-separated `sha256=` values (e.g. during a secret
 * rotation on the receiver's side); any match passes.
 */
export function verifySignature(input: VerifyInput): VerifyResult {
  const { secret, header, rawBody } = input;
  if (header === null || header === undefined || header === "")
    return { ok: false, reason: "missing_header" };
  if (input.timestamp === null || input.timestamp === undefined || input.timestamp === "") {
    return { ok: false, reason: "missing_header" };
  }
  const tsText = String(input.timestamp).trim();
  if (!/^\d{1,12}$/.test(tsText)) return { ok: false, reason: "bad_timestamp" };
  const timestamp = Number(tsText);
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: "stale_timestamp" };
  }
  const candidates = header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith("sha256="))
    .map((part) => part.slice("sha256=".length));
  if (candidates.length === 0 || candidates.some((hex) => !/^[0-9a-f]{64}$/i.test(hex))) {
    return { ok: false, reason: "malformed_header" };
  }
  const expected = Buffer.from(signPayload(secret, tsText, rawBody), "hex");
  const ok = candidates.some((hex) => timingSafeEqual(Buffer.from(hex.toLowerCase(), "hex"), expected));
  return ok ? { ok: true, timestamp } : { ok: false, reason: "mismatch" };
}

/** Input of `generateTestHeaders`. */
export interface TestHeadersInput {
  secret: string;
  /** Body to sign: a string as sent, or an object serialized with JSON.stringify. */
  payload: string | Record<string, unknown>;
  /** Unix seconds; default now. */
  timestamp?: number;
  /** `X-Service-Event` value; default the payload's `event`, else `task.completed`. */
  event?: string;
  /** `X-Service-Delivery` value; default the payload's `event_id`, else `evt_test`. */
  eventId?: string;
}

/**
 * Headers and body of a genuine signed delivery, for tests of receivers.
 * @returns `{ headers, body }` where `body` is the exact string that was signed.
 */
export function generateTestHeaders(input: TestHeadersInput): {
  headers: Record<string, string>;
  body: string;
} {
  const body = typeof input.payload === "string" ? input.payload : JSON.stringify(input.payload);
  const parsed = typeof input.payload === "string" ? safeParse(input.payload) : input.payload;
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    body,
    headers: {
      "content-type": "application/json",
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signatureHeader(input.secret, timestamp, body),
      [EVENT_HEADER]: input.event ?? (typeof parsed?.event === "string" ? parsed.event : "task.completed"),
      [DELIVERY_HEADER]:
        input.eventId ?? (typeof parsed?.event_id === "string" ? parsed.event_id : "evt_test"),
    },
  };
}

function safeParse(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Encryption at rest of stored `Idempotency-Key` responses. A first response may carry a
 * secret shown once — a new API key (`POST /api/api-keys`), an anonymous task's
 * `access_token` (`POST /api/submit-task`), a webhook signing secret (`POST /api/webhooks`)
 * — and a replay must return it byte for byte (contract: replays are identical), so the
 * body is kept encrypted, not hashed or redacted.
 *
 * AES-256-GCM under a key derived (HKDF-SHA256, info below) from the webhook secret key
 * (`WEBHOOK_SECRET_KEY`, lib/webhooks/secret-box.ts: required in production, a public
 * development key elsewhere), so one configured secret protects both and the two uses never
 * share a key. The record's scope and key are the additional authenticated data: a
 * ciphertext copied onto another record does not decrypt.
 *
 * Stored form: `v1.<iv>.<ciphertext>.<tag>` (base64url parts). Anything else is read as
 * plain text (records written before sealing; their secrets were redacted by migration).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { secretKey } from "../webhooks/secret-box.js";

const INFO = "ptes idempotency response v1";

let derived: { source: Buffer; key: Buffer } | undefined;

/** The 32-byte sealing key for the configured webhook secret key (memoised per source key). */
function sealingKey(): Buffer {
  const source = secretKey();
  if (!derived?.source.equals(source)) {
    derived = { source, key: Buffer.from(hkdfSync("sha256", source, Buffer.alloc(0), INFO, 32)) };
  }
  return derived.key;
}

function aad(scope: string, key: string): Buffer {
  return Buffer.from(`${scope}\n${key}`, "utf8");
}

/**
 * Encrypts `body` (a response body, UTF-8) for the record (`scope`, `key`).
 * @returns the stored form `v1.<iv>.<ciphertext>.<tag>`.
 * @throws Error when WEBHOOK_SECRET_KEY is unset in production.
 */
export function sealBody(body: string, scope: string, key: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(), iv);
  cipher.setAAD(aad(scope, key));
  const ciphertext = Buffer.concat([cipher.update(body, "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64url")}.${ciphertext.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`;
}

/** True when `stored` is in the sealed form. */
export function isSealed(stored: string): boolean {
  return /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/.test(stored);
}

/**
 * The body `sealBody` sealed for (`scope`, `key`); a plain (unsealed) value as is.
 * @throws Error when the key changed or the data was altered.
 */
export function openBody(stored: string, scope: string, key: string): string {
  if (!isSealed(stored)) return stored;
  const [, iv, ciphertext, tag] = stored.split(".") as [string, string, string, string];
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(), Buffer.from(iv, "base64url"));
  decipher.setAAD(aad(scope, key));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString(
    "utf8",
  );
}

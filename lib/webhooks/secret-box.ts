/**
 * Encryption at rest of webhook signing secrets (issue 6: "the stored secret is encrypted
 * at rest with a key from config"). The secret must be recoverable to sign deliveries, so
 * it is encrypted (AES-256-GCM), not hashed.
 *
 * Stored form: `v1.<iv base64url>.<ciphertext base64url>.<tag base64url>`, with the
 * webhook id as additional authenticated data, so a ciphertext copied onto another row
 * does not decrypt. Key: `WEBHOOK_SECRET_KEY` (base64 of 32 bytes), required in production;
 * elsewhere the development key below (public: never use it for real secrets).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { type Config, ConfigError, getConfig, productionProfile } from "../config.js";
import { randomAlphanumeric } from "../ids.js";

/** Prefix of webhook secrets (docs/api-conventions.md). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** The key used when WEBHOOK_SECRET_KEY is unset in a loopback/embedded development run: SHA-256 of this text. */
export const DEVELOPMENT_KEY_SOURCE = "ptes development webhook secret key (not secret)";

/** A new signing secret: `whsec_` + 40 alphanumerics (~238 bits). */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomAlphanumeric(40)}`;
}

/**
 * The 32-byte key from configuration.
 * @throws ConfigError when WEBHOOK_SECRET_KEY is unset in the production profile (lib/config.ts).
 */
export function secretKey(config: Config = getConfig()): Buffer {
  if (config.WEBHOOK_SECRET_KEY) return Buffer.from(config.WEBHOOK_SECRET_KEY, "base64");
  if (productionProfile(config).active) {
    throw new ConfigError("WEBHOOK_SECRET_KEY: required in the production profile (openssl rand -base64 32)");
  }
  return createHash("sha256").update(DEVELOPMENT_KEY_SOURCE).digest();
}

/** Encrypts `secret` for the row of webhook `webhookId`. */
export function encryptSecret(secret: string, webhookId: string, key: Buffer = secretKey()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(webhookId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv, ciphertext, cipher.getAuthTag()]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/**
 * Decrypts a stored secret of webhook `webhookId`.
 * @throws Error when the format is unknown, the key is wrong or the data was altered.
 */
export function decryptSecret(stored: string, webhookId: string, key: Buffer = secretKey()): string {
  const [version, iv, ciphertext, tag] = stored.split(".");
  if (version !== "v1" || !iv || !ciphertext || !tag) throw new Error("Unknown webhook secret format");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(webhookId, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString(
    "utf8",
  );
}

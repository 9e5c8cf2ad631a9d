/**
 * The VAPID key pair of Web Push (RFC 8292; issue 44 item 6; docs/notifications.md "Push
 * notifications"):
 *
 * - `VAPID_PUBLIC_KEY` / `VAPID_PRIVATE_KEY` when set (base64url, as `npx web-push
 *   generate-vapid-keys` prints them; lib/config/load.ts checks their shape);
 * - else, outside the production profile, a pair generated once into `DATA_DIR/vapid-keys.json`
 *   (in memory only when `DATA_DIR` is `memory://`), so `npm start` pushes with no account;
 * - else (production profile without keys) none: push notifications are off.
 *
 * The subject (`sub` claim) is `VAPID_SUBJECT`, default `mailto:` + CONTACT_EMAIL.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Config, getConfig, productionProfile } from "../config.js";

/** Name of the development key file under DATA_DIR. */
export const VAPID_KEY_FILE = "vapid-keys.json";

/** The pair in force and the subject, as web-push's `vapidDetails` takes them. */
export interface VapidDetails {
  publicKey: string;
  privateKey: string;
  subject: string;
}

let cached: { source: string; details: VapidDetails | null } | undefined;

/** A new P-256 pair, base64url (web-push's generator). */
async function generatePair(): Promise<{ publicKey: string; privateKey: string }> {
  const webpush = (await import("web-push")).default;
  return webpush.generateVAPIDKeys();
}

/** The development key file under `dataDir`, created with a new pair when absent (atomic rename). */
async function loadKeyFile(dataDir: string): Promise<{ publicKey: string; privateKey: string }> {
  const file = path.join(dataDir, VAPID_KEY_FILE);
  try {
    return JSON.parse(readFileSync(file, "utf8")) as { publicKey: string; privateKey: string };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(await generatePair(), null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return JSON.parse(readFileSync(file, "utf8")) as { publicKey: string; privateKey: string };
}

/**
 * The VAPID details of `config`, or null when push is off (production profile without keys).
 * Cached per key settings and data directory.
 * @throws Error when the development key file cannot be read or written
 */
export async function vapidDetails(config: Config = getConfig()): Promise<VapidDetails | null> {
  const source = JSON.stringify([
    config.VAPID_PUBLIC_KEY,
    config.VAPID_PRIVATE_KEY,
    config.VAPID_SUBJECT,
    config.DATA_DIR,
  ]);
  if (cached?.source === source) return cached.details;
  const subject = config.VAPID_SUBJECT ?? `mailto:${config.CONTACT_EMAIL}`;
  let details: VapidDetails | null;
  if (config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY) {
    details = { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY, subject };
  } else if (productionProfile(config).active) {
    details = null;
  } else if (config.DATA_DIR.startsWith("memory://")) {
    details = { ...(await generatePair()), subject };
  } else {
    details = { ...(await loadKeyFile(config.DATA_DIR)), subject };
  }
  cached = { source, details };
  return details;
}

/** Forgets the cached pair (tests that change the keys). */
export function resetVapidDetails(): void {
  cached = undefined;
}

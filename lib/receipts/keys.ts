/**
 * The keys of completion receipts (Ed25519, RFC 8037 OKP JWKs; algorithm `EdDSA`, RFC 8032):
 *
 * - the signing key is `RECEIPT_SIGNING_KEY` (a private JWK). Without it, outside the production
 *   profile, a key is generated once into `DATA_DIR/receipt-signing-key.json` (in memory only when
 *   `DATA_DIR` is `memory://`); the production profile refuses to serve without it (lib/config.ts);
 * - retired keys stay published for verification: `RECEIPT_PREVIOUS_KEYS` (public JWKs), plus
 *   the `previous` list of the development key file (`npx tsx scripts/receipt-key.ts rotate`);
 * - every key has a `kid`: the JWK's own, else its RFC 7638 thumbprint. The JWK Set of all
 *   public keys (current first) is served at /.well-known/jwks.json.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
// jose loads with the first key operation (cold start, docs/performance.md).
import type { importJWK, JWK } from "jose";
import { type Config, getConfig } from "../config.js";

/** Name of the development key file under DATA_DIR. */
export const DEV_KEY_FILE = "receipt-signing-key.json";

/** The development key file: the signing key (private JWK) and the retired public keys. */
export interface ReceiptKeyFile {
  signing: JWK;
  previous: JWK[];
}

/** The keys in force: the signing key and every public key to publish. */
export interface ReceiptKeyRing {
  kid: string;
  /** The private signing key, as jose imports it. */
  signingKey: Awaited<ReturnType<typeof importJWK>>;
  /** Public JWKs (`kid`, `alg`, `use` set), the current key first, then the retired ones. */
  publicKeys: JWK[];
}

/** Fails unless `jwk` is an Ed25519 OKP JWK (private when `needPrivate`); `name` labels the error. */
export function checkEd25519Jwk(jwk: unknown, name: string, needPrivate: boolean): JWK {
  const k = jwk as JWK | null;
  if (!k || typeof k !== "object" || k.kty !== "OKP" || k.crv !== "Ed25519" || typeof k.x !== "string") {
    throw new Error(`${name}: must be an Ed25519 JWK ({"kty":"OKP","crv":"Ed25519","x":…})`);
  }
  if (needPrivate && typeof k.d !== "string")
    throw new Error(`${name}: the private key member "d" is missing`);
  return k;
}

/** `jwk` without its private part, with `kid` (given or RFC 7638 thumbprint), `alg` and `use`. */
export async function publicJwk(jwk: JWK): Promise<JWK & { kid: string }> {
  const { calculateJwkThumbprint } = await import("jose");
  const kid = jwk.kid ?? (await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x! }));
  return { kty: "OKP", crv: "Ed25519", x: jwk.x!, kid, alg: "EdDSA", use: "sig" };
}

/** A new Ed25519 key pair as a private JWK with its thumbprint as `kid`. */
export async function generateReceiptKey(): Promise<JWK> {
  const { exportJWK, generateKeyPair } = await import("jose");
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: (await publicJwk(jwk)).kid, alg: "EdDSA", use: "sig" };
}

/** Parses `RECEIPT_PREVIOUS_KEYS`: a JSON array of JWKs or a JWK Set. */
export function parsePreviousKeys(value: string | undefined): JWK[] {
  if (!value) return [];
  const parsed = JSON.parse(value) as unknown;
  const list = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(list))
    throw new Error('RECEIPT_PREVIOUS_KEYS: must be a JSON array of JWKs or {"keys":[…]}');
  return list.map((k, i) => checkEd25519Jwk(k, `RECEIPT_PREVIOUS_KEYS[${i}]`, false));
}

/** Writes `file` atomically (temporary file, then rename). */
export function writeKeyFile(file: string, content: ReceiptKeyFile): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * The development key file under `dataDir`, created with a new key when absent. Two processes
 * racing both write a complete file; the last rename wins and both then read it back.
 */
export async function loadDevKeyFile(dataDir: string): Promise<ReceiptKeyFile> {
  const file = path.join(dataDir, DEV_KEY_FILE);
  try {
    return JSON.parse(readFileSync(file, "utf8")) as ReceiptKeyFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  writeKeyFile(file, { signing: await generateReceiptKey(), previous: [] });
  return JSON.parse(readFileSync(file, "utf8")) as ReceiptKeyFile;
}

let cached: { source: string; ring: Promise<ReceiptKeyRing> } | undefined;

async function buildRing(config: Config): Promise<ReceiptKeyRing> {
  let signing: JWK;
  let previous: JWK[] = parsePreviousKeys(config.RECEIPT_PREVIOUS_KEYS);
  if (config.RECEIPT_SIGNING_KEY) {
    signing = checkEd25519Jwk(JSON.parse(config.RECEIPT_SIGNING_KEY), "RECEIPT_SIGNING_KEY", true);
  } else if (config.DATA_DIR.startsWith("memory://")) {
    signing = await generateReceiptKey();
  } else {
    const file = await loadDevKeyFile(config.DATA_DIR);
    signing = checkEd25519Jwk(file.signing, DEV_KEY_FILE, true);
    previous = [
      ...(file.previous ?? []).map((k, i) => checkEd25519Jwk(k, `${DEV_KEY_FILE} previous[${i}]`, false)),
      ...previous,
    ];
  }
  const current = await publicJwk(signing);
  const olds = await Promise.all(previous.map(publicJwk));
  const publicKeys = [current, ...olds.filter((k) => k.kid !== current.kid)];
  const { importJWK } = await import("jose");
  const signingKey = await importJWK({ ...signing, alg: "EdDSA" }, "EdDSA");
  return { kid: current.kid, signingKey, publicKeys };
}

/**
 * The receipt key ring of `config` (cached per key settings and data directory).
 * @throws Error when a configured key is not an Ed25519 JWK, or the key file cannot be read or written
 */
export function receiptKeyRing(config: Config = getConfig()): Promise<ReceiptKeyRing> {
  const source = JSON.stringify([config.RECEIPT_SIGNING_KEY, config.RECEIPT_PREVIOUS_KEYS, config.DATA_DIR]);
  if (cached?.source !== source) {
    const ring = buildRing(config);
    ring.catch(() => {
      if (cached?.ring === ring) cached = undefined; // a failed load is retried next time
    });
    cached = { source, ring };
  }
  return cached.ring;
}

/** Forgets the cached key ring (tests that rotate keys). */
export function resetReceiptKeys(): void {
  cached = undefined;
}

/** The JWK Set of /.well-known/jwks.json: every public key, the current signing key first. */
export async function receiptJwks(config: Config = getConfig()): Promise<{ keys: JWK[] }> {
  return { keys: (await receiptKeyRing(config)).publicKeys };
}

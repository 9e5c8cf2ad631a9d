/**
 * A push service stand-in on 127.0.0.1 speaking the Web Push protocol, for the push tests (the
 * browsers' push services are SaaS unreachable from here):
 *
 * - RFC 8030 §5: a message is a POST to the subscription's endpoint with a `TTL` header; the
 *   service answers 201 Created (or the status a test sets for an endpoint, e.g. 410 Gone);
 * - RFC 8292: the `Authorization: vapid t=<JWT>, k=<public key>` header is checked: `k` must be
 *   the key the service published, the JWT (ES256) must verify with it, its `aud` must be the
 *   endpoint's origin, `exp` within 24 h, `sub` a mailto: or https: URL;
 * - RFC 8291 / RFC 8188: the body (`Content-Encoding: aes128gcm`) is decrypted with the
 *   subscription's private ECDH key and auth secret, which the test holds like a browser would,
 *   with node:crypto only (not the library that encrypted it).
 */
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A browser-side subscription: what `PushSubscription.toJSON()` gives, plus its private parts. */
export interface TestSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  ecdh: ReturnType<typeof createECDH>;
  authSecret: Buffer;
}

/** One message the stand-in received, checked and decrypted. */
export interface ReceivedPush {
  endpoint: string;
  ttl: number;
  urgency: string | undefined;
  /** The JWT claims of the VAPID header. */
  claims: { aud: string; exp: number; sub: string };
  vapidKey: string;
  payload: Record<string, unknown>;
}

/** Decrypts an `aes128gcm` Web Push body (RFC 8291 §3.4, RFC 8188 §2) for `sub`. */
export function decryptPush(body: Buffer, sub: Pick<TestSubscription, "ecdh" | "authSecret">): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const asPublic = body.subarray(21, 21 + idLength);
  const records = body.subarray(21 + idLength);
  if (records.length > recordSize) throw new Error("more than one record: not expected for a push message");
  const uaPublic = sub.ecdh.getPublicKey();
  const ecdhSecret = sub.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", ecdhSecret, sub.authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(records.subarray(records.length - 16));
  const padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("the last record's delimiter (0x02) is missing");
  return padded.subarray(0, end).toString("utf8");
}

/** Verifies a VAPID header (RFC 8292 §2-3) against `publicKey` (base64url); returns the claims. */
export function verifyVapid(
  header: string,
  publicKey: string,
): { claims: ReceivedPush["claims"]; k: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`not a vapid Authorization header: ${header}`);
  const [, jwt, k] = m as unknown as [string, string, string];
  if (k !== publicKey) throw new Error("the k parameter is not the service's VAPID public key");
  const [h, p, s] = jwt.split(".") as [string, string, string];
  const point = Buffer.from(k, "base64url");
  const key = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  });
  const header0 = JSON.parse(Buffer.from(h, "base64url").toString()) as { alg: string };
  if (header0.alg !== "ES256") throw new Error(`JWT alg ${header0.alg}, not ES256`);
  const ok = verify(
    "sha256",
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(s, "base64url"),
  );
  if (!ok) throw new Error("the VAPID JWT signature does not verify with the public key");
  return { claims: JSON.parse(Buffer.from(p, "base64url").toString()) as ReceivedPush["claims"], k };
}

/** The stand-in: its origin, the messages received, and a way to make an endpoint answer a status. */
export interface PushService {
  origin: string;
  received: ReceivedPush[];
  /** Requests refused by the checks (wrong key, bad JWT, undecryptable body), with the reason. */
  refused: string[];
  /** A new subscription at this service (a fresh P-256 key pair and auth secret). */
  subscribe(): TestSubscription;
  /** Makes `endpoint` answer `status` from now on (e.g. 410 once the browser dropped it). */
  answer(endpoint: string, status: number): void;
  close(): Promise<void>;
}

/** Starts the stand-in; `publicKey` is the VAPID public key the service under test publishes. */
export async function startPushService(publicKey: () => string): Promise<PushService> {
  const subs = new Map<string, TestSubscription>();
  const statuses = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let origin = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const endpoint = `${origin}${req.url}`;
      try {
        const sub = subs.get(endpoint);
        if (req.method !== "POST" || !sub) throw new Error(`unknown subscription ${req.method} ${req.url}`);
        const status = statuses.get(endpoint);
        if (status) {
          res.writeHead(status).end();
          return;
        }
        const ttl = req.headers.ttl;
        if (typeof ttl !== "string" || !/^\d+$/.test(ttl))
          throw new Error("the TTL header is missing (RFC 8030 §5.2)");
        if (req.headers["content-encoding"] !== "aes128gcm")
          throw new Error("Content-Encoding is not aes128gcm");
        const { claims, k } = verifyVapid(String(req.headers.authorization ?? ""), publicKey());
        if (claims.aud !== origin) throw new Error(`JWT aud ${claims.aud}, not ${origin}`);
        const now = Date.now() / 1000;
        if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60))
          throw new Error("JWT exp not within 24 h");
        if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error("JWT sub is not mailto: or https:");
        const payload = JSON.parse(decryptPush(Buffer.concat(chunks), sub)) as Record<string, unknown>;
        received.push({
          endpoint,
          ttl: Number(ttl),
          urgency: req.headers.urgency as string | undefined,
          claims,
          vapidKey: k,
          payload,
        });
        res.writeHead(201, { location: `${origin}/message/${received.length}` }).end();
      } catch (error) {
        refused.push(error instanceof Error ? error.message : String(error));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let n = 0;
  return {
    origin,
    received,
    refused,
    subscribe() {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const authSecret = randomBytes(16);
      const endpoint = `${origin}/push/${++n}-${randomBytes(6).toString("hex")}`;
      const sub = {
        endpoint,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: authSecret.toString("base64url") },
        ecdh,
        authSecret,
      };
      subs.set(endpoint, sub);
      return sub;
    },
    answer(endpoint, status) {
      statuses.set(endpoint, status);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

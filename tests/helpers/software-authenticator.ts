/**
 * A software WebAuthn authenticator for endpoint tests (W3C WebAuthn L3 §6): one ES256 (P-256)
 * passkey, "none" attestation, a signature counter the test controls. It builds the same JSON a
 * browser answers (what @simplewebauthn/browser returns), so the server's real verification runs
 * on it; the browser test uses Chromium's virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** A 32-bit big-endian counter. */
function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

/** One passkey held by a software authenticator. */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
  /** The counter the next assertion carries (set it back to test a cloned authenticator). */
  counter = 0;
  private userHandle: string | undefined;

  constructor(readonly origin: string) {}

  get id(): string {
    return b64url(this.credentialId);
  }

  private coseKey(): Uint8Array {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    const key = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]);
    return isoCBOR.encode(key);
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** The answer of `navigator.credentials.create(options)`. */
  register(options: {
    challenge: string;
    rp: { id?: string };
    user: { id: string };
  }): Record<string, unknown> {
    this.userHandle = options.user.id;
    const rpId = options.rp.id!;
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x45]), // UP | UV | AT
      u32(this.counter),
      Buffer.alloc(16), // AAGUID
      Buffer.from([0, this.credentialId.length]),
      this.credentialId,
      Buffer.from(this.coseKey()),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /**
   * The answer of `navigator.credentials.get(options)` for `rpId`, signed with the next counter
   * (`counter` is incremented first unless `keepCounter`).
   */
  assert(options: { challenge: string; rpId?: string }, keepCounter = false): Record<string, unknown> {
    if (!keepCounter) this.counter += 1;
    const authData = Buffer.concat([sha256(options.rpId!), Buffer.from([0x05]), u32(this.counter)]);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}

/** base64url of a UTF-8 string (a user handle). */
export const utf8ToBase64url = (text: string) => isoBase64URL.fromUTF8String(text);

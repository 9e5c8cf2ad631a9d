/**
 * TOTP of staff sign-in (RFC 6238: 30 s steps, 6 digits, SHA-1; what authenticator apps read),
 * through otplib. One step of clock drift either way is accepted, and a code is never accepted
 * twice: the step it matched is kept (`staff_members.totp_last_step`) and later codes must be of a
 * later step (RFC 6238 §5.2). At enrolment the `otpauth://` URI is also drawn as a QR code (the
 * `qrcode` library) for a phone's authenticator app to scan (issue 44 item 3).
 */
import { generateSecret, generateURI, verify } from "otplib";
import QRCode from "qrcode";

/** Clock drift accepted, seconds (one step either way). */
export const TOTP_TOLERANCE_SECONDS = 30;

/** A new base32 secret (20 random bytes). */
export function newTotpSecret(): string {
  return generateSecret();
}

/** The `otpauth://totp/…` URI an authenticator app reads (as a QR code or pasted). */
export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: "Physical Task Execution Service", label: email, secret });
}

/**
 * Checks `code` against `secret`, refusing steps at or before `lastStep`.
 * @returns the matched time step, or null when the code is wrong, stale or replayed
 */
export async function checkTotp(
  secret: string,
  code: string,
  lastStep: number | null,
): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epochTolerance: TOTP_TOLERANCE_SECONDS,
    ...(lastStep !== null ? { afterTimeStep: lastStep } : {}),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/**
 * The QR code of `uri` as a `data:image/svg+xml;base64,…` URL (an `<img src>` the page shows; the
 * pages' CSP allows `data:` images): error correction M, a 4-module quiet zone.
 */
export async function totpQrDataUrl(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 4 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}

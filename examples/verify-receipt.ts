/**
 * Verifies a completion receipt offline: `npx tsx examples/verify-receipt.ts <receipt> <jwks-url>`
 * (jwks-url: https://<service>/.well-known/jwks.json). Prints the signed claims; exits 1 if the
 * signature does not verify. Compare each proof file's SHA-256 with `proof[i].sha256` yourself.
 */
import { compactVerify, createRemoteJWKSet } from "jose";

const [receipt, jwksUrl] = process.argv.slice(2);
const keys = createRemoteJWKSet(new URL(jwksUrl!));
const { payload, protectedHeader } = await compactVerify(receipt!, keys, { algorithms: ["EdDSA"] });
if (protectedHeader.typ !== "task-receipt+jws") throw new Error("not a task receipt");
console.log(
  JSON.stringify({ kid: protectedHeader.kid, ...JSON.parse(new TextDecoder().decode(payload)) }, null, 2),
);

/**
 * Receipt signing keys (docs/receipts.md):
 *
 *   npx tsx scripts/receipt-key.ts generate   prints a new private Ed25519 JWK (for RECEIPT_SIGNING_KEY)
 *                                             and its public JWK (to add to RECEIPT_PREVIOUS_KEYS later)
 *   npx tsx scripts/receipt-key.ts rotate     development only: in DATA_DIR/receipt-signing-key.json,
 *                                             keeps the current key's public part in `previous` and
 *                                             signs with a new key from now on
 */
import path from "node:path";
import { getConfig } from "../lib/config.js";
import {
  DEV_KEY_FILE,
  generateReceiptKey,
  loadDevKeyFile,
  publicJwk,
  writeKeyFile,
} from "../lib/receipts/keys.js";

const command = process.argv[2];
if (command === "generate") {
  const key = await generateReceiptKey();
  console.log(`RECEIPT_SIGNING_KEY='${JSON.stringify(key)}'`);
  console.log(
    `# public part, for RECEIPT_PREVIOUS_KEYS once this key is retired:\n${JSON.stringify(await publicJwk(key))}`,
  );
} else if (command === "rotate") {
  const dir = getConfig().DATA_DIR;
  if (dir.startsWith("memory://")) throw new Error("DATA_DIR is in memory: nothing to rotate");
  const file = await loadDevKeyFile(dir);
  const next = await generateReceiptKey();
  writeKeyFile(path.join(dir, DEV_KEY_FILE), {
    signing: next,
    previous: [await publicJwk(file.signing), ...(file.previous ?? [])],
  });
  console.log(
    `${path.join(dir, DEV_KEY_FILE)}: now signing with ${next.kid}; ${file.signing.kid} kept for verification`,
  );
} else {
  console.error("usage: npx tsx scripts/receipt-key.ts generate|rotate");
  process.exitCode = 2;
}

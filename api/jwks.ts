/** GET /.well-known/jwks.json (rewritten to /api/jwks) — public keys of completion receipts. */
import { endpoint, route } from "../lib/http/handler.js";
import { receiptJwks } from "../lib/receipts/keys.js";
import { getReceiptKeysOperation } from "../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getReceiptKeysOperation, async () => {
    return new Response(JSON.stringify(await receiptJwks()), {
      headers: { "content-type": "application/jwk-set+json" },
    });
  }),
});

/** POST /api/privacy — the signed-in client's erasure request, or its withdrawal (lib/privacy/erasure.ts). */
import { endpoint, route } from "../lib/http/handler.js";
import { requestErasure, withdrawErasure } from "../lib/privacy/erasure.js";
import { privacyRequestOperation } from "../lib/privacy/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(privacyRequestOperation, async ({ client, body }) => {
    if (body.action === "withdraw_erasure") {
      return { erasure_request: await withdrawErasure(client.account), created: false };
    }
    const { request, created } = await requestErasure(client.account);
    return { erasure_request: request, created };
  }),
});

/** /api/webhooks — register (POST), list (GET) and delete (DELETE) webhooks (lib/webhooks). */
import { endpoint, route } from "../lib/http/handler.js";
import { deleteWebhook } from "../lib/webhooks/delete-webhook.js";
import { listWebhooks } from "../lib/webhooks/list-webhooks.js";
import {
  createWebhookOperation,
  deleteWebhookOperation,
  listWebhooksOperation,
} from "../lib/webhooks/operations.js";
import { registerWebhook } from "../lib/webhooks/register-webhook.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(createWebhookOperation, ({ body, caller }) => registerWebhook(caller, body)),
  GET: endpoint(listWebhooksOperation, ({ caller }) => listWebhooks(caller)),
  DELETE: endpoint(deleteWebhookOperation, ({ body, caller }) => deleteWebhook(caller, body.webhook_id)),
});

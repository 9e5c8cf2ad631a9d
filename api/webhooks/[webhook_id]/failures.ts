/**
 * /api/webhooks/{webhook_id}/failures — the webhook's dead-letter queue (GET) and replay
 * of one dead-lettered event (POST {event_id}) (lib/webhooks).
 */

import { replayWebhookFailure } from "../../../lib/events/replay-failure.js";
import { endpoint, route } from "../../../lib/http/handler.js";
import { listWebhookFailures } from "../../../lib/webhooks/list-failures.js";
import {
  listWebhookFailuresOperation,
  replayWebhookFailureOperation,
} from "../../../lib/webhooks/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listWebhookFailuresOperation, ({ params, query, caller }) =>
    listWebhookFailures(caller, params.webhook_id!, query),
  ),
  POST: endpoint(replayWebhookFailureOperation, ({ params, body, caller }) =>
    replayWebhookFailure(caller, params.webhook_id!, body.event_id),
  ),
});

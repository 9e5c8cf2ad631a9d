/** Operation descriptors of /api/webhooks and /api/webhooks/{webhook_id}/failures. */
import { defineOperation, type Operation } from "../descriptors/operation.js";
import {
  createWebhookBodySchema,
  deleteWebhookBodySchema,
  failuresListSchema,
  failuresQuerySchema,
  replayFailureBodySchema,
  replayResultSchema,
  webhookCreatedSchema,
  webhookDeletedSchema,
  webhookListSchema,
} from "./schemas.js";

export const createWebhookOperation = defineOperation({
  id: "createWebhook",
  method: "POST",
  path: "/api/webhooks",
  summary: "Register a webhook (secret shown once)",
  description:
    "HTTPS URL that must not resolve to a private address; `events` from the event list (a URL or an event " +
    "list that breaks these rules is 400 INVALID_FORMAT, as the spec says). At most 5 active " +
    "webhooks per key (the 6th is 422 VALIDATION_ERROR). Deliveries are signed: X-Service-Signature = " +
    '`sha256=` HMAC-SHA256(secret, X-Service-Timestamp + "." + raw body). Retries after 30 s, 5 min and 30 min, ' +
    "then the dead-letter queue (72 h) and a fallback e-mail.",
  tags: ["Webhooks"],
  auth: "key",
  scope: "task_create",
  body: createWebhookBodySchema,
  response: webhookCreatedSchema,
  successStatus: 201,
  idempotent: true,
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "VALIDATION_ERROR", "FIELD_TOO_LONG"],
});

export const listWebhooksOperation = defineOperation({
  id: "listWebhooks",
  method: "GET",
  path: "/api/webhooks",
  summary: "List the caller's active webhooks",
  tags: ["Webhooks"],
  auth: "key",
  scope: "audit_only",
  response: webhookListSchema,
});

export const deleteWebhookOperation = defineOperation({
  id: "deleteWebhook",
  method: "DELETE",
  path: "/api/webhooks",
  summary:
    "Delete a webhook (pending deliveries are cancelled; dead letters stay readable until they expire)",
  tags: ["Webhooks"],
  auth: "key",
  scope: "task_create",
  body: deleteWebhookBodySchema,
  response: webhookDeletedSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "NOT_FOUND"],
});

/**
 * What the dead-letter operations of a webhook share: tagged Webhooks, for a key with the operation's
 * scope, and for the console (issue 26): an owner's staff session reads and replays any webhook's.
 */
const DEAD_LETTERS = {
  tags: ["Webhooks"],
  auth: "key",
  staffAccess: true,
} satisfies Partial<Operation>;

export const listWebhookFailuresOperation = defineOperation({
  id: "listWebhookFailures",
  method: "GET",
  path: "/api/webhooks/{webhook_id}/failures",
  summary: "Dead-letter queue of a webhook (failed deliveries kept 72 h), newest first",
  ...DEAD_LETTERS,
  scope: "audit_only",
  query: failuresQuerySchema,
  response: failuresListSchema,
  errors: ["NOT_FOUND", "VALIDATION_ERROR"],
});

export const replayWebhookFailureOperation = defineOperation({
  id: "replayWebhookFailure",
  method: "POST",
  path: "/api/webhooks/{webhook_id}/failures",
  summary:
    "Replay a dead-lettered event: it leaves the queue and is delivered again with the full retry schedule",
  ...DEAD_LETTERS,
  scope: "task_create",
  body: replayFailureBodySchema,
  response: replayResultSchema,
  successStatus: 202,
  idempotent: true,
  errors: ["MISSING_FIELD", "NOT_FOUND"],
});

/** Operation descriptor of GET /api/tasks/stream (docs/api-conventions.md "Event stream"). */
import { z } from "zod";
import { defineOperation } from "../descriptors/operation.js";
import { streamQuerySchema } from "./schemas.js";

export const taskStreamOperation = defineOperation({
  id: "streamTaskEvents",
  method: "GET",
  path: "/api/tasks/stream",
  summary: "Server-sent events of one task",
  description:
    "Auth: the key that submitted the task (or an admin), or `access_token` for anonymous submissions; else 403. " +
    "`text/event-stream`: `stream.connected` first, then the task's events (`id:` = event sequence number; " +
    "`task.dispatched` is sent as `task.assigned`), a `: heartbeat` comment every 15 s, and the stream closes " +
    "after a terminal event (completed, rejected, failed, payment_expired, cancelled). Without `Last-Event-ID` " +
    "the task's whole history is sent first; with it, only later events. `X-Stream-Timeout` (seconds, default " +
    "and max 14400) bounds one connection; at the end a `stream.timeout` event is sent and the client " +
    "reconnects with Last-Event-ID (on Vercel one connection lasts at most STREAM_MAX_SECONDS, 55 s by default). " +
    "Reconnecting after the terminal event answers 204, which tells EventSource clients to stop.",
  tags: ["Tasks"],
  auth: "optional",
  staffAccess: true,
  query: streamQuerySchema,
  documentedHeaders: [
    {
      name: "X-Stream-Timeout",
      required: false,
      description:
        "Seconds this connection may last, 1-14400 (default 14400; capped by STREAM_MAX_SECONDS, 55 on Vercel). " +
        "At the end a `stream.timeout` event is sent; reconnect with Last-Event-ID. The effective value is echoed " +
        "in the `X-Stream-Timeout` response header.",
      example: "600",
    },
    {
      name: "Last-Event-ID",
      required: false,
      description:
        "The `id:` of the last event received (an integer): only later events are sent. EventSource clients send it " +
        "by themselves when they reconnect; the `last_event_id` query parameter does the same.",
      example: "12",
    },
  ],
  response: z.string().meta({ description: "text/event-stream" }),
  contentType: "text/event-stream",
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "FORBIDDEN", "NOT_FOUND", "RATE_LIMITED"],
});

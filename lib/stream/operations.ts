/** Operation descriptor of GET /api/tasks/stream (interface-spec.md "Event stream"). */
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
  query: streamQuerySchema,
  response: z.string().meta({ description: "text/event-stream" }),
  contentType: "text/event-stream",
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "FORBIDDEN", "NOT_FOUND"],
});

/**
 * GET /api/tasks/stream?task_id= (docs/api-conventions.md "Event stream", "Authentication" 6).
 *
 * Wire format (text/event-stream):
 * ```
 * retry: 3000
 * event: stream.connected
 * data: {"task_id":"TASK-…","status":"received","last_event_id":null,"timeout_seconds":14400}
 *
 * id: 42
 * event: task.accepted
 * data: {"event_id":"evt_…","event":"task.accepted","created_at":"…","data":{"task_id":"TASK-…","status":"accepted_pending_payment",…}}
 *
 * : heartbeat
 * ```
 * `data` of a task event is the webhook body (docs/api-conventions.md "Webhook deliveries"), so one
 * parser serves both; `task.dispatched` is named `task.assigned` on the stream (docs/api-conventions.md).
 *
 * Timeout: `X-Stream-Timeout` (seconds, 1-14400, default 14400 = 4 h) bounds the connection,
 * further capped by STREAM_MAX_SECONDS (55 s on Vercel, whose functions here run at most
 * 60 s). At the bound the server sends `stream.timeout` and closes; EventSource clients
 * reconnect by themselves with `Last-Event-ID` and miss nothing. The effective value is
 * echoed in the `X-Stream-Timeout` response header.
 */
import type { Config } from "../config.js";
import { TERMINAL_TASK_STATUSES } from "../db/schema/enums.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { presentedAccessToken } from "../keys/credentials.js";
import { getTaskOrThrow } from "../tasks/state/apply-transition.js";
import { type TaskOwnership, taskAccess } from "../tasks/state/task-access.js";
import { serializeBody } from "../webhooks/payloads.js";
import { eventHub, readTaskEvents, type StreamEventRow } from "./event-hub.js";
import type { StreamQuery } from "./schemas.js";
import { takeStreamSlot } from "./stream-slots.js";

/** Default and largest `X-Stream-Timeout`, seconds (spec "Limits": 4 h). */
export const MAX_STREAM_TIMEOUT_SECONDS = 14_400;

/** Client reconnection delay announced with `retry:`, ms. */
export const RETRY_MS = 3000;

/** Longest connection here: STREAM_MAX_SECONDS, else 55 s on Vercel, else 4 h. */
export function connectionLimitSeconds(config: Config): number {
  return config.STREAM_MAX_SECONDS ?? (config.VERCEL ? 55 : MAX_STREAM_TIMEOUT_SECONDS);
}

/** Stream name of an outbox event type. */
export function streamEventName(type: string): string {
  return type === "task.dispatched" ? "task.assigned" : type;
}

const isTerminal = (row: StreamEventRow) =>
  row.taskStatus !== null && (TERMINAL_TASK_STATUSES as readonly string[]).includes(row.taskStatus);

/**
 * Whether `caller` / `accessToken` may follow `task`: its owner or an admin (the one task-access
 * rule, lib/tasks/state/task-access.ts).
 * @throws DomainError FORBIDDEN (the spec's status for a stream without an ownership credential)
 */
async function authorizeStream(
  task: TaskOwnership,
  caller: Caller | null,
  accessToken: string | undefined,
): Promise<void> {
  if ((await taskAccess(task, { caller, accessToken })) !== "public") return;
  throw new DomainError(
    "FORBIDDEN",
    "The event stream requires the task's owner (the key that submitted it, a key of the same account, or its access_token) or an admin key",
  );
}

function parseLastEventId(request: Request, query: StreamQuery): number | null {
  const raw = request.headers.get("last-event-id") ?? query.last_event_id;
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  if (!/^\d{1,15}$/.test(raw.trim())) {
    throw new DomainError(
      "INVALID_FORMAT",
      "Last-Event-ID must be an event id received from this stream (an integer)",
      {
        field: "Last-Event-ID",
      },
    );
  }
  return Number(raw.trim());
}

function parseTimeout(request: Request): number {
  const raw = request.headers.get("x-stream-timeout");
  if (raw === null || raw.trim() === "") return MAX_STREAM_TIMEOUT_SECONDS;
  if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw.trim()) < 1) {
    throw new DomainError(
      "INVALID_FORMAT",
      "X-Stream-Timeout must be a whole number of seconds, 1 to 14400",
      {
        field: "X-Stream-Timeout",
      },
    );
  }
  return Math.min(Number(raw.trim()), MAX_STREAM_TIMEOUT_SECONDS);
}

function frame(row: StreamEventRow): string {
  const name = streamEventName(row.type);
  const data = serializeBody("webhook", {
    event_id: row.id,
    event: name,
    created_at: row.createdAt.toISOString(),
    data: row.payload,
  });
  return `id: ${row.seq}\nevent: ${name}\ndata: ${data}\n\n`;
}

/**
 * The first frame of a stream (`stream.connected`, with the reconnection delay `retry`): the
 * task's id and status, the client's Last-Event-ID, the connection's time limit and heartbeat
 * period (seconds) and the server time.
 */
function connectedFrame(
  task: { id: string; status: string },
  lastEventId: number | null,
  timeoutSeconds: number,
  config: Config,
): string {
  return `retry: ${RETRY_MS}\nevent: stream.connected\ndata: ${JSON.stringify({
    task_id: task.id,
    status: task.status,
    last_event_id: lastEventId === null ? null : String(lastEventId),
    timeout_seconds: timeoutSeconds,
    heartbeat_seconds: config.STREAM_HEARTBEAT_SECONDS,
    server_time: new Date().toISOString(),
  })}\n\n`;
}

/** The last frame of a stream that reached its time limit (`stream.timeout`): reconnect to resume. */
function timeoutFrame(taskId: string, timeoutSeconds: number): string {
  return `event: stream.timeout\ndata: ${JSON.stringify({
    task_id: taskId,
    timeout_seconds: timeoutSeconds,
    reconnect: true,
    message: "Connection time limit reached; reconnect with Last-Event-ID to resume.",
  })}\n\n`;
}

/** Input of `openTaskStream`. */
export interface OpenStreamInput {
  request: Request;
  query: StreamQuery;
  caller: Caller | null;
  config: Config;
}

/** An opened task stream: the SSE bytes, or null when there is nothing left to send. */
export interface TaskStream {
  /**
   * The `text/event-stream` body; null when the task is terminal and the client already has
   * every event (the adapter answers 204, which tells EventSource not to reconnect).
   */
  body: ReadableStream<Uint8Array> | null;
  /** How long the connection stays open, seconds (the `X-Stream-Timeout` header). */
  timeoutSeconds: number;
}

/**
 * Authorizes and opens the stream.
 * @returns the stream's body and time limit (see `TaskStream`)
 * @throws DomainError NOT_FOUND (unknown task), FORBIDDEN, INVALID_FORMAT (Last-Event-ID, X-Stream-Timeout),
 *   RATE_LIMITED (STREAM_MAX_PER_CREDENTIAL streams of the credential open, on any instance);
 *   StorageError (the shared slot store failed: 503 STORAGE_ERROR)
 */
export async function openTaskStream({
  request,
  query,
  caller,
  config,
}: OpenStreamInput): Promise<TaskStream> {
  const lastEventId = parseLastEventId(request, query);
  const requested = parseTimeout(request);
  const task = await getTaskOrThrow(query.task_id);
  const accessToken = query.access_token ?? presentedAccessToken(request);
  await authorizeStream(task, caller, accessToken);
  const timeoutSeconds = Math.min(requested, connectionLimitSeconds(config));
  const backlog = await readTaskEvents(task.id, lastEventId ?? 0);
  const taskTerminal = (TERMINAL_TASK_STATUSES as readonly string[]).includes(task.status);
  if (taskTerminal && backlog.length === 0 && lastEventId !== null) {
    return { body: null, timeoutSeconds };
  }

  // The key's slots when a key is sent (the owner's or an admin's), else the access token's.
  const holder = caller ? `key:${caller.keyId}` : `token:${sha256Hex(accessToken ?? "")}`;
  // Counted across every instance, leased and renewed by the heartbeat (stream-slots.ts).
  const slot = await takeStreamSlot(holder, config);
  const release = () => void slot.release();
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let lastWrite = Date.now();
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
          lastWrite = Date.now();
        } catch {
          finish();
        }
      };
      const finish = () => {
        if (closed) return;
        closed = true;
        cleanup();
        release();
        try {
          controller.close();
        } catch {
          // already closed or cancelled
        }
      };
      const send = (rows: StreamEventRow[]) => {
        for (const row of rows) {
          write(frame(row));
          if (isTerminal(row)) return finish();
        }
      };
      let cursor = lastEventId ?? 0;
      write(connectedFrame(task, lastEventId, timeoutSeconds, config));
      if (backlog.length) cursor = backlog[backlog.length - 1]!.seq;
      send(backlog);
      if (closed) return;
      const unsubscribe = eventHub.subscribe({ taskId: task.id, cursor, onEvents: send });
      const heartbeat = setInterval(() => {
        if (Date.now() - lastWrite >= config.STREAM_HEARTBEAT_SECONDS * 1000 - 50) write(": heartbeat\n\n");
        void slot.renew();
      }, config.STREAM_HEARTBEAT_SECONDS * 1000);
      const deadline = setTimeout(() => {
        write(timeoutFrame(task.id, timeoutSeconds));
        finish();
      }, timeoutSeconds * 1000);
      const onAbort = () => finish();
      request.signal.addEventListener("abort", onAbort);
      cleanup = () => {
        unsubscribe();
        clearInterval(heartbeat);
        clearTimeout(deadline);
        request.signal.removeEventListener("abort", onAbort);
      };
    },
    cancel() {
      cleanup();
      release();
    },
  });
  return { body, timeoutSeconds };
}

/**
 * Bodies of outgoing deliveries.
 *
 * - Registered webhooks (docs/api-conventions.md "Webhook deliveries"):
 *   `{ event_id, event, created_at, data: { task_id, status, previous_status, service_type, sandbox, … } }`
 *   where `data` is the outbox event's payload (billing events: `{ account_id, … }`, no task).
 * - Per-task `callback_url` (docs/api-conventions.md "Per-task callback"), on `task.completed` only:
 *   `{ event, task_id, status, service_type, location_address, completed_at, operator_notes,
 *   proof_files, api_url, event_id }`; `proof_files` are links into the status operation
 *   (`<api_url>#proof_files_data/<index>`), never file bodies; `event_id` is added for de-duplication.
 *   Added for verifiable work (docs/receipts.md), from the event: `proof_file_details` (`[{ filename,
 *   type, size, sha256 }]`, the same files in the same order) and `receipt` (the signed completion
 *   receipt, a compact JWS), when the event carries them; `site_visit` (the field person's
 *   check-in, or null; issue 26 item 6) likewise.
 *
 * Bodies are stored in `deliveries.payload` (jsonb, which reorders keys), so they are
 * serialized with `serializeBody`, which puts the documented keys first in their
 * documented order: every attempt sends the same bytes.
 */
import type { DeliveryKind } from "../db/schema/enums.js";
import type { Task, TaskEvent } from "../db/schema/index.js";
import { taskLinks } from "../tasks/state/task-links.js";

const WEBHOOK_KEYS = ["event_id", "event", "created_at", "data"];
const DATA_KEYS = ["task_id", "status", "previous_status", "service_type", "sandbox"];
const CALLBACK_KEYS = [
  "event",
  "task_id",
  "status",
  "service_type",
  "location_address",
  "completed_at",
  "operator_notes",
  "proof_files",
  "api_url",
  "event_id",
  "proof_file_details",
  "site_visit",
  "visit_rule",
  "receipt",
];

/** The webhook body of `event`. */
export function webhookBody(event: TaskEvent): Record<string, unknown> {
  return {
    event_id: event.id,
    event: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.payload,
  };
}

/** The callback body of a `task.completed` event of `task` with `fileCount` proof files. */
export function callbackBody(event: TaskEvent, task: Task, fileCount: number): Record<string, unknown> {
  const apiUrl = taskLinks(task.id).self;
  return {
    event: "task.completed",
    task_id: task.id,
    status: "completed",
    service_type: task.serviceType,
    location_address: task.locationAddress,
    completed_at: (task.completedAt ?? event.createdAt).toISOString(),
    operator_notes: task.operatorNotes ?? "",
    proof_files: Array.from({ length: fileCount }, (_, i) => `${apiUrl}#proof_files_data/${i}`),
    api_url: apiUrl,
    event_id: event.id,
    ...(Array.isArray(event.payload.proof_files) ? { proof_file_details: event.payload.proof_files } : {}),
    ...("site_visit" in event.payload ? { site_visit: event.payload.site_visit } : {}),
    ...("visit_rule" in event.payload ? { visit_rule: event.payload.visit_rule } : {}),
    ...(typeof event.payload.receipt === "string" ? { receipt: event.payload.receipt } : {}),
  };
}

function ordered(value: Record<string, unknown>, first: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of first) if (k in value) out[k] = value[k];
  for (const k of Object.keys(value).sort()) if (!(k in out)) out[k] = value[k];
  return out;
}

/** The exact JSON text sent for a stored delivery body. */
export function serializeBody(kind: DeliveryKind, payload: Record<string, unknown>): string {
  if (kind === "callback") return JSON.stringify(ordered(payload, CALLBACK_KEYS));
  const body = ordered(payload, WEBHOOK_KEYS);
  if (body.data && typeof body.data === "object" && !Array.isArray(body.data)) {
    body.data = ordered(body.data as Record<string, unknown>, DATA_KEYS);
  }
  return JSON.stringify(body);
}

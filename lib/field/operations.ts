/**
 * Operation descriptors of assignment and the field app (issue 26 items 4-5;
 * docs/staff-and-audit.md "Assignment", "Field app"): POST /api/task-assign (permission
 * `tasks.assign`), GET and POST /api/field-visit and POST /api/field-proof (`tasks.execute`, on the
 * tasks assigned to the caller).
 */
import { defineOperation, type Operation } from "../descriptors/operation.js";
import { operatorTaskAction } from "../tasks/operations.js";
import { MAX_PROOF_FILE_BYTES } from "../tasks/state/proof-files.js";
import {
  assignableStaffSchema,
  assignTaskBodySchema,
  FIELD_PROOF_IMAGE_TYPES,
  fieldProofBodySchema,
  fieldProofQuerySchema,
  fieldProofResponseSchema,
  fieldTaskListSchema,
  fieldTaskSchema,
  fieldVisitBodySchema,
  MAX_FIELD_PROOF_FILES,
} from "./schemas.js";

export const assignTaskOperation = operatorTaskAction({
  id: "assignTask",
  path: "/api/task-assign",
  summary: "Assign a task to a field staff member, reassign or unassign it (dispatcher)",
  description:
    "For a paid, dispatched or on-site task (else 409 CONFLICT with current_status). `staff_id` must be an " +
    "active staff member with role field or owner (else 422 on staff_id); null unassigns. Emits task.assigned " +
    "(webhooks, the event stream; the requester sees only the display name) with the change; assigning the " +
    "person already assigned changes nothing. Answers the task's status.",
  permission: "tasks.assign",
  body: assignTaskBodySchema,
});

export const listAssignableStaffOperation = defineOperation({
  id: "listAssignableStaff",
  method: "GET",
  path: "/api/task-assign",
  summary: "The people a task can be assigned to: active field staff and owners (dispatcher)",
  description:
    "Display names and ids only (no e-mail), field staff first, for the console's assignment control; " +
    "the staff list with e-mails and statuses is GET /api/staff (owner).",
  tags: ["Operator"],
  auth: "admin",
  permission: "tasks.assign",
  response: assignableStaffSchema,
  cacheControl: "no-store",
});

/**
 * What the field app's operations share: tagged Field, for a signed-in field staff member (auth
 * `admin`: a staff session) holding `tasks.execute`, on the tasks assigned to the caller.
 */
const FIELD_APP = {
  tags: ["Field"],
  auth: "admin",
  permission: "tasks.execute",
} satisfies Partial<Operation>;

export const listFieldTasksOperation = defineOperation({
  id: "listFieldTasks",
  method: "GET",
  path: "/api/field-visit",
  summary: "The signed-in field staff member's assigned open tasks, closest deadline first",
  description:
    "A staff session only (an API key → 403). Paid, dispatched and on-site tasks assigned to the caller with " +
    "address, instructions, execution deadline, the deadline watch's at_risk flag, coordinates, an " +
    "OpenStreetMap link, a geo: URI, the site visit and the proof files uploaded so far.",
  ...FIELD_APP,
  response: fieldTaskListSchema,
  cacheControl: "no-store",
  errors: ["FORBIDDEN"],
});

export const recordFieldVisitOperation = defineOperation({
  id: "recordFieldVisit",
  method: "POST",
  path: "/api/field-visit",
  summary: "Check in to or out of an assigned task's site, with the phone's position",
  description:
    "By the task's assignee only (else 403). check_in: the server measures the distance to the task's place; " +
    "within GEOFENCE_RADIUS_M plus the reported accuracy (capped by GEOFENCE_ACCURACY_CAP_M) the task goes " +
    "on_site (a paid task is dispatched first); outside, a `reason` is required (else 422 on reason with " +
    "error.distance_m and error.geofence_m) and the visit is flagged (within_geofence false). A second check_in " +
    "answers the first. check_out before check_in → 409. Made offline: `captured_at` (RFC 3339) is when the position " +
    "was taken, bounded (after the assignment, not in the future, at most OFFLINE_CAPTURE_MAX_AGE_H old; else 422 on " +
    "captured_at); the visit keeps it as checked_in_at and the server's time as check_in_received_at. Sent after the " +
    "task was reassigned away from the caller → 409 with error.assigned_to ({display_name} of the new assignee, or null).",
  ...FIELD_APP,
  body: fieldVisitBodySchema,
  response: fieldTaskSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "NOT_FOUND", "FORBIDDEN", "CONFLICT"],
});

export const readFieldProofOperation = defineOperation({
  id: "readFieldProof",
  method: "GET",
  path: "/api/field-proof",
  summary: "One proof photo of a task (the field app's thumbnails)",
  description:
    "The stored bytes of a proof photo, by its task and SHA-256, with its own Content-Type: what the field app " +
    "shows as a thumbnail after a reload. A field staff member reads only the tasks assigned to it. A file that " +
    "is not an image (a PDF, a video, text) → 404.",
  ...FIELD_APP,
  query: fieldProofQuerySchema,
  contentType: [...FIELD_PROOF_IMAGE_TYPES],
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "NOT_FOUND", "FORBIDDEN"],
});

export const uploadFieldProofOperation = defineOperation({
  id: "uploadFieldProof",
  method: "POST",
  path: "/api/field-proof",
  summary: "Attach one proof file to a task before completion (field app camera)",
  description:
    `One file per request (base64, at most ${MAX_PROOF_FILE_BYTES} bytes decoded, checked by content like ` +
    "task-complete's proof_files); send an Idempotency-Key per file. The file is attached at once (a paid, " +
    "dispatched or on-site task; a field staff member only to its own) and completion includes it in the " +
    `receipt and the task.completed event. The same content twice is stored once. At most ${MAX_FIELD_PROOF_FILES} ` +
    "files before completion. A photo taken offline carries `captured_at` (bounded like a check-in's, 422 on " +
    "captured_at); sent after the task was reassigned → 409 with error.assigned_to; after it was cancelled → 409 " +
    "with current_status.",
  ...FIELD_APP,
  body: fieldProofBodySchema,
  response: fieldProofResponseSchema,
  idempotent: true,
  maxBodyBytes: 4_400_000,
  errors: [
    "MISSING_FIELD",
    "VALIDATION_ERROR",
    "INVALID_FORMAT",
    "NOT_FOUND",
    "FORBIDDEN",
    "CONFLICT",
    "PAYLOAD_TOO_LARGE",
  ],
});
